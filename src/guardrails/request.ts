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
 * did not change, and its canonical view decoded again. The same steps read an embeddings
 * request's inputs (embeddings-input.ts): checkBodyTexts takes how a body's texts are read.
 */

import type { GatewayConfig } from '../config/types.js';
import type { ChatRequest } from '../core/canonical.js';
import { countTokensLocal } from '../routing/count-tokens.js';
import { collectTexts, replaceTexts, type TextMapper } from './content-texts.js';
import { addHits, type ScanHit } from './hits.js';
import { mapBodyTexts } from './request-texts.js';
import { type CompiledGuardrail, type GuardrailScope, type GuardrailSelection, guardrailSelection } from './rules.js';
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

/**
 * How the input rules read one kind of request body: its texts (the mapper copies only what
 * changed) and its input tokens (max_input_tokens).
 */
export interface BodyTexts {
  map(body: RequestBody, fn: TextMapper): RequestBody;
  countTokens(body: RequestBody): number;
}

export interface BodyCheckResult {
  /** The body to send: the caller's own object when nothing changed it. */
  body: RequestBody;
  hits: ScanHit[];
  /** Set when a rule blocks: the request must not be sent. */
  blockedBy?: string;
}

/** `rules`: every compiled guardrail; the input ones matching `scope` are applied. */
export async function checkInput(
  rules: readonly CompiledGuardrail[],
  scope: GuardrailScope,
  request: InputRequest,
  deps: InputGuardDeps,
): Promise<InputCheckResult> {
  const selected = guardrailSelection(rules, 'input', scope);
  if (selected.all.length === 0) return { body: request.body, chat: request.chat, changed: false, hits: [] };
  // The canonical view of the last body read, decoded once per rewritten body.
  let view: InputRequest = request;
  const chatOf = (body: RequestBody): ChatRequest => {
    if (body !== view.body) view = { body, chat: deps.decode(body) };
    return view.chat;
  };
  const texts: BodyTexts = {
    map: mapBodyTexts,
    countTokens: (body) =>
      deps.countTokens
        ? deps.countTokens(chatOf(body))
        : countTokensLocal(deps.config, scope.modelId, chatOf(body)).inputTokens,
  };
  const r = await checkBodyTexts(selected, request.body, texts, deps);
  // Results are built field by field, here and below: object spreads were most of what a request
  // that nothing matched paid for its input rules.
  const checked: InputCheckResult = {
    body: r.body,
    hits: r.hits,
    chat: chatOf(r.body),
    changed: r.body !== request.body,
  };
  if (r.blockedBy !== undefined) checked.blockedBy = r.blockedBy;
  return checked;
}

/**
 * The three steps over a body's texts with the rules already selected. A block by a pattern rule
 * leaves the body as sent (a blocked request is not sent, so nothing needs its redacted form).
 */
export async function checkBodyTexts(
  selected: GuardrailSelection,
  sent: RequestBody,
  texts: BodyTexts,
  deps: WebhookDeps,
): Promise<BodyCheckResult> {
  const patterns = selected.patterns;
  const scanner = new TextScanner(patterns);
  const scanned = patterns.length === 0 ? sent : texts.map(sent, scanner.scan);
  const hits = scanner.hits;
  if (scanner.blockedBy !== undefined) return { body: sent, hits, blockedBy: scanner.blockedBy };
  let body = scanned;
  const result = (blockedBy?: string): BodyCheckResult =>
    blockedBy === undefined ? { body, hits } : { body, hits, blockedBy };

  const limits = selected.tokenLimits;
  if (limits.length > 0) {
    const inputTokens = texts.countTokens(body);
    for (const rule of limits) {
      if (inputTokens <= rule.limit) continue;
      const action = rule.action === 'log' ? 'log' : 'block';
      addHits(hits, [{ guardrailId: rule.id, action, label: 'max_input_tokens' }]);
      if (action === 'block') return result(rule.id);
    }
  }

  const webhooks = selected.webhooks;
  if (webhooks.length > 0) {
    const current = body;
    const walk = (fn: TextMapper): RequestBody => texts.map(current, fn);
    const outcome = await runWebhooks(webhooks, 'input', collectTexts(walk), deps);
    addHits(hits, outcome.hits);
    if (outcome.changed) body = replaceTexts(walk, outcome.parts);
    if (outcome.blockedBy !== undefined) return result(outcome.blockedBy);
  }
  return result();
}
