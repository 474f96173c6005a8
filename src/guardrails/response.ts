/**
 * Output guardrails on a complete canonical response: pattern rules on its text parts and
 * tool-call arguments (kept valid JSON), then webhooks on the redacted result. Reasoning parts are
 * not read (see content-texts.ts). Output webhooks run here, on complete responses only; streams
 * skip them (see stream.ts, and hasOutputWebhook for buffering a stream instead).
 */

import type { ChatResponse } from '../core/canonical.js';
import { collectTexts, mapResponseTexts, replaceTexts, type TextMapper } from './content-texts.js';
import { addHits, type ScanHit } from './hits.js';
import { type CompiledGuardrail, type GuardrailScope, guardrailSelection, type PatternGuardrail } from './rules.js';
import { TextScanner } from './scan.js';
import { runWebhooks, type WebhookDeps } from './webhook.js';

export interface OutputCheckResult {
  /** The response to return: the same object when nothing changed. */
  response: ChatResponse;
  changed: boolean;
  hits: ScanHit[];
  /** Set when a rule blocks: the response must not reach the caller. */
  blockedBy?: string;
}

/** Pattern rules only (synchronous). */
export function redactResponse(rules: readonly PatternGuardrail[], res: ChatResponse): OutputCheckResult {
  if (rules.length === 0) return { response: res, changed: false, hits: [] };
  const scanner = new TextScanner(rules);
  const response = mapResponseTexts(res, scanner.scan);
  const blockedBy = scanner.blockedBy;
  const changed = response !== res;
  // No spread for the optional field: spreads cost more than the scan of a reply nothing matched.
  return blockedBy === undefined
    ? { response, changed, hits: scanner.hits }
    : { response, changed, hits: scanner.hits, blockedBy };
}

/** `rules`: every compiled guardrail; the output ones matching `scope` are applied. */
export async function checkOutput(
  rules: readonly CompiledGuardrail[],
  scope: GuardrailScope,
  res: ChatResponse,
  deps: WebhookDeps = {},
): Promise<OutputCheckResult> {
  const selected = guardrailSelection(rules, 'output', scope);
  if (selected.all.length === 0) return { response: res, changed: false, hits: [] };
  const result = redactResponse(selected.patterns, res);
  if (result.blockedBy !== undefined) return result;

  const webhooks = selected.webhooks;
  if (webhooks.length > 0) {
    const walk = (fn: TextMapper): ChatResponse => mapResponseTexts(result.response, fn);
    const outcome = await runWebhooks(webhooks, 'output', collectTexts(walk), deps);
    addHits(result.hits, outcome.hits);
    if (outcome.changed) {
      result.response = replaceTexts(walk, outcome.parts);
      result.changed = result.response !== res;
    }
    if (outcome.blockedBy !== undefined) return { ...result, blockedBy: outcome.blockedBy };
  }
  return result;
}
