/**
 * Which budget and rate-limit counters a request touches, what it reserves up front and how it
 * settles. Pure: the limits stage runs it against a StateStore.
 *
 * Reservation (before any upstream call): the estimated maximum cost, i.e. estimated input
 * tokens at the input price plus the most output the candidate can bill (the output limit it is
 * sent, times the choices: formats/output-cap.ts) at the output price, of the most expensive
 * candidate; tokens per minute likewise; one request per minute; one slot in flight. Settlement
 * (when the response or stream ends, fails or is cut off): the reservation is replaced by what
 * the provider reported (usage seen so far counts).
 *
 * Token counting (count_tokens) costs nothing: it only counts against request rates and
 * concurrency, in counters of its own (planCountLimits).
 */

import type { GatewayConfig, LimitScope } from '../config/types.js';
import { promptTokensIncludingCache, type Usage } from '../core/canonical.js';
import type { Principal } from '../core/reply.js';
import type { Candidate } from '../routing/resolve-model.js';
import type { CounterOp } from '../state/store.js';
import { costNanoUsd, MAX_COST_NANO } from './cost.js';
import { type Limiter, MINUTE, scopeApplies, windowCounters } from './counters.js';

export { budgetCounterKey, type Limiter } from './counters.js';

/** A request's input tokens are estimated from its body size: at most one token per 3 bytes in practice. */
export const BYTES_PER_TOKEN_ESTIMATE = 3;
/** In-flight counters expire if nothing touches them for this long (a crashed instance's slots). */
const INFLIGHT_TTL_MS = 15 * MINUTE;

export interface LimitPlan {
  /** Reserved now (index-aligned with `limiters`). */
  ops: CounterOp[];
  /** Shared by the requests of a window (budget/counters.ts): read only. */
  limiters: readonly Limiter[];
  estimateNano: number;
  estimateTokens: number;
  /** The input part of estimateTokens. */
  estimateInputTokens: number;
}

export function describeScope(scope: LimitScope, instance: string): string {
  switch (scope.kind) {
    case 'global':
      return 'global';
    case 'key':
      return `key "${scope.key}"`;
    case 'role':
      return `role "${scope.role}"`;
    case 'each_key_of_role':
      return `key "${instance}" (each key of role "${scope.role}")`;
    case 'model':
      return `model "${scope.model}"`;
  }
}

export interface PlanInput {
  config: GatewayConfig;
  principal: Principal;
  /** The model id or alias the caller asked for. */
  modelId: string;
  candidates: readonly Candidate[];
  bodyBytes: number;
  /** Input tokens the request holds at least (token ids sent as such), when more than the body size says. */
  minInputTokens?: number;
  /** The most output tokens candidate `c` can bill for this request (all choices). */
  outputTokens: (c: Candidate) => number;
  now: number;
}

/** Undefined when nothing limits this request (the common case costs nothing). */
export function planLimits(i: PlanInput): LimitPlan | undefined {
  const counters = windowCounters(i.config, i.principal, i.modelId, i.now);
  if (!counters) return undefined;

  const inputTokens = Math.max(Math.ceil(i.bodyBytes / BYTES_PER_TOKEN_ESTIMATE), i.minInputTokens ?? 0);
  let outputTokens = 0;
  let estimateNano = 0;
  for (const c of i.candidates) {
    const out = i.outputTokens(c);
    outputTokens = Math.max(outputTokens, out);
    estimateNano = Math.max(estimateNano, costNanoUsd({ inputTokens, outputTokens: out }, c.model.price));
  }
  // costNanoUsd is bounded; a reservation above the bound is refused by any budget below it.
  estimateNano = Math.min(estimateNano, MAX_COST_NANO);
  const estimateTokens = inputTokens + outputTokens;

  // The window's keys, limits and expiries with this request's amounts (and its in-flight expiry).
  const { slots, limiters } = counters;
  const ops: CounterOp[] = new Array(slots.length);
  for (let n = 0; n < slots.length; n++) {
    const { key, limit, expiresAt } = slots[n];
    const kind = limiters[n].kind;
    const op: CounterOp = { key, amount: kind === 'budget' ? estimateNano : kind === 'tokens' ? estimateTokens : 1 };
    if (limit !== undefined) op.limit = limit;
    const expiry = kind === 'concurrent' ? i.now + INFLIGHT_TTL_MS : expiresAt;
    if (expiry !== undefined) op.expiresAt = expiry;
    ops[n] = op;
  }
  return { ops, limiters, estimateNano, estimateTokens, estimateInputTokens: inputTokens };
}

