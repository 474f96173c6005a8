/**
 * What guardrails report: which rule acted, how, and on what kind of finding — never the text it
 * found. Also the one place that builds the error a block produces.
 */

import { GatewayError } from '../core/errors.js';
import type { GuardrailAction, GuardrailDirection } from './rules.js';

export interface ScanHit {
  guardrailId: string;
  /** What was done: block, redact or log. */
  action: GuardrailAction;
  /** Detector name, "regex", "keyword", "max_input_tokens", "webhook" or "webhook_error". */
  label: string;
}

const hitKey = (h: ScanHit): string => `${h.guardrailId}\u0000${h.action}\u0000${h.label}`;

/** Appends the hits not already present (same rule, action and label), keeping first-seen order. */
export function addHits(into: ScanHit[], more: readonly ScanHit[]): ScanHit[] {
  if (more.length === 0) return into;
  const seen = new Set(into.map(hitKey));
  for (const h of more) {
    const k = hitKey(h);
    if (!seen.has(k)) {
      seen.add(k);
      into.push(h);
    }
  }
  return into;
}

/** The request record's shape (observe/record.ts GuardrailHit), kept structural on purpose. */
export interface RecordedGuardrailHit {
  guardrail: string;
  action: GuardrailAction;
  direction: GuardrailDirection;
  label?: string;
}

export function toRecordedHits(hits: readonly ScanHit[], direction: GuardrailDirection): RecordedGuardrailHit[] {
  return hits.map((h) => ({ guardrail: h.guardrailId, action: h.action, direction, label: h.label }));
}

/** The error a block produces: names the guardrail, never what it matched. */
export function guardrailBlockedError(guardrailId: string, direction: GuardrailDirection): GatewayError {
  const what = direction === 'input' ? 'request' : 'response';
  return new GatewayError('guardrail_blocked', `The ${what} was blocked by guardrail "${guardrailId}".`, {
    param: `guardrail:${guardrailId}`,
  });
}
