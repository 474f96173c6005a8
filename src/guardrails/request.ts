/**
 * Input guardrails on a canonical request, in this order (cheapest first, each on the result of
 * the previous step, stopping at the first block):
 * 1. pattern rules (regex, keywords, detectors) on every text the model will read: system, message
 *    texts, tool-call arguments (kept valid JSON) and tool-result contents;
 * 2. max_input_tokens, counted locally on the redacted request for the requested model (an alias
 *    counts for its first available candidate, as /count_tokens does). Over the limit → the rule's
 *    action; `redact` cannot shorten a prompt, so it counts as block (check-config refuses it
 *    anyway);
 * 3. webhooks (see webhook.ts).
 * The caller's request object is never modified: a redaction yields a new request that shares
 * every part it did not change.
 */

import type { GatewayConfig } from '../config/types.js';
import type { ChatRequest } from '../core/canonical.js';
import { countTokensLocal } from '../tokens/count-tokens.js';
import { collectTexts, mapRequestTexts, replaceTexts, type TextMapper } from './content-texts.js';
import { addHits, type ScanHit } from './hits.js';
import {
  patternRules,
  selectGuardrails,
  type CompiledGuardrail,
  type GuardrailScope,
  type PatternGuardrail,
  type TokenLimitGuardrail,
  type WebhookGuardrail,
} from './rules.js';
import { TextScanner } from './scan.js';
import { runWebhooks, type WebhookDeps } from './webhook.js';

export interface InputGuardDeps extends WebhookDeps {
  /** For counting tokens (max_input_tokens). */
  config: GatewayConfig;
  /** Overrides the local count (e.g. to reuse one the pipeline already made for this request). */
  countTokens?: (chat: ChatRequest) => number;
}

export interface InputCheckResult {
  /** The request to send on: the same object when nothing changed. */
  request: ChatRequest;
  changed: boolean;
  hits: ScanHit[];
  /** Set when a rule blocks: the request must not be sent. */
  blockedBy?: string;
}

/** Step 1 alone (synchronous): pattern rules only. */
export function redactRequest(rules: readonly PatternGuardrail[], chat: ChatRequest): InputCheckResult {
  if (rules.length === 0) return { request: chat, changed: false, hits: [] };
  const scanner = new TextScanner(rules);
  const request = mapRequestTexts(chat, scanner.scan);
  const blockedBy = scanner.blockedBy;
  return { request, changed: request !== chat, hits: scanner.hits, ...(blockedBy !== undefined ? { blockedBy } : {}) };
}

/** `rules`: every compiled guardrail; the input ones matching `scope` are applied. */
export async function checkInput(
  rules: readonly CompiledGuardrail[],
  scope: GuardrailScope,
  chat: ChatRequest,
  deps: InputGuardDeps,
): Promise<InputCheckResult> {
  const selected = selectGuardrails(rules, 'input', scope);
  if (selected.length === 0) return { request: chat, changed: false, hits: [] };

  const result = redactRequest(patternRules(selected), chat);
  if (result.blockedBy !== undefined) return result;

  const limits = selected.filter((r): r is TokenLimitGuardrail => r.kind === 'max_input_tokens');
  if (limits.length > 0) {
    const inputTokens = deps.countTokens ? deps.countTokens(result.request) : countTokensLocal(deps.config, scope.modelId, result.request).inputTokens;
    for (const rule of limits) {
      if (inputTokens <= rule.limit) continue;
      const action = rule.action === 'log' ? 'log' : 'block';
      addHits(result.hits, [{ guardrailId: rule.id, action, label: 'max_input_tokens' }]);
      if (action === 'block') return { ...result, blockedBy: rule.id };
    }
  }

  const webhooks = selected.filter((r): r is WebhookGuardrail => r.kind === 'webhook');
  if (webhooks.length > 0) {
    const walk = (fn: TextMapper): ChatRequest => mapRequestTexts(result.request, fn);
    const outcome = await runWebhooks(webhooks, 'input', collectTexts(walk), deps);
    addHits(result.hits, outcome.hits);
    if (outcome.changed) {
      result.request = replaceTexts(walk, outcome.parts);
      result.changed = result.request !== chat;
    }
    if (outcome.blockedBy !== undefined) return { ...result, blockedBy: outcome.blockedBy };
  }
  return result;
}