/** The corrections that replace the reservation by what was actually used. */
export function settlementOps(plan: LimitPlan, actualNano: number, usage: Usage | undefined): CounterOp[] {
  const actualTokens = usage ? promptTokensIncludingCache(usage) + usage.outputTokens : 0;
  const out: CounterOp[] = [];
  const { limiters, ops } = plan;
  for (let i = 0; i < limiters.length; i++) {
    const kind = limiters[i].kind;
    const key = ops[i].key;
    // Corrections only while the counter lives (see CounterOp.ifExists).
    if (kind === 'budget' && actualNano !== plan.estimateNano)
      out.push({ key, amount: actualNano - plan.estimateNano, ifExists: true });
    else if (kind === 'tokens' && actualTokens !== plan.estimateTokens)
      out.push({ key, amount: actualTokens - plan.estimateTokens, ifExists: true });
    else if (kind === 'concurrent') out.push({ key, amount: -1, ifExists: true });
  }
  return out;
}

/**
 * What to record when no reservation could be made (the store was down under fail_open): the
 * actual amounts, creating the counters with their window's expiry.
 */
export function unreservedOps(plan: LimitPlan, actualNano: number, usage: Usage | undefined): CounterOp[] {
  const actualTokens = usage ? promptTokensIncludingCache(usage) + usage.outputTokens : 0;
  const out: CounterOp[] = [];
  plan.limiters.forEach((l, i) => {
    const { key, expiresAt } = plan.ops[i];
    const amount =
      l.kind === 'budget' ? actualNano : l.kind === 'tokens' ? actualTokens : l.kind === 'requests' ? 1 : 0;
    if (amount > 0) out.push({ key, amount, ...(expiresAt !== undefined ? { expiresAt } : {}) });
  });
  return out;
}

/**
 * Bursts of token counting a client may send at once: Claude Code sends about 14 count_tokens
 * calls in parallel when a session starts.
 */
export const COUNT_TOKENS_BURST = 16;

/**
 * A count_tokens request: only request rates and concurrency apply (it costs nothing, so no
 * budget and no token limit), in counters of its own so counting never eats into the requests a
 * caller may make: per limit, as many counting calls per minute as `requests_per_minute` and as
 * many in flight as `max_concurrent`, each at least COUNT_TOKENS_BURST.
 */
export function planCountLimits(
  i: Omit<PlanInput, 'candidates' | 'bodyBytes' | 'minInputTokens' | 'outputTokens'>,
): LimitPlan | undefined {
  const ops: CounterOp[] = [];
  const limiters: Limiter[] = [];
  const minute = Math.floor(i.now / MINUTE) * MINUTE;
  for (const l of i.config.rateLimits) {
    const inst = scopeApplies(l.scope, i.principal, i.modelId);
    if (inst === undefined) continue;
    const base = `rl:${l.id}:${inst}:count`;
    if (l.requestsPerMinute !== undefined) {
      const max = Math.max(l.requestsPerMinute, COUNT_TOKENS_BURST);
      ops.push({ key: `${base}:req:${minute}`, amount: 1, limit: max, expiresAt: minute + 2 * MINUTE });
      limiters.push({ kind: 'requests', limit: l, max, resetMs: minute + MINUTE, counting: true });
    }
    if (l.maxConcurrent !== undefined) {
      const max = Math.max(l.maxConcurrent, COUNT_TOKENS_BURST);
      ops.push({ key: `${base}:inflight`, amount: 1, limit: max, expiresAt: i.now + INFLIGHT_TTL_MS });
      limiters.push({ kind: 'concurrent', limit: l, max, counting: true });
    }
  }
  if (ops.length === 0) return undefined;
  return { ops, limiters, estimateNano: 0, estimateTokens: 0, estimateInputTokens: 0 };
}
