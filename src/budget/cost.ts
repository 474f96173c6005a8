/**
 * Cost of a request from the usage the provider reported. Canonical usage counts input tokens
 * WITHOUT cache reads and writes (Anthropic's `input_tokens`; the OpenAI decoder subtracts
 * `cached_tokens` from `prompt_tokens`), so each kind of token is priced exactly once.
 * Amounts are kept in nano-dollars (integers): exact sums, safe for atomic counters.
 */

import type { Usage } from '../core/canonical.js';
import type { Price } from '../config/types.js';

export const NANO_PER_USD = 1_000_000_000;

/**
 * USD per million tokens → nano-USD per token is ×1000. A cache price not configured costs as
 * much as plain input (never less than the provider may charge).
 */
export function costNanoUsd(usage: Partial<Usage> | undefined, price: Price | undefined): number {
  if (!usage || !price) return 0;
  const n =
    (usage.inputTokens ?? 0) * price.input +
    (usage.outputTokens ?? 0) * price.output +
    (usage.cacheReadTokens ?? 0) * (price.cacheRead ?? price.input) +
    (usage.cacheWriteTokens ?? 0) * (price.cacheWrite ?? price.input);
  return Math.ceil(n * 1000);
}

export function nanoToUsd(nano: number): number {
  return nano / NANO_PER_USD;
}

/** `0.001234` style, enough digits for a single request's cost. */
export function formatUsd(nano: number): string {
  return (nano / NANO_PER_USD).toFixed(nano !== 0 && Math.abs(nano) < 1_000_000 ? 9 : 6);
}
