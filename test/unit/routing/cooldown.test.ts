import { describe, expect, it } from 'vitest';
import { Breakers } from '../../../src/routing/cooldown.js';

const policy = { failures: 3, windowMs: 1000, cooldownMs: 5000 };

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('Breakers', () => {
  it('opens after `failures` failures within the window, not when they are spread out', () => {
    const c = clock();
    const b = new Breakers(c.now);
    b.failure('m', policy);
    c.advance(600);
    b.failure('m', policy);
    c.advance(600); // the first failure has left the window
    b.failure('m', policy);
    expect(b.admit('m')).toBe('yes');
    b.failure('m', policy);
    expect(b.admit('m')).toBe('no');
    expect(b.retryInMs('m')).toBe(5000);
    expect(b.cooling()).toEqual(['m']);
  });

  it('lets exactly one probe through after the cooldown; its success closes the circuit', () => {
    const c = clock();
    const b = new Breakers(c.now);
    b.trip('m', policy);
    c.advance(4999);
    expect(b.admit('m')).toBe('no');
    c.advance(1);
    expect(b.admit('m')).toBe('probe');
    expect(b.admit('m')).toBe('no');
    b.success('m');
    expect(b.admit('m')).toBe('yes');
    expect(b.cooling()).toEqual([]);
  });

  it('a failed probe opens the circuit for another cooldown', () => {
    const c = clock();
    const b = new Breakers(c.now);
    b.trip('m', policy);
    c.advance(5000);
    expect(b.admit('m')).toBe('probe');
    b.failure('m', policy);
    expect(b.admit('m')).toBe('no');
    c.advance(5000);
    expect(b.admit('m')).toBe('probe');
  });

  it('a released probe (caller gone) lets the next request probe', () => {
    const c = clock();
    const b = new Breakers(c.now);
    b.trip('m', policy);
    c.advance(5000);
    expect(b.admit('m')).toBe('probe');
    b.release('m');
    expect(b.admit('m')).toBe('probe');
  });

  it('keeps circuits apart by key', () => {
    const b = new Breakers(clock().now);
    b.trip('a', policy);
    expect(b.admit('a')).toBe('no');
    expect(b.admit('b')).toBe('yes');
  });
});
