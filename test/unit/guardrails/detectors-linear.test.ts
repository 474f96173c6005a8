/**
 * Built-in detectors cost time linear in the text, on the long runs an attacker can send (one
 * long word, base64, whitespace, digits, thousands of markers), and the shared-scan rewrites of
 * private_key and the email URL check find what they found before.
 */
import { describe, expect, it } from 'vitest';
import { DETECTORS, DETECTOR_NAMES } from '../../../src/guardrails/detectors.js';

const BEGIN = '-----BEGIN PRIVATE KEY-----';
const END = '-----END PRIVATE KEY-----';
const BODY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7';

/** Best of three runs, ms. */
function bestMs(fn: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    fn();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/** `unit` repeated to about n characters, then `tail`. */
const repeated = (unit: string, n: number, tail = ''): string => unit.repeat(Math.ceil(n / unit.length)) + tail;

// Inputs that made one detector or another rescan the rest of the text from every position.
const LONG_INPUTS: Record<string, (n: number) => string> = {
  'BEGIN markers, then junk': (n) => repeated(BEGIN, n, 'x'),
  'BEGIN markers on lines, then junk before an END': (n) => repeated(`${BEGIN}\n`, n, `!${END}`),
  'one long word': (n) => repeated('abcdefghij', n),
  'base64 without breaks': (n) => repeated('QUJDREVGR0hJSktMTU5PUA+/', n),
  whitespace: (n) => repeated(' ', n, 'x'),
  digits: (n) => repeated('1', n),
  'digit groups': (n) => repeated('0 12 ', n),
  'addresses glued by commas': (n) => repeated('a@b.co,', n),
  'addresses after a URL': (n) => `http://x/${repeated('a@b.co,', n)}`,
  'at signs': (n) => repeated('a@', n),
  'Bearer words': (n) => repeated('Bearer ', n),
  'a Bearer token ending in =': (n) => `Bearer ${repeated('a', n, '==a')}`,
  'IBAN starts': (n) => repeated('DE12 ', n),
  dashes: (n) => repeated('-', n, 'x'),
};

describe('detectors: linear time on long runs', () => {
  for (const [label, make] of Object.entries(LONG_INPUTS)) {
    it(`${label}: every detector, 100 KB vs 200 KB`, () => {
      for (const name of DETECTOR_NAMES) {
        const d = DETECTORS[name];
        const small = make(100_000);
        const big = make(200_000);
        d.find(small); // warm up
        const atN = bestMs(() => d.find(small));
        const at2N = bestMs(() => d.find(big));
        // Quadratic would be 4×; the slack absorbs timer noise on small times.
        expect(at2N, `${name}: ${atN.toFixed(1)} ms → ${at2N.toFixed(1)} ms`).toBeLessThan(3 * atN + 30);
      }
    });
  }
});

describe('private_key: what the shared scan finds', () => {
  const find = (text: string) => DETECTORS.private_key.find(text).map((s) => text.slice(s.start, s.end));

  it('a terminated key, whole', () => {
    const key = `${BEGIN}\n${BODY}\n${BODY}\n${END}`;
    expect(find(`before ${key} after`)).toEqual([key]);
  });

  it('an unterminated key runs to the end of the text while its material or a partial END line lasts', () => {
    expect(find(`k: ${BEGIN}\n${BODY}\n${BODY.slice(0, 10)}`)).toEqual([`${BEGIN}\n${BODY}\n${BODY.slice(0, 10)}`]);
    expect(find(`k: ${BEGIN}\n${BODY}\n-----EN`)).toEqual([`${BEGIN}\n${BODY}\n-----EN`]);
    expect(find(`k: ${BEGIN}${BODY}`)).toEqual([`${BEGIN}${BODY}`]);
  });

  it('prose stops an unterminated key after its material lines', () => {
    expect(find(`${BEGIN}\n${BODY}\nthat was the key, now some prose.`)).toEqual([`${BEGIN}\n${BODY}`]);
  });

  it('an END beyond the search limit or after prose does not terminate', () => {
    expect(find(`${BEGIN}\n${BODY}\nnot key material! ${END}`)).toEqual([`${BEGIN}\n${BODY}`]);
    const far = `${BEGIN}\n${`${BODY}\n`.repeat(400)}${END} and more`;
    expect(find(far)[0]).not.toContain('-----END');
  });

  it('thousands of markers are each a match of their own, and two keys in one text are two', () => {
    expect(find(repeated(BEGIN, 27 * 3000, 'x'))).toHaveLength(3000);
    const key = `${BEGIN}\n${BODY}\n${END}`;
    expect(find(`${key}\nand ${key}`)).toEqual([key, key]);
  });
});

describe('email: the URL check in one pass', () => {
  const find = (text: string) => DETECTORS.email.find(text).map((s) => text.slice(s.start, s.end));

  it('skips addresses inside a URL word, finds them again after whitespace', () => {
    expect(find('see http://user@example.com/x and jane@example.com')).toEqual(['jane@example.com']);
    expect(find('http://h/a@b.co,c@d.org next e@f.io')).toEqual(['e@f.io']);
  });

  it('looks back 2048 characters at most for the scheme', () => {
    const far = `http://h/${'x'.repeat(2100)},a@b.co`;
    expect(find(far)).toEqual(['a@b.co']);
  });

  it('finds every one of thousands of addresses glued together', () => {
    expect(find(repeated('a@b.co,', 7 * 5000))).toHaveLength(5000);
  });
});
