/**
 * The counters a request touches are kept per config object and per window (budget/counters.ts):
 * the plans must be those of a config seen for the first time, across minutes, a budget's period
 * boundary, times going back, model scopes and reloads.
 */
import { describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../../../src/config/types.js';
import { planLimits } from '../../../src/budget/plan.js';
import { resolveModel } from '../../../src/routing/resolve-model.js';
import { loadTestConfig } from '../../helpers/start-gateway.js';

const yaml = (limitUsd: number) => `
providers:
  p: { api: mock, models: { cheap: { context_window: 1000, max_output_tokens: 100, price: { input: 1, output: 2 } },
                            dear: { context_window: 1000, max_output_tokens: 50, price: { input: 10, output: 20 } } } }
roles: { r: { models: ["*"] } }
keys: [ { id: k1, key: "key-key-key-key1", role: r }, { id: k2, key: "key-key-key-key2", role: r } ]
budgets:
  - { id: day, scope: { role: r }, limit_usd: ${limitUsd}, period: day, timezone: Europe/Berlin }
rate_limits:
  - { id: rl, scope: { each_key_of_role: r }, requests_per_minute: 10, tokens_per_minute: 5000, max_concurrent: 1 }
  - { id: dear, scope: { model: p/dear }, requests_per_minute: 100 }
`;

const plan = (config: GatewayConfig, keyId: string, modelId: string, now: number) =>
  planLimits({
    config,
    principal: { keyId, role: keyId === 'nobody' ? 'none' : 'r' },
    modelId,
    candidates: resolveModel(config, modelId)!.candidates,
    bodyBytes: 300,
    outputTokens: (c) => c.model.maxOutputTokens ?? 0,
    now,
  });

describe('planLimits, its counters kept per config and window', () => {
  it('across midnight in Berlin: the day counter and the minute keys change with the window', () => {
    const config = loadTestConfig(yaml(1));
    const midnight = Date.parse('2026-11-23T23:00:00Z'); // 00:00 in Berlin
    const before = plan(config, 'k1', 'p/cheap', midnight - 1)!;
    const after = plan(config, 'k1', 'p/cheap', midnight)!;
    expect(before.ops.map((o) => [o.key, o.amount, o.limit, o.expiresAt])).toEqual([
      ['budget:day:*:2026-11-23', 300_000, 1e9, midnight + 7 * 86_400_000],
      [`rl:rl:k1:req:${midnight - 60_000}`, 1, 10, midnight + 60_000],
      [`rl:rl:k1:tok:${midnight - 60_000}`, 200, 5000, midnight + 60_000],
      ['rl:rl:k1:inflight', 1, 1, midnight - 1 + 15 * 60_000],
    ]);
    expect(after.ops.map((o) => [o.key, o.expiresAt])).toEqual([
      ['budget:day:*:2026-11-24', midnight + 86_400_000 + 7 * 86_400_000],
      [`rl:rl:k1:req:${midnight}`, midnight + 120_000],
      [`rl:rl:k1:tok:${midnight}`, midnight + 120_000],
      ['rl:rl:k1:inflight', midnight + 15 * 60_000],
    ]);
    expect(after.limiters[0]).toEqual({
      kind: 'budget',
      budget: config.budgets[0],
      periodId: '2026-11-24',
      resetMs: midnight + 86_400_000,
    });
    // The op objects are the request's own; the window's limiters are shared.
    expect(plan(config, 'k1', 'p/cheap', midnight)!.ops[0]).not.toBe(after.ops[0]);
    expect(plan(config, 'k1', 'p/cheap', midnight)!.limiters).toBe(after.limiters);
  });

  it('gives what a config seen for the first time gives, on a walk back and forth over keys and models', () => {
    const config = loadTestConfig(yaml(1));
    const start = Date.parse('2026-11-23T22:58:30Z');
    const steps = [0, 1, 29_999, 30_000, 89_999, 90_000, 60_000, 150_000, 1, 3_600_000, 90_001, -86_400_000, 90_002];
    for (const step of steps) {
      for (const [keyId, modelId] of [
        ['k1', 'p/cheap'],
        ['k2', 'p/dear'],
        ['k1', 'p/dear'],
        ['nobody', 'p/cheap'],
        ['nobody', 'p/dear'],
      ]) {
        const now = start + step;
        const fresh = plan(loadTestConfig(yaml(1)), keyId, modelId, now);
        const cached = plan(config, keyId, modelId, now);
        expect(JSON.stringify(cached), `${keyId} ${modelId} at +${step}`).toBe(JSON.stringify(fresh));
      }
    }
    // A model scope: the dear model's limit only for the dear model, for any key.
    const minute = Date.parse('2026-11-23T22:58:00Z');
    expect(plan(config, 'nobody', 'p/dear', start)!.ops.map((o) => o.key)).toEqual([`rl:dear:*:req:${minute}`]);
    expect(plan(config, 'nobody', 'p/cheap', start)).toBeUndefined();
  });

  it('a reloaded config (a new object) is planned from its own limits', () => {
    const now = Date.parse('2026-11-23T10:00:30Z');
    expect(plan(loadTestConfig(yaml(1)), 'k1', 'p/cheap', now)!.ops[0].limit).toBe(1e9);
    expect(plan(loadTestConfig(yaml(3)), 'k1', 'p/cheap', now)!.ops[0].limit).toBe(3e9);
  });
});
