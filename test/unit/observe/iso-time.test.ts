/** isoTime keeps a second's text: it must equal Date#toISOString for every instant. */
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../../src/observe/iso-time.js';

const iso = (ms: number) => new Date(ms).toISOString();

describe('isoTime', () => {
  it('equals toISOString across seconds, days, years, and back in time (the cache reused and replaced)', () => {
    const base = Date.UTC(2026, 11, 31, 23, 59, 59, 0);
    const instants = [
      0,
      1,
      9,
      10,
      99,
      100,
      999,
      1000,
      -1,
      -999,
      -1000,
      -1001,
      base - 1,
      base,
      base + 5,
      base + 999,
      base + 1000,
      base + 1001,
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1),
      Date.UTC(-1, 0, 1, 0, 0, 0, 7),
      8.64e15,
      -8.64e15,
      1.9,
      -1.9,
      1700000000123.75,
    ];
    for (const ms of instants) expect(isoTime(ms), String(ms)).toBe(iso(ms));
  });

  it('equals toISOString on a walk through one busy second and on spread-out instants', () => {
    const start = Date.UTC(2026, 0, 2, 3, 4, 5, 0);
    for (let ms = start - 3; ms < start + 1003; ms++) expect(isoTime(ms)).toBe(iso(ms));
    let x = 12345;
    for (let n = 0; n < 2000; n++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      const ms = (x / 2 ** 31) * 4e12 - 1e12;
      expect(isoTime(ms)).toBe(iso(ms));
    }
  });

  it('throws as toISOString does for an instant a Date cannot hold', () => {
    for (const ms of [Number.NaN, Infinity, 8.64e15 + 1, -8.64e15 - 1000])
      expect(() => isoTime(ms)).toThrow(RangeError);
  });
});
