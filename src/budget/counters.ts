/**
 * Which budget and rate-limit counters a request touches, worked out once rather than per
 * request: which budgets and limits apply depends only on the config, the caller's key and role
 * and (for model scopes) the model, and a config is immutable until a reload swaps in a new
 * object, so it is kept per config object (a WeakMap: a reloaded config's entries go with it).
 * The counter keys, limits, expiries and limiters are the same for every request in a window
 * (the minute, each budget's period), so they are kept until the window ends.
 */

import type { BudgetConfig, GatewayConfig, LimitScope, RateLimitConfig } from '../config/types.js';
import type { Principal } from '../core/reply.js';
import { periodWindow } from './periods.js';

export const MINUTE = 60_000;

export type Limiter =
  | { kind: 'budget'; budget: BudgetConfig; periodId: string; resetMs?: number }
  /** `counting`: the count_tokens allowance of that rate limit. */
  | { kind: 'requests' | 'tokens'; limit: RateLimitConfig; max: number; resetMs: number; counting?: boolean }
  | { kind: 'concurrent'; limit: RateLimitConfig; max: number; counting?: boolean };

/** One counter of the window: its op's fixed parts (the amount and an in-flight expiry are per request). */
export interface CounterSlot {
  key: string;
  limit?: number;
  /** Undefined for a `total` budget and for in-flight counters (which expire from each request's time). */
  expiresAt?: number;
}

/** The counters of one principal and model in the current window, index-aligned with `limiters`. */
export interface WindowCounters {
  slots: readonly CounterSlot[];
  limiters: readonly Limiter[];
  /** The instants the window holds: [from, until). */
  from: number;
  until: number;
}

/** The counter of one budget instance in one period (a key of the state store). */
export function budgetCounterKey(budgetId: string, instance: string, periodId: string): string {
  return `budget:${budgetId}:${instance}:${periodId}`;
}

/** The scope's instance this principal and model fall in ('*' for a shared counter), or undefined. */
export function scopeApplies(scope: LimitScope, p: Principal, modelId: string): string | undefined {
  switch (scope.kind) {
    case 'global':
      return '*';
    case 'key':
      return scope.key === p.keyId ? '*' : undefined;
    case 'role':
      return scope.role === p.role ? '*' : undefined;
    case 'each_key_of_role':
      return scope.role === p.role ? p.keyId : undefined;
    case 'model':
      return scope.model === modelId ? '*' : undefined;
  }
}

/** The budgets and limits that apply to one principal and model, in config order, and their current window. */
interface Applicable {
  budgets: ReadonlyArray<{ budget: BudgetConfig; instance: string }>;
  limits: ReadonlyArray<{ limit: RateLimitConfig; base: string }>;
  window?: WindowCounters;
}

interface ConfigEntry {
  /** Models named by a model scope: any other model is planned alike (so the cache stays as small as the keys). */
  scopedModels: ReadonlySet<string>;
  /** role → key id → model ('' when no model scope names it) → what applies; null when nothing does. */
  byRole: Map<string, Map<string, Map<string, Applicable | null>>>;
}

const byConfig = new WeakMap<GatewayConfig, ConfigEntry>();

/**
 * The counters a request of this principal for this model touches at `now`, or undefined when no
 * budget or rate limit applies. Shared between requests: read only.
 */
export function windowCounters(
  config: GatewayConfig,
  principal: Principal,
  modelId: string,
  now: number,
): WindowCounters | undefined {
  if (config.budgets.length === 0 && config.rateLimits.length === 0) return undefined;
  const applicable = applicableTo(config, principal, modelId);
  if (!applicable) return undefined;
  const w = applicable.window;
  if (w && now >= w.from && now < w.until) return w;
  applicable.window = windowOf(applicable, now);
  return applicable.window;
}

function applicableTo(config: GatewayConfig, p: Principal, modelId: string): Applicable | undefined {
  let entry = byConfig.get(config);
  if (!entry) {
    const scopedModels = new Set<string>();
    for (const { scope } of [...config.budgets, ...config.rateLimits])
      if (scope.kind === 'model') scopedModels.add(scope.model);
    entry = { scopedModels, byRole: new Map() };
    byConfig.set(config, entry);
  }
  let byKey = entry.byRole.get(p.role);
  if (!byKey) entry.byRole.set(p.role, (byKey = new Map()));
  let byModel = byKey.get(p.keyId);
  if (!byModel) byKey.set(p.keyId, (byModel = new Map()));
  const model = entry.scopedModels.has(modelId) ? modelId : '';
  let applicable = byModel.get(model);
  if (applicable === undefined) byModel.set(model, (applicable = findApplicable(config, p, model)));
  return applicable ?? undefined;
}

function findApplicable(config: GatewayConfig, p: Principal, modelId: string): Applicable | null {
  const budgets: Array<{ budget: BudgetConfig; instance: string }> = [];
  for (const budget of config.budgets) {
    const instance = scopeApplies(budget.scope, p, modelId);
    if (instance !== undefined) budgets.push({ budget, instance });
  }
  const limits: Array<{ limit: RateLimitConfig; base: string }> = [];
  for (const limit of config.rateLimits) {
    const instance = scopeApplies(limit.scope, p, modelId);
    if (instance !== undefined) limits.push({ limit, base: `rl:${limit.id}:${instance}` });
  }
  return budgets.length === 0 && limits.length === 0 ? null : { budgets, limits };
}

/** The counters of the window holding `now`: the minute, cut short by a budget period ending within it. */
function windowOf(a: Applicable, now: number): WindowCounters {
  const slots: CounterSlot[] = [];
  const limiters: Limiter[] = [];
  const minute = Math.floor(now / MINUTE) * MINUTE;
  let from = minute;
  let until = minute + MINUTE;
  for (const { budget: b, instance } of a.budgets) {
    const w = periodWindow(b.period, b.timezone, now);
    if (w.endMs !== undefined) {
      from = Math.max(from, w.startMs);
      until = Math.min(until, w.endMs);
    }
    const slot: CounterSlot = { key: budgetCounterKey(b.id, instance, w.id) };
    if (b.mode === 'enforce') slot.limit = Math.round(b.limitUsd * 1e9);
    if (w.endMs !== undefined) slot.expiresAt = w.endMs + 7 * 24 * 3600_000;
    slots.push(slot);
    limiters.push({
      kind: 'budget',
      budget: b,
      periodId: w.id,
      ...(w.endMs !== undefined ? { resetMs: w.endMs } : {}),
    });
  }
  for (const { limit: l, base } of a.limits) {
    if (l.requestsPerMinute !== undefined) {
      slots.push({ key: `${base}:req:${minute}`, limit: l.requestsPerMinute, expiresAt: minute + 2 * MINUTE });
      limiters.push({ kind: 'requests', limit: l, max: l.requestsPerMinute, resetMs: minute + MINUTE });
    }
    if (l.tokensPerMinute !== undefined) {
      slots.push({ key: `${base}:tok:${minute}`, limit: l.tokensPerMinute, expiresAt: minute + 2 * MINUTE });
      limiters.push({ kind: 'tokens', limit: l, max: l.tokensPerMinute, resetMs: minute + MINUTE });
    }
    if (l.maxConcurrent !== undefined) {
      slots.push({ key: `${base}:inflight`, limit: l.maxConcurrent });
      limiters.push({ kind: 'concurrent', limit: l, max: l.maxConcurrent });
    }
  }
  return { slots, limiters, from, until };
}
