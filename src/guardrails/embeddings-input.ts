/**
 * Input guardrails on an embeddings request (POST /v1/embeddings): the same steps as a chat
 * request's (request.ts) over its input texts. Token lists are not read: they are ids, not text
 * (README, "Guardrails"); max_input_tokens counts them as they are.
 */

import type { GatewayConfig } from '../config/types.js';
import { decodeEmbeddingsRequest } from '../formats/openai-embeddings/request-decode.js';
import { countingCandidate } from '../routing/count-tokens.js';
import { countTextTokensLocally } from '../tokens/count-local.js';
import type { TextMapper } from './content-texts.js';
import { type BodyCheckResult, checkBodyTexts, type RequestBody } from './request.js';
import { type CompiledGuardrail, type GuardrailScope, guardrailSelection } from './rules.js';
import type { WebhookDeps } from './webhook.js';

export interface EmbeddingsGuardDeps extends WebhookDeps {
  /** For counting tokens (max_input_tokens). */
  config: GatewayConfig;
}

/** `rules`: every compiled guardrail; the input ones matching `scope` are applied to `body.input`. */
export function checkEmbeddingsInput(
  rules: readonly CompiledGuardrail[],
  scope: GuardrailScope,
  body: RequestBody,
  deps: EmbeddingsGuardDeps,
): Promise<BodyCheckResult> {
  const selected = guardrailSelection(rules, 'input', scope);
  if (selected.all.length === 0) return Promise.resolve({ body, hits: [] });
  const countTokens = (b: RequestBody): number => {
    const { model } = countingCandidate(deps.config, scope.modelId);
    let tokens = 0;
    for (const input of decodeEmbeddingsRequest(b).inputs) {
      tokens += typeof input === 'string' ? countTextTokensLocally(input, model) : input.length;
    }
    return tokens;
  };
  return checkBodyTexts(selected, body, { map: mapInputTexts, countTokens }, deps);
}

/** The body with each input text passed through `fn` (copied only where one changed). */
export function mapInputTexts(body: RequestBody, fn: TextMapper): RequestBody {
  const input = body.input;
  let next: unknown = input;
  if (typeof input === 'string') next = fn(input, 'text');
  else if (Array.isArray(input)) {
    let out: unknown[] | undefined;
    input.forEach((x, i) => {
      if (typeof x !== 'string') return;
      const y = fn(x, 'text');
      if (y !== x) (out ??= [...input])[i] = y;
    });
    next = out ?? input;
  }
  return next === input ? body : { ...body, input: next };
}
