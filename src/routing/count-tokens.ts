/**
 * Counting a request's input tokens for a model or alias of the config. Two paths:
 * - `local`: the model family's tokenizer with OpenAI's chat overhead (count-local.ts);
 * - `upstream`: the provider's own count_tokens endpoint (Anthropic-format providers), done by
 *   the server; it reports its result in the same TokenCount shape.
 */
import type { GatewayConfig } from '../config/types.js';
import type { ChatRequest } from '../core/canonical.js';
import { GatewayError } from '../core/errors.js';
import { resolveModel, type Candidate } from './resolve-model.js';
import { countInputTokensLocally } from '../tokens/count-local.js';

export interface TokenCount {
  inputTokens: number;
  /** The concrete model id `<provider>/<name>` counted for (an alias's chosen candidate). */
  model: string;
  contextWindow: number;
  /** inputTokens <= contextWindow. */
  fits: boolean;
  method: 'upstream' | 'local';
  /** The local tokenizer's encoding (`o200k_base`, `cl100k_base`); absent for upstream counts. */
  encoding?: string;
  /** False when the count is an approximation (no tokenizer of this model family). */
  exact: boolean;
}

/**
 * The concrete model a count is for: the model itself, or for an alias the first candidate whose
 * provider is available (the one a request would most likely reach), else its first candidate.
 * Unknown name (or an alias with no candidate) → GatewayError('model_not_found').
 */
export function countingCandidate(config: GatewayConfig, modelName: string): Candidate {
  const resolution = resolveModel(config, modelName);
  const candidates = resolution?.candidates ?? [];
  const chosen = candidates.find((c) => c.provider.available) ?? candidates[0];
  if (!chosen) {
    throw new GatewayError(
      'model_not_found',
      `The model "${modelName}" does not exist. List the available ones with GET /v1/models.`,
      {
        param: 'model',
      },
    );
  }
  return chosen;
}

/**
 * A message, role or part the canonical model does not carry (forwarded untouched on
 * pass-through) cannot be counted: a count that silently left it out would be too low.
 */
export function refuseUncountable(chat: ChatRequest): void {
  const part = chat.unmapped.find((f) => f.startsWith('messages['));
  if (part !== undefined)
    throw new GatewayError('invalid_request', `${part} is not supported for token counting.`, { param: part });
}

export function countTokensLocal(config: GatewayConfig, modelName: string, chat: ChatRequest): TokenCount {
  refuseUncountable(chat);
  const { model } = countingCandidate(config, modelName);
  const { inputTokens, encoding, exact } = countInputTokensLocally(chat, model);
  return {
    inputTokens,
    model: model.id,
    contextWindow: model.contextWindow,
    fits: inputTokens <= model.contextWindow,
    method: 'local',
    encoding,
    exact,
  };
}
