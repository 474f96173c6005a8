/**
 * A long server-sent event arriving in many chunks costs one pass: the decoder and the splitter
 * look only at the new text, not again at everything carried since the event began.
 */
import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../../src/sse/decode.js';
import { SseEventSplitter } from '../../../src/sse/split.js';

const CHUNK = 16 * 1024;

function chunksOf(text: string): Buffer[] {
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK) out.push(bytes.subarray(i, i + CHUNK));
  return out;
}

/** Best of three runs of `fn` over fresh chunks, ms. */
function bestMs(text: string, fn: (chunks: Buffer[]) => unknown): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const chunks = chunksOf(text);
    const start = performance.now();
    fn(chunks);
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

const event = (size: number) => `data: ${'x'.repeat(size)}\r\n\r\nevent: done\ndata: {}\n\n`;

const decodeAll = (chunks: Buffer[]) => {
  const d = new SseDecoder();
  return [...chunks.flatMap((c) => d.push(c)), ...d.end()];
};
const splitAll = (chunks: Buffer[]) => {
  const s = new SseEventSplitter();
  return [...chunks.map((c) => s.push(c)), s.end()].filter((r) => r !== '');
};

describe('SSE: one long event in 16 KB chunks', () => {
  it('decodes and splits it whole', () => {
    const text = event(1 << 20);
    const msgs = decodeAll(chunksOf(text));
    expect(msgs.map((m) => [m.event, m.data.length])).toEqual([
      [undefined, 1 << 20],
      ['done', 2],
    ]);
    expect(splitAll(chunksOf(text)).join('')).toBe(text);
    // Nothing is released before the long event's blank line.
    expect(splitAll(chunksOf(text))[0]!.startsWith(`data: ${'x'.repeat(1 << 20)}\r\n\r\n`)).toBe(true);
  });

  it('in time linear in its length (2 MB vs 4 MB)', () => {
    for (const fn of [decodeAll, splitAll]) {
      bestMs(event(1 << 16), fn);
      const atN = bestMs(event(2 << 20), fn);
      const at2N = bestMs(event(4 << 20), fn);
      // Rescanning the carried text on every chunk took seconds at 4 MB.
      expect(at2N, `${fn.name}: ${atN.toFixed(0)} ms → ${at2N.toFixed(0)} ms`).toBeLessThan(3 * atN + 100);
    }
  });
});

describe('SseDecoder: byte-order mark', () => {
  it('ignores one BOM at the start of the stream, as the spec says, also when it arrives alone', () => {
    const d = new SseDecoder();
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(d.push(bom.subarray(0, 2))).toEqual([]);
    expect(d.push(Buffer.concat([bom.subarray(2), Buffer.from('data: x\n\n')]))).toEqual([
      { event: undefined, data: 'x', id: undefined },
    ]);
    const e = new SseDecoder();
    expect(e.push('\ufeffevent: a\ndata: y\n\n')).toEqual([{ event: 'a', data: 'y', id: undefined }]);
  });
});
