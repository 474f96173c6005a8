import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { StreamEvent } from '../../../../src/core/canonical.js';
import type { SseMessage } from '../../../../src/sse/decode.js';

export const FIXTURES = fileURLToPath(new URL('../../../fixtures/formats/openai-chat/', import.meta.url));

/** A `*.chunks.txt` fixture (one JSON chunk or `[DONE]` per line) as upstream SSE messages. */
export async function* chunksFixture(name: string): AsyncGenerator<SseMessage> {
  const text = readFileSync(`${FIXTURES}${name}.chunks.txt`, 'utf8');
  for (const line of text.split('\n')) if (line.trim()) yield { data: line };
}

export async function* fromArray<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Events as golden-file text: one JSON per line, errors reduced to code/status/message. */
export function goldenText(events: StreamEvent[]): string {
  return `${events
    .map((e) =>
      JSON.stringify(
        e.type === 'error'
          ? { type: 'error', error: { code: e.error.code, status: e.error.status, message: e.error.message } }
          : e,
      ),
    )
    .join('\n')}\n`;
}
