import type { RetryPolicy } from '../config/types.js';

/**
 * Delay before retry number `n` (1 for the first retry): exponential from initial_backoff_ms,
 * capped at max_backoff_ms, with "equal jitter" (between half and all of it) so that callers
 * failing together do not come back together, while a retry never comes back at once.
 */
export function backoffMs(n: number, p: RetryPolicy, random: () => number = Math.random): number {
  const base = Math.min(p.maxBackoffMs, p.initialBackoffMs * 2 ** Math.max(0, n - 1));
  return Math.round(base / 2 + random() * (base / 2));
}
