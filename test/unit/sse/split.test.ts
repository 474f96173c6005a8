import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../../src/sse/decode.js';
import { lastEventEnd, SseEventSplitter } from '../../../src/sse/split.js';

const bytes = (s: string) => new TextEncoder().encode(s);

/** Feeds `input` cut at every given offset; returns the runs and what is left at the end. */
function split(input: Uint8Array, cuts: number[]): { runs: string[]; tail: string } {
  const splitter = new SseEventSplitter();
  const runs: string[] = [];
  let at = 0;
  for (const cut of [...cuts, input.length]) {
    const run = splitter.push(input.subarray(at, cut));
    if (run) runs.push(run);
    at = cut;
  }
  return { runs, tail: splitter.end() };
}

describe('lastEventEnd', () => {
  it('finds the end of the last blank line for each line ending', () => {
    expect(lastEventEnd('data: a\n\ndata: b')).toBe(9);
    expect(lastEventEnd('data: a\r\n\r\ndata: b')).toBe(11);
    expect(lastEventEnd('data: a\n\r\nx')).toBe(10);
    expect(lastEventEnd('data: a\r\rx')).toBe(9);
    expect(lastEventEnd('data: a\r\r\nx')).toBe(10);
    expect(lastEventEnd('data: a\n')).toBe(0);
  });

  it('does not decide on a CR at the very end (an LF may follow)', () => {
    expect(lastEventEnd('data: a\r\r')).toBe(0);
    expect(lastEventEnd('data: a\r\n\r')).toBe(0);
  });
});

describe('SseEventSplitter', () => {
  const stream = 'event: a\ndata: {"x":"é"}\n\n: comment\n\ndata: line1\r\ndata: line2\r\n\r\ndata: 😀\n\ndata: tail';

  it('gives back exactly the input, in runs of whole events, whatever the chunking', () => {
    const input = bytes(stream);
    for (let cut = 1; cut < input.length; cut++) {
      const { runs, tail } = split(input, [cut]);
      expect(runs.join('') + tail).toBe(stream);
      for (const run of runs) expect(lastEventEnd(run)).toBe(run.length);
    }
  });

  it('byte by byte, multi-byte characters and CRLFs split included', () => {
    const input = bytes(stream);
    const { runs, tail } = split(
      input,
      Array.from({ length: input.length - 1 }, (_, i) => i + 1),
    );
    expect(runs.join('') + tail).toBe(stream);
    expect(tail).toBe('data: tail');
  });

  it('runs decode to the same events as the whole stream', () => {
    const whole = new SseDecoder();
    const expected = [...whole.push(stream), ...whole.end()];
    const { runs, tail } = split(bytes(stream), [3, 17, 40, 41, 60]);
    const d = new SseDecoder();
    const got = [...runs.flatMap((r) => d.push(r)), ...d.push(tail), ...d.end()];
    expect(got).toEqual(expected);
  });
});
