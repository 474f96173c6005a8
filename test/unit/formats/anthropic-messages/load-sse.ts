import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { StreamEvent } from '../../../../src/core/canonical.js';
import { decodeSse, SseDecoder, type SseMessage } from '../../../../src/sse/decode.js';

export const FIXTURES = fileURLToPath(new URL('../../../fixtures/formats/anthropic-messages/', import.meta.url));

/** A verbatim `*.sse` fixture, fed to the SSE decoder in small byte chunks as a socket would. */
export function sseFixture(name: string, chunkSize = 37): AsyncIterable<SseMessage> {
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

export async function* fromArray<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/**
 * Events as golden text: one JSON per line; `created` (a clock value) zeroed, errors reduced to code/status/message.
 */
export function goldenEvents(events: StreamEvent[]): string {
  const lines = events.map((e) => {
    if (e.type === 'error')
      return JSON.stringify({
        type: 'error',
        error: { code: e.error.code, status: e.error.status, kind: e.error.kind, message: e.error.message },
      });
    if (e.type === 'message_start') return JSON.stringify({ ...e, created: 0 });
    return JSON.stringify(e);
  });
  return `${lines.join('\n')}\n`;
}
