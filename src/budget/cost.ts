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
  return (nano / NANO_PER_USD).toFixed(nano !== 0 && Math.abs(nano) < 1_000_000 ? 9 : 6);
}
