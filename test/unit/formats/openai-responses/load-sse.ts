import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ChatRequest, StreamEvent } from '../../../../src/core/canonical.js';
import { decodeSse, SseDecoder, type SseMessage } from '../../../../src/sse/decode.js';

export const FIXTURES = fileURLToPath(new URL('../../../fixtures/formats/openai-responses/', import.meta.url));

export function fixtureText(name: string): string {
  return readFileSync(`${FIXTURES}${name}.sse`, 'utf8');
}

/** A verbatim `*.sse` fixture, fed to the SSE decoder in small byte chunks as a socket would. */
export function sseFixture(name: string, chunkSize = 41): AsyncIterable<SseMessage> {
  const bytes = readFileSync(`${FIXTURES}${name}.sse`);
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += chunkSize) yield bytes.subarray(i, i + chunkSize);
  }
  return decodeSse(chunks());
}

export function parseSse(text: string): SseMessage[] {
  const d = new SseDecoder();
  return [...d.push(text), ...d.end()];
}

/** SSE text → the parsed data of each event, checking that `event:` repeats the data's `type`. */
export function parseEvents(text: string): Array<Record<string, unknown>> {
  return parseSse(text).map((m) => {
    const data = JSON.parse(m.data) as Record<string, unknown>;
    if (m.event !== data.type) throw new Error(`event ${m.event} carries data of type ${String(data.type)}`);
    return data;
  });
}

export async function* fromArray<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Events as golden text: one JSON per line, errors reduced to code/status/kind/message. */
export function goldenEvents(events: StreamEvent[]): string {
  const lines = events.map((e) =>
    JSON.stringify(
      e.type === 'error'
        ? {
            type: 'error',
            error: { code: e.error.code, status: e.error.status, kind: e.error.kind, message: e.error.message },
          }
        : e,
    ),
  );
  return `${lines.join('\n')}\n`;
}

/** A canonical request with nothing but what a test sets. */
export function chatRequest(over: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'team/codex',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    stream: false,
    includeUsage: true,
    unmapped: [],
    ...over,
  };
}
