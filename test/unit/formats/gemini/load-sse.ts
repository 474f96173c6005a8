import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeSse, type SseMessage } from '../../../../src/sse/decode.js';

export const FIXTURES = fileURLToPath(new URL('../../../fixtures/formats/gemini/', import.meta.url));

/** A recorded-shape `*.sse` fixture, fed to the SSE decoder in small byte chunks as a socket would. */
export function sseFixture(name: string, chunkSize = 41): AsyncIterable<SseMessage> {
  const bytes = readFileSync(`${FIXTURES}${name}.sse`);
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += chunkSize) yield bytes.subarray(i, i + chunkSize);
  }
  return decodeSse(chunks());
}

export function jsonFixture(name: string): unknown {
  return JSON.parse(readFileSync(`${FIXTURES}${name}.json`, 'utf8'));
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
