/**
 * Anthropic usage ↔ canonical Usage. Anthropic's `input_tokens` already excludes tokens read from
 * or written to the prompt cache, which is exactly the canonical `inputTokens`, so no arithmetic.
 * @see https://docs.anthropic.com/en/api/messages (response `usage`)
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance
 */

import type { Usage } from '../../core/canonical.js';

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/**
 * Only the counters the object reports (absent or null = not reported). message_delta usage is
 * cumulative but may omit the input-side counters, so a stream merges this over message_start's.
 */
export function partialUsageFromAnthropic(u: unknown): Partial<Usage> {
  if (typeof u !== 'object' || u === null) return {};
  const o = u as Record<string, unknown>;
  const out: Partial<Usage> = {};
  const input = count(o.input_tokens);
  const output = count(o.output_tokens);
  const read = count(o.cache_read_input_tokens);
  const write = count(o.cache_creation_input_tokens);
  if (input !== undefined) out.inputTokens = input;
  if (output !== undefined) out.outputTokens = output;
  if (read !== undefined) out.cacheReadTokens = read;
  if (write !== undefined) out.cacheWriteTokens = write;
  return out;
}

/** Later counters win, per field; cache counters that stay 0 are left out, as the OpenAI side does. */
export function combineUsage(...parts: Array<Partial<Usage> | undefined>): Usage {
  const m: Partial<Usage> = Object.assign({}, ...parts.filter(Boolean));
  const out: Usage = { inputTokens: m.inputTokens ?? 0, outputTokens: m.outputTokens ?? 0 };
  if (m.cacheReadTokens) out.cacheReadTokens = m.cacheReadTokens;
  if (m.cacheWriteTokens) out.cacheWriteTokens = m.cacheWriteTokens;
  return out;
}

export function usageFromAnthropic(u: unknown): Usage | undefined {
  if (typeof u !== 'object' || u === null) return undefined;
  return combineUsage(partialUsageFromAnthropic(u));
}

/** Anthropic always reports the cache counters (0 when unused), so we do too. */
export function usageToAnthropic(u: Partial<Usage>): AnthropicUsage {
  return {
    input_tokens: u.inputTokens ?? 0,
    cache_creation_input_tokens: u.cacheWriteTokens ?? 0,
    cache_read_input_tokens: u.cacheReadTokens ?? 0,
    output_tokens: u.outputTokens ?? 0,
  };
}
