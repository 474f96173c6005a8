/**
 * The output limit a request reaches its upstream with. The gateway always sends one (the
 * caller's, else a default), so what an upstream can bill is bounded, and budget reservations
 * (budget/plan.ts) bound it with the very same numbers the encoders and pass-through send.
 */

import type { ChatRequest, UpstreamFormatId, WireFormatId } from '../core/canonical.js';

/** Output cap sent when neither the caller nor the model's `max_output_tokens` gives one. */
export const DEFAULT_OUTPUT_CAP = 4096;

/** Largest `max_tokens` / thinking budget accepted (2^31 - 1); above it a request is refused. */
export const MAX_TOKENS_LIMIT = 2 ** 31 - 1;

/** OpenAI's documented maximum for `n` (choices per request). */
export const MAX_CHOICES = 128;

/**
 * OpenAI-style `reasoning_effort` → Anthropic `thinking.budget_tokens`. 1024 is Anthropic's
 * minimum budget; `minimal` means "as little reasoning as possible", so thinking stays off.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 */
export const EFFORT_BUDGET_TOKENS = { low: 1024, medium: 4096, high: 16384, xhigh: 32768, max: 65536 } as const;

/** Anthropic's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1024;

/** The thinking budget an Anthropic-format request carries: the caller's, or the one an effort maps to. */
export function thinkingBudget(req: ChatRequest): number | undefined {
  const effort = req.reasoning?.effort;
  return req.reasoning?.budgetTokens ?? (effort && effort !== 'minimal' ? EFFORT_BUDGET_TOKENS[effort] : undefined);
}

/**
 * `max_tokens` of a request translated to the Anthropic format. A thinking budget the
 * translation adds (from an OpenAI `reasoning_effort`) comes on top of the caller's limit, since
 * Anthropic requires budget_tokens < max_tokens and counts thinking in max_tokens; a caller's own
 * `thinking.budget_tokens` is already inside its `max_tokens`. Without a caller limit: the
 * default plus the budget, never above the model's configured output limit.
 */
export function anthropicMaxTokens(req: ChatRequest, maxOutputTokens: number | undefined): number {
  const budget = thinkingBudget(req);
  const added = req.reasoning?.budgetTokens === undefined ? (budget ?? 0) : 0;
  if (req.maxTokens !== undefined) return req.maxTokens + added;
  const wanted = DEFAULT_OUTPUT_CAP + (budget ?? 0);
  return Math.min(wanted, maxOutputTokens ?? wanted);
}

/** Adaptive thinking without a budget: the model thinks as it needs within the request's own limit. */
export function thinksAdaptively(req: ChatRequest): boolean {
  return req.reasoning?.adaptive === true && req.reasoning.budgetTokens === undefined;
}

/**
 * `maxTokens` of a Bedrock Converse request to a model that thinks: Claude's adaptive thinking goes up as it is (no
 * budget), so the caller's limit stays as it is; a budget comes on top of it, as for Anthropic.
 */
export function converseMaxTokens(req: ChatRequest, maxOutputTokens: number | undefined): number {
  if (thinksAdaptively(req)) return req.maxTokens ?? defaultOutputCap(maxOutputTokens);
  return anthropicMaxTokens(req, maxOutputTokens);
}

/**
 * The limit sent to an OpenAI-format upstream (chat or Responses, where it is optional) when the
 * caller set none: the model's configured output limit, else the default.
 */
export function defaultOutputCap(maxOutputTokens: number | undefined): number {
  return maxOutputTokens ?? DEFAULT_OUTPUT_CAP;
}

/**
 * The most output tokens an upstream can bill for this request: per choice the limit it is
 * sent, times the choices (OpenAI `n`; translation refuses n > 1). `upstream` undefined: the
 * in-process mock, which honours the caller's limit.
 */
export function maxBilledOutputTokens(
  req: ChatRequest,
  caller: WireFormatId,
  upstream: UpstreamFormatId | undefined,
  maxOutputTokens: number | undefined,
): number {
  if (upstream === 'anthropic-messages' && caller !== upstream) return anthropicMaxTokens(req, maxOutputTokens);
  // Bedrock sends Claude's thinking budget on top (request-encode.ts); for other models this bounds it from above.
  if (upstream === 'bedrock-converse') return converseMaxTokens(req, maxOutputTokens);
  return (req.maxTokens ?? defaultOutputCap(maxOutputTokens)) * (req.n ?? 1);
}
