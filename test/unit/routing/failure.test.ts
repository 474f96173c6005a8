import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/core/errors.js';
import { backoffMs } from '../../../src/routing/backoff.js';
import { parseRetryAfter } from '../../../src/core/retry-after.js';
import { classifyFailure, failureMatches, isProviderFault } from '../../../src/routing/failure.js';
import { DEFAULTS } from '../../../src/config/normalise.js';

const upstream = (status: number, retryAfterMs?: number) =>
  new GatewayError('upstream_error', 'x', {
    status: status === 401 ? 502 : status,
    upstream: { status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
  });

describe('classifyFailure', () => {
  it('classifies transport failures, statuses and credential refusals', () => {
    expect(classifyFailure(new GatewayError('upstream_timeout', 't'))).toEqual({ cls: 'timeout' });
    expect(classifyFailure(new GatewayError('upstream_unavailable', 'c'))).toEqual({ cls: 'connect' });
    expect(classifyFailure(upstream(503))).toEqual({ cls: 'http', status: 503 });
    expect(classifyFailure(upstream(429, 1500))).toEqual({ cls: 'http', status: 429, retryAfterMs: 1500 });
    expect(classifyFailure(upstream(401))).toEqual({ cls: 'auth', status: 401 });
  });
  it('leaves caller and gateway errors alone', () => {
    expect(classifyFailure(new GatewayError('invalid_request', 'bad'))).toBeUndefined();
    expect(classifyFailure(new GatewayError('model_not_allowed', 'no'))).toBeUndefined();
    expect(classifyFailure(new GatewayError('internal_error', 'bug'))).toBeUndefined();
  });
});

describe('failureMatches with the default lists', () => {
  const { retryOn, fallbackOn } = DEFAULTS.routing;
  it('moves on for connection errors, timeouts, 429 and 5xx (529 included)', () => {
    for (const f of [
      { cls: 'connect' },
      { cls: 'timeout' },
      { cls: 'http', status: 429 },
      { cls: 'http', status: 500 },
      { cls: 'http', status: 529 },
    ] as const) {
      expect(failureMatches(retryOn, f)).toBe(true);
      expect(failureMatches(fallbackOn, f)).toBe(true);
    }
  });
  it('moves on from a refused credential without retrying it', () => {
    expect(failureMatches(retryOn, { cls: 'auth', status: 401 })).toBe(false);
    expect(failureMatches(fallbackOn, { cls: 'auth', status: 403 })).toBe(true);
  });
  it('never moves on for caller errors, even when listed', () => {
    for (const status of [400, 404, 413, 422]) {
      expect(failureMatches([...fallbackOn, status], { cls: 'http', status })).toBe(false);
    }
    expect(failureMatches(fallbackOn, { cls: 'http', status: 409 })).toBe(false);
    expect(failureMatches([409], { cls: 'http', status: 409 })).toBe(true);
  });
  it('counts only provider-side failures toward a circuit', () => {
    expect(isProviderFault({ cls: 'http', status: 400 })).toBe(false);
    expect(isProviderFault({ cls: 'http', status: 429 })).toBe(true);
    expect(isProviderFault({ cls: 'http', status: 502 })).toBe(true);
    expect(isProviderFault({ cls: 'connect' })).toBe(true);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');
  it('prefers retry-after-ms, reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('250', '9', now)).toBe(250);
    expect(parseRetryAfter(undefined, '2', now)).toBe(2000);
    expect(parseRetryAfter(undefined, '0.5', now)).toBe(500);
    expect(parseRetryAfter(undefined, 'Mon, 23 Nov 2026 10:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter(undefined, 'Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });
  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', 'later', now)).toBeUndefined();
    expect(parseRetryAfter('-5', undefined, now)).toBeUndefined();
  });
});

describe('backoffMs', () => {
  const p = { maxRetries: 5, initialBackoffMs: 100, maxBackoffMs: 1000, maxRetryAfterMs: 0 };
  it('doubles from the initial delay up to the cap, jittered between half and all of it', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, p, () => 1))).toEqual([100, 200, 400, 800, 1000]);
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, p, () => 0))).toEqual([50, 100, 200, 400, 500]);
  });
});
