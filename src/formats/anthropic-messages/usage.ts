/**
 * Anthropic usage ↔ canonical Usage. Anthropic's `input_tokens` already excludes tokens read from
 * or written to the prompt cache, which is exactly the canonical `inputTokens`, so no arithmetic.
 * @see https://docs.anthropic.com/en/api/messages (response `usage`)
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance
 */

import type { ChatRequest, ContentPart, ServerToolUse, Usage } from '../../core/canonical.js';

/** `usage` of a message_delta event. */
export interface AnthropicDeltaUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  server_tool_use?: { web_search_requests: number; web_fetch_requests: number };
}

/** `usage` of a message (a response, message_start): with the cache writes by TTL. */
export interface AnthropicUsage extends AnthropicDeltaUsage {
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
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
export function deltaUsageToAnthropic(u: Partial<Usage>): AnthropicDeltaUsage {
  const out: AnthropicDeltaUsage = {
    input_tokens: u.inputTokens ?? 0,
    cache_creation_input_tokens: u.cacheWriteTokens ?? 0,
    cache_read_input_tokens: u.cacheReadTokens ?? 0,
    output_tokens: u.outputTokens ?? 0,
  };
  const t = u.serverToolUse;
  if (t)
    out.server_tool_use = {
      web_search_requests: t.webSearchRequests ?? 0,
      web_fetch_requests: t.webFetchRequests ?? 0,
    };
  return out;
}

/**
 * A message's usage, `cache_creation` included. Other formats do not say how long a cache write
 * lives: writes are reported as the default 5-minute TTL.
 */
export function usageToAnthropic(u: Partial<Usage>): AnthropicUsage {
  const d = deltaUsageToAnthropic(u);
  // Anthropic's own member order.
  return {
    input_tokens: d.input_tokens,
    cache_creation_input_tokens: d.cache_creation_input_tokens,
    cache_read_input_tokens: d.cache_read_input_tokens,
    cache_creation: { ephemeral_5m_input_tokens: d.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 },
    output_tokens: d.output_tokens,
    ...(d.server_tool_use ? { server_tool_use: d.server_tool_use } : {}),
  };
}

/**
 * A local estimate of a request's input tokens (about four characters per token over the text,
 * tool calls and tool definitions), for a translated stream's message_start before the upstream
 * has reported its count (OpenAI reports usage only at the end). Never billed.
 */
export function estimateInputTokens(req: ChatRequest): number {
  let chars = 0;
  const part = (p: ContentPart): void => {
    if (p.type === 'text' || p.type === 'reasoning') chars += p.text.length;
    else if (p.type === 'tool_call') chars += p.name.length + p.arguments.length;
    else if (p.type === 'tool_result') p.content.forEach(part);
    else chars += 340; // an image: about 85 tokens at low detail
  };
  (req.system ?? []).forEach(part);
  for (const m of req.messages ?? []) m.content.forEach(part);
  for (const t of req.tools ?? [])
    chars += t.name.length + (t.description?.length ?? 0) + JSON.stringify(t.parameters).length;
  return chars === 0 ? 0 : Math.max(1, Math.ceil(chars / 4));
}
