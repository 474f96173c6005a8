/**
 * Anthropic usage ↔ canonical Usage. Anthropic's `input_tokens` already excludes tokens read from
 * or written to the prompt cache, which is exactly the canonical `inputTokens`, so no arithmetic.
 * @see https://docs.anthropic.com/en/api/messages (response `usage`)
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance
 */

import type { ServerToolUse, Usage } from '../../core/canonical.js';

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  server_tool_use?: { web_search_requests: number; web_fetch_requests: number };
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
  const tools = serverToolUse(o.server_tool_use);
  if (tools) out.serverToolUse = tools;
  return out;
}

/** `server_tool_use` counters (web search, web fetch) that are above zero; undefined if none. */
function serverToolUse(v: unknown): ServerToolUse | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const search = count(o.web_search_requests);
  const fetch = count(o.web_fetch_requests);
  if (!search && !fetch) return undefined;
  return { ...(search ? { webSearchRequests: search } : {}), ...(fetch ? { webFetchRequests: fetch } : {}) };
}

/** Later counters win, per field; cache counters that stay 0 are left out, as the OpenAI side does. */
export function combineUsage(...parts: Array<Partial<Usage> | undefined>): Usage {
  const m: Partial<Usage> = Object.assign({}, ...parts.filter(Boolean));
  const out: Usage = { inputTokens: m.inputTokens ?? 0, outputTokens: m.outputTokens ?? 0 };
  if (m.cacheReadTokens) out.cacheReadTokens = m.cacheReadTokens;
  if (m.cacheWriteTokens) out.cacheWriteTokens = m.cacheWriteTokens;
  if (m.serverToolUse) out.serverToolUse = m.serverToolUse;
  return out;
}

export function usageFromAnthropic(u: unknown): Usage | undefined {
  if (typeof u !== 'object' || u === null) return undefined;
  return combineUsage(partialUsageFromAnthropic(u));
}

/** Anthropic always reports the cache counters (0 when unused), so we do too. */
export function usageToAnthropic(u: Partial<Usage>): AnthropicUsage {
  const out: AnthropicUsage = {
    input_tokens: u.inputTokens ?? 0,
    cache_creation_input_tokens: u.cacheWriteTokens ?? 0,
    cache_read_input_tokens: u.cacheReadTokens ?? 0,
    output_tokens: u.outputTokens ?? 0,
  };
  const t = u.serverToolUse;
  if (t) out.server_tool_use = { web_search_requests: t.webSearchRequests ?? 0, web_fetch_requests: t.webFetchRequests ?? 0 };
  return out;
}
