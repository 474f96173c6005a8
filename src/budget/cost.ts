/**
 * Cost of a request from the usage the provider reported. Canonical usage counts input tokens
 * WITHOUT cache reads and writes (Anthropic's `input_tokens`; the OpenAI decoder subtracts
 * `cached_tokens` from `prompt_tokens`), so each kind of token is priced exactly once. Server
 * tools billed per use (web search) are priced per request.
 * Amounts are kept in nano-dollars (integers): exact sums, safe for atomic counters.
 */

import type { Usage } from '../core/canonical.js';
import type { Price } from '../config/types.js';

export const NANO_PER_USD = 1_000_000_000;

/**
 * The most one request can cost or reserve (2^52 nano-USD, about $4.5M): counters stay exact
 * integers, and no absurd count or price turns into Infinity or NaN in budget arithmetic.
 */
export const MAX_COST_NANO = 2 ** 52;

/** A usable count: finite and positive, else nothing. */
function count(v: number | undefined): number {
  return typeof v === 'number' && v > 0 && Number.isFinite(v) ? v : 0;
}

/** count × USD per million (tokens); summed, then ×1000 into nano-USD. */
function term(n: number | undefined, usdPerMillion: number): number {
  const c = count(n);
  return c === 0 ? 0 : c * usdPerMillion;
}

/**
 * USD per million tokens → nano-USD per token is ×1000; USD per 1,000 requests → nano-USD per
 * request is ×1,000,000. A cache price not configured costs as much as plain input (never less
 * than the provider may charge).
 */
export function costNanoUsd(usage: Partial<Usage> | undefined, price: Price | undefined): number {
  if (!usage || !price) return 0;
  const perMillionTokens =
    term(usage.inputTokens, price.input) +
    term(usage.outputTokens, price.output) +
    term(usage.cacheReadTokens, price.cacheRead ?? price.input) +
    term(usage.cacheWriteTokens, price.cacheWrite ?? price.input) +
    term(usage.serverToolUse?.webSearchRequests, (price.webSearch ?? 0) * 1000);
  const nano = Math.ceil(perMillionTokens * 1000);
  return nano >= 0 && nano < MAX_COST_NANO ? nano : MAX_COST_NANO;
}

export function nanoToUsd(nano: number): number {
  return nano / NANO_PER_USD;
}

/** `0.001234` style, enough digits for a single request's cost. */
export function formatUsd(nano: number): string {
  // Every cost is a whole number of nano-USD: written from its digits, the string toFixed gives
  // (toFixed showed in the CPU profile of every request). Ties, negatives and fractions: toFixed.
  if (!Number.isSafeInteger(nano) || nano < 0 || nano > MAX_COST_NANO || nano % 1000 === 500)
    return (nano / NANO_PER_USD).toFixed(nano !== 0 && Math.abs(nano) < 1_000_000 ? 9 : 6);
  if (nano === 0) return '0.000000';
  // Below a thousandth of a dollar: 9 decimals, the nano-USD themselves.
  if (nano < 1_000_000) return `0.${String(nano).padStart(9, '0')}`;
  // 6 decimals: micro-USD rounded half up, as toFixed rounds (away from the tie excluded above,
  // the quotient's rounding error, under 2^-31 for costs up to MAX_COST_NANO, cannot change it).
  const micro = Math.floor(nano / 1000) + (nano % 1000 > 500 ? 1 : 0);
  return `${Math.floor(micro / 1_000_000)}.${String(micro % 1_000_000).padStart(6, '0')}`;
}
