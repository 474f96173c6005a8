import { decodeTime } from 'ulid';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { acceptCorrelationId, newCorrelationId, randomId } from '../../../src/core/ids.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** The 80-bit random part of a ULID as a number. */
const randomPart = (id: string): bigint =>
  [...id.slice(10)].reduce((n, ch) => n * 32n + BigInt(CROCKFORD.indexOf(ch)), 0n);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('newCorrelationId', () => {
  it('makes well-formed ULIDs that carry the current time (as the ulid package reads it)', () => {
    const before = Date.now();
    const id = newCorrelationId();
    const after = Date.now();
    expect(id).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect(acceptCorrelationId(id)).toBe(id);
    expect(decodeTime(id)).toBeGreaterThanOrEqual(before);
    expect(decodeTime(id)).toBeLessThanOrEqual(after);
  });

  it('sorts in creation order and never repeats, within a millisecond and across them', () => {
    const ids = Array.from({ length: 20_000 }, () => newCorrelationId());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('within one millisecond adds one to the random part, carrying into the digits before', () => {
    // Times past every earlier id's (the generator's state is per process), one apart per test.
    vi.spyOn(Date, 'now').mockReturnValue(1_900_000_000_000);
    const ids = Array.from({ length: 70 }, () => newCorrelationId());
    for (let i = 1; i < ids.length; i++) {
      expect(ids[i].slice(0, 10)).toBe(ids[0].slice(0, 10));
      expect(randomPart(ids[i]) - randomPart(ids[i - 1])).toBe(1n);
    }
    expect(decodeTime(ids[0])).toBe(1_900_000_000_000);
  });

  it('draws a new random part each millisecond', () => {
    let now = 1_910_000_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => now++);
    const parts = new Set(Array.from({ length: 200 }, () => newCorrelationId().slice(10)));
    expect(parts.size).toBe(200);
    // Uniform digits: 200 draws of 32 values leave a few unseen per position, not most.
    const perPosition = Array.from({ length: 16 }, (_, p) => new Set([...parts].map((r) => r[p])).size);
    expect(Math.min(...perPosition)).toBeGreaterThan(24);
  });

  it('keeps the order when the clock goes back', () => {
    let now = 1_920_000_000_500;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const first = newCorrelationId();
    now -= 400;
    const second = newCorrelationId();
    now += 800;
    const third = newCorrelationId();
    expect([first, second, third].sort()).toEqual([first, second, third]);
    expect(decodeTime(second)).toBe(decodeTime(first));
    expect(decodeTime(third)).toBe(1_920_000_000_900);
  });
});

describe('randomId', () => {
  it('is the prefix and a lower-case ULID', () => {
    expect(randomId('call_')).toMatch(/^call_[0-7][0-9a-hjkmnp-tv-z]{25}$/);
  });
});
