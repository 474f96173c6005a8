/**
 * Webhook guardrails: the texts go to an external checker, which answers allow, block or redact.
 *
 * Request: POST <url>, JSON `{guardrail, direction, text, parts}` — `parts` are the texts one by
 * one (a request's: system, messages, then tools and the other fields, see request-texts.ts; or
 * the response's parts), `text` is them joined with blank lines, for checkers that only want one
 * string.
 * Answer: JSON `{action: "allow" | "block" | "redact", text?, parts?}`. For redact, `parts` (same
 * count) replaces every text; `text` is accepted when there is exactly one. Anything else (non-2xx,
 * bad JSON, unknown action, a redact that cannot be placed, timeout) is an error, handled by the
 * rule's `on_error`: fail_open lets the text through and logs a "webhook_error" hit; fail_closed
 * blocks.
 *
 * The rule's own action sets how far the verdict goes: `log` only records what the webhook said
 * (and never blocks, not even on error: a dry run must not break traffic); `block` follows it.
 * Rules run one after another in config order, each seeing the previous one's redactions.
 */

import type { ScanHit } from './hits.js';
import type { GuardrailDirection, WebhookGuardrail } from './rules.js';

export interface WebhookDeps {
  /** Defaults to the global fetch (tests may inject one). */
  fetch?: typeof fetch;
  /** The caller's cancellation: an abandoned request stops waiting on the webhook. */
  signal?: AbortSignal;
}

export interface WebhookVerdict {
  action: 'allow' | 'block' | 'redact';
  /** For redact: the replacement of each text. */
  parts?: string[];
}

export interface WebhookOutcome {
  parts: string[];
  changed: boolean;
  hits: ScanHit[];
  blockedBy?: string;
}

export async function callWebhook(
  rule: WebhookGuardrail,
  direction: GuardrailDirection,
  parts: readonly string[],
  deps: WebhookDeps = {},
): Promise<WebhookVerdict> {
  const timeout = AbortSignal.timeout(rule.timeoutMs);
  const signal = deps.signal ? AbortSignal.any([timeout, deps.signal]) : timeout;
  const doFetch = deps.fetch ?? fetch;
  const res = await doFetch(rule.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ guardrail: rule.id, direction, text: parts.join('\n\n'), parts }),
    signal,
  });
  const body = await res.text();
  if (res.status < 200 || res.status > 299) throw new Error(`webhook answered HTTP ${res.status}`);
  return parseVerdict(JSON.parse(body) as unknown, parts.length);
}

function parseVerdict(v: unknown, count: number): WebhookVerdict {
  if (typeof v !== 'object' || v === null) throw new Error('webhook answer is not a JSON object');
  const o = v as Record<string, unknown>;
  if (o.action === 'allow' || o.action === 'block') return { action: o.action };
  if (o.action !== 'redact') throw new Error('webhook answer has no valid action');
  if (Array.isArray(o.parts) && o.parts.length === count && o.parts.every((p) => typeof p === 'string')) {
    return { action: 'redact', parts: o.parts as string[] };
  }
  if (typeof o.text === 'string' && count === 1) return { action: 'redact', parts: [o.text] };
  throw new Error('webhook redaction cannot be applied: send `parts` with one string per text');
}

/** Runs the webhook rules in order over `parts`; stops at the first block. */
export async function runWebhooks(
  rules: readonly WebhookGuardrail[],
  direction: GuardrailDirection,
  parts: readonly string[],
  deps: WebhookDeps = {},
): Promise<WebhookOutcome> {
  let current = [...parts];
  let changed = false;
  const hits: ScanHit[] = [];
  if (parts.length === 0) return { parts: current, changed, hits };
  for (const rule of rules) {
    const hit = (action: ScanHit['action'], label: string): void => {
      hits.push({ guardrailId: rule.id, action, label });
    };
    let verdict: WebhookVerdict;
    try {
      verdict = await callWebhook(rule, direction, current, deps);
    } catch {
      // The reason (maybe echoing text) is not reported; the hit says the webhook failed.
      if (rule.onError === 'fail_open' || rule.action === 'log') {
        hit('log', 'webhook_error');
        continue;
      }
      hit('block', 'webhook_error');
      return { parts: current, changed, hits, blockedBy: rule.id };
    }
    if (verdict.action === 'allow') continue;
    if (rule.action === 'log') {
      hit('log', 'webhook');
      continue;
    }
    if (verdict.action === 'block') {
      hit('block', 'webhook');
      return { parts: current, changed, hits, blockedBy: rule.id };
    }
    hit('redact', 'webhook');
    if (verdict.parts!.some((p, i) => p !== current[i])) changed = true;
    current = verdict.parts!;
  }
  return { parts: current, changed, hits };
}
