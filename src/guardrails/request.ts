/**
 * Input guardrails on a caller's request, in this order (cheapest first, each on the result of
 * the previous step, stopping at the first block):
 * 1. pattern rules (regex, keywords, detectors) on every text of the body the upstream receives
 *    (see request-texts.ts): content, tool calls and results, tool definitions and schemas,
 *    names, unknown fields;
 * 2. max_input_tokens, counted locally on the redacted request for the requested model (an alias
 *    counts for its first available candidate, as /count_tokens does). Over the limit → the rule's
 *    action; `redact` cannot shorten a prompt, so it counts as block (check-config refuses it
 *    anyway);
 * 3. webhooks (see webhook.ts), on the same texts.
 * The caller's body is never modified: a redaction yields a new body that shares every part it
 * did not change, and its canonical view decoded again.
 */

import type { GatewayConfig } from '../config/types.js';
import type { ChatRequest } from '../core/canonical.js';
import { countTokensLocal } from '../routing/count-tokens.js';
import { collectTexts, replaceTexts, type TextMapper } from './content-texts.js';
import { addHits, type ScanHit } from './hits.js';
import { mapBodyTexts } from './request-texts.js';
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

export type RequestBody = Record<string, unknown>;

/** The caller's parsed body and its canonical view (decoded from it). */
export interface InputRequest {
  body: RequestBody;
  chat: ChatRequest;
}

export interface InputGuardDeps extends WebhookDeps {
  /** For counting tokens (max_input_tokens). */
  config: GatewayConfig;
  /** The canonical view of a rewritten body (the caller format's decoder). */
  decode: (body: RequestBody) => ChatRequest;
  /** Overrides the local count (e.g. to reuse one the pipeline already made for this request). */
  countTokens?: (chat: ChatRequest) => number;
}

export interface InputCheckResult extends InputRequest {
  /** `body` and `chat` are new objects: the request goes up as rewritten. */
  changed: boolean;
  hits: ScanHit[];
  /** Set when a rule blocks: the request must not be sent. */
  blockedBy?: string;
}

/** Step 1 alone (synchronous): pattern rules only, on the body's texts. */
export function redactBody(
  rules: readonly PatternGuardrail[],
  body: RequestBody,
): { body: RequestBody; hits: ScanHit[]; blockedBy?: string } {
  if (rules.length === 0) return { body, hits: [] };
  const scanner = new TextScanner(rules);
  const out = mapBodyTexts(body, scanner.scan);
  const blockedBy = scanner.blockedBy;
  return { body: out, hits: scanner.hits, ...(blockedBy !== undefined ? { blockedBy } : {}) };
}

/** `rules`: every compiled guardrail; the input ones matching `scope` are applied. */
export async function checkInput(
  rules: readonly CompiledGuardrail[],
  scope: GuardrailScope,
  request: InputRequest,
  deps: InputGuardDeps,
): Promise<InputCheckResult> {
  const selected = selectGuardrails(rules, 'input', scope);
  if (selected.length === 0) return { ...request, changed: false, hits: [] };

  const scanned = redactBody(patternRules(selected), request.body);
  const hits = scanned.hits;
  // A blocked request is not sent: its canonical view is not needed.
  if (scanned.blockedBy !== undefined) return { ...request, changed: false, hits, blockedBy: scanned.blockedBy };
  let body = scanned.body;
  let chat = body === request.body ? request.chat : deps.decode(body);
  const result = (blockedBy?: string): InputCheckResult => ({
    body,
    chat,
    changed: body !== request.body,
    hits,
    ...(blockedBy !== undefined ? { blockedBy } : {}),
  });

  const limits = selected.filter((r): r is TokenLimitGuardrail => r.kind === 'max_input_tokens');
  if (limits.length > 0) {
    const inputTokens = deps.countTokens
      ? deps.countTokens(chat)
      : countTokensLocal(deps.config, scope.modelId, chat).inputTokens;
    for (const rule of limits) {
      if (inputTokens <= rule.limit) continue;
      const action = rule.action === 'log' ? 'log' : 'block';
      addHits(hits, [{ guardrailId: rule.id, action, label: 'max_input_tokens' }]);
      if (action === 'block') return result(rule.id);
    }
  }

  const webhooks = selected.filter((r): r is WebhookGuardrail => r.kind === 'webhook');
  if (webhooks.length > 0) {
    const current = body;
    const walk = (fn: TextMapper): RequestBody => mapBodyTexts(current, fn);
    const outcome = await runWebhooks(webhooks, 'input', collectTexts(walk), deps);
    addHits(hits, outcome.hits);
    if (outcome.changed) {
      body = replaceTexts(walk, outcome.parts);
      if (body !== current) chat = deps.decode(body);
    }
    if (outcome.blockedBy !== undefined) return result(outcome.blockedBy);
  }
  return result();
}
