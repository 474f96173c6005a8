/**
 * Long runs are cut before BPE so counting stays linear; ordinary text is counted in one piece,
 * so its count is exactly the tokenizer's.
 */
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import type { ModelSpec } from '../../../src/config/types.js';
import { bpePieces, countInPieces, MAX_RUN } from '../../../src/tokens/bpe-pieces.js';
import { countTextTokensLocally } from '../../../src/tokens/count-local.js';

const AS_TEXT = { disallowedSpecial: new Set<string>() };

function spec(upstreamName: string): ModelSpec {
  return {
    id: `p/${upstreamName}`,
    provider: 'p',
    name: upstreamName,
    upstreamName,
    kind: 'chat',
    contextWindow: 128_000,
    timeouts: { connectMs: 1000, firstByteMs: 1000, totalMs: 1000 },
  };
}

const ENGLISH = `It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of
foolishness. The gateway forwards each request to the provider named by the model, e.g. "openai/gpt-4o",
and counts tokens locally when asked: see https://example.com/docs/tokens?lang=en#counting for details.

| column | value |
| ------ | ----- |
| a      | 1,234 |

    function add(a, b) {
      return a + b; // ${'='.repeat(80)}
    }
`;

/** Lower-case letters without a space, not periodic. */
function word(length: number): string {
  let seed = 7;
  let s = '';
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    s += String.fromCharCode(97 + (seed % 26));
  }
  return s;
}

describe('bpePieces', () => {
  it('leaves ordinary text whole', () => {
    expect(bpePieces(ENGLISH)).toEqual([ENGLISH]);
  });

  it('cuts runs of letters, punctuation and whitespace longer than MAX_RUN, and only those', () => {
    const text =
      `start ${'a'.repeat(300)} mid ${'!'.repeat(MAX_RUN)} ${' '.repeat(2 * MAX_RUN + 1)}end ` + `${'1'.repeat(1000)}`;
    const pieces = bpePieces(text);
    expect(pieces.join('')).toBe(text);
    // 300 letters: two cuts; exactly MAX_RUN `!`: none; 257 spaces: two; digits: none.
    expect(pieces).toHaveLength(5);
    for (const p of pieces) {
      expect(p).not.toMatch(new RegExp(`[^\\s\\p{N}]{${MAX_RUN + 1}}|\\s{${MAX_RUN + 1}}`, 'u'));
    }
  });

  it('never splits a surrogate pair', () => {
    const text = `x${'😀'.repeat(500)}`;
    const pieces = bpePieces(text);
    expect(pieces.join('')).toBe(text);
    for (const p of pieces) expect(p).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
  });
});

describe('countInPieces: close to the tokenizer', () => {
  it('ordinary text counts exactly as the tokenizer counts it, in both encodings', () => {
    expect(countTextTokensLocally(ENGLISH, spec('gpt-4o'))).toBe(o200k(ENGLISH, AS_TEXT));
    expect(countTextTokensLocally(ENGLISH, spec('gpt-4'))).toBe(cl100k(ENGLISH, AS_TEXT));
  });

  it('a run of `A` counts as it does whole; a long word within one token per cut', () => {
    const as = 'A'.repeat(10_000);
    expect(countInPieces(as, (p) => o200k(p, AS_TEXT))).toBe(o200k(as, AS_TEXT));
    const w = word(10_000);
    const cuts = bpePieces(w).length - 1;
    expect(Math.abs(countInPieces(w, (p) => o200k(p, AS_TEXT)) - o200k(w, AS_TEXT))).toBeLessThanOrEqual(cuts);
  });

  it('counting a 200 KB word takes time linear in its length', () => {
    const time = (text: string) => {
      const start = performance.now();
      countTextTokensLocally(text, spec('gpt-4o'));
      return performance.now() - start;
    };
    time(word(1000)); // loads the ranks
    const atN = Math.min(time(word(100_000)), time(word(100_000)));
    const at2N = Math.min(time(word(200_000)), time(word(200_000)));
    // Whole, one 100 KB word took seconds and doubling it quadrupled that.
    expect(at2N, `${atN.toFixed(0)} ms → ${at2N.toFixed(0)} ms`).toBeLessThan(3 * atN + 100);
  });
});
