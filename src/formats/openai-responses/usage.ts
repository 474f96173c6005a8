/**
 * OpenAI Responses usage ↔ canonical Usage. `input_tokens` includes the tokens read from and
 * written to the prompt cache (`input_tokens_details`); canonical `inputTokens` excludes both.
 * `output_tokens` includes `output_tokens_details.reasoning_tokens`, as canonical outputTokens does.
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage
 */

import { promptTokensIncludingCache, type Usage } from '../../core/canonical.js';
import { isObject } from '../../core/json.js';

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

/** Undefined when `u` is not a usage object (a response still in progress has `usage: null`). */
export function usageFromResponses(u: unknown): Usage | undefined {
  if (!isObject(u)) return undefined;
  const input = isObject(u.input_tokens_details) ? u.input_tokens_details : {};
  const output = isObject(u.output_tokens_details) ? u.output_tokens_details : {};
  const read = count(input.cached_tokens);
  const write = count(input.cache_write_tokens);
  const reasoning = count(output.reasoning_tokens);
  return {
    inputTokens: Math.max(0, count(u.input_tokens) - read - write),
    outputTokens: count(u.output_tokens),
    ...(read > 0 ? { cacheReadTokens: read } : {}),
    ...(write > 0 ? { cacheWriteTokens: write } : {}),
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
  };
}

/** Every counter is reported, 0 when unused, as OpenAI does (and its SDK's types require). */
export function usageToResponses(u: Usage): ResponsesUsage {
  const input = promptTokensIncludingCache(u);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cacheReadTokens ?? 0, cache_write_tokens: u.cacheWriteTokens ?? 0 },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
    total_tokens: input + u.outputTokens,
  };
}
