/** formatUsd writes whole nano-USD from their digits: it must give toFixed's string for every amount. */
import { describe, expect, it } from 'vitest';
import { formatUsd, MAX_COST_NANO } from '../../../src/budget/cost.js';

const byToFixed = (nano: number) => (nano / 1e9).toFixed(nano !== 0 && Math.abs(nano) < 1_000_000 ? 9 : 6);

describe('formatUsd', () => {
  it("gives toFixed's string at the edges: zero, the 9/6-decimal switch, ties, the largest cost", () => {
    const edges = [
      0,
      1,
      9,
      10,
      8250,
      999_999,
      1_000_000,
      1_000_499,
      1_000_500,
      1_000_501,
      1_234_567_890,
      999_999_499,
      999_999_500,
      999_999_501,
      999_999_999,
      1e9,
      1e9 + 500,
      123_456_789_012_345,
      MAX_COST_NANO - 1,
      MAX_COST_NANO,
      MAX_COST_NANO + 1,
      -1,
      -8250,
      -1_000_500,
      0.5,
      1234.5,
      Number.NaN,
      Infinity,
    ];
    for (const nano of edges) expect(formatUsd(nano), String(nano)).toBe(byToFixed(nano));
    expect(formatUsd(8250)).toBe('0.000008250');
    expect(formatUsd(1_234_567_890)).toBe('1.234568');
  });

  it("gives toFixed's string for amounts of every size (a fixed pseudo-random walk)", () => {
    let x = 987654321;
    for (let n = 0; n < 20_000; n++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      const digits = 1 + (n % 16);
      const nano = Math.min(MAX_COST_NANO, Math.floor((x / 2 ** 31) * 10 ** digits));
      expect(formatUsd(nano)).toBe(byToFixed(nano));
      // The tie's neighbours, at each size.
      const tie = nano - (nano % 1000) + 500;
      for (const v of [tie - 1, tie, tie + 1]) if (v <= MAX_COST_NANO) expect(formatUsd(v)).toBe(byToFixed(v));
    }
  });
});
