import { describe, expect, it } from 'vitest';
import {
  COUNT_TOKENS_BURST,
  planCountLimits,
  planLimits,
  settlementOps,
  unreservedOps,
} from '../../../src/budget/plan.js';
import type { ChatRequest } from '../../../src/core/canonical.js';
import { maxBilledOutputTokens } from '../../../src/formats/output-cap.js';
import { resolveModel, type Candidate } from '../../../src/routing/resolve-model.js';
import { MemoryStore } from '../../../src/state/memory-store.js';
import { loadTestConfig } from '../../helpers/start-gateway.js';

const config = loadTestConfig(`
providers:
  p: { api: mock, models: { cheap: { context_window: 1000, max_output_tokens: 100, price: { input: 1, output: 2 } },
                            dear: { context_window: 1000, max_output_tokens: 50, price: { input: 10, output: 20 } } } }
aliases:
  t/mix: { targets: [ p/cheap, p/dear ] }
roles: { r: { models: ["*"] } }
keys: [ { id: k1, key: "key-key-key-key1", role: r } ]
budgets:
  - { id: b, scope: { role: r }, limit_usd: 1, period: day }
  - { id: w, scope: { key: k1 }, limit_usd: 1, period: total, mode: warn }
rate_limits:
  - { id: rl, scope: { each_key_of_role: r }, requests_per_minute: 10, tokens_per_minute: 5000, max_concurrent: 1 }
`);

const input = (modelId: string, now: number, maxTokens?: number) => ({
  config,
  principal: { keyId: 'k1', role: 'r' },
  modelId,
  candidates: resolveModel(config, modelId)!.candidates,
  bodyBytes: 300,
  // As the limits stage computes it for the mock provider: the caller's limit, else the model's.
  outputTokens: (c: Candidate) =>
    maxBilledOutputTokens({ maxTokens } as ChatRequest, 'openai-chat', undefined, c.model.maxOutputTokens),
  now,
});

describe('planLimits', () => {
  it('reserves the most expensive candidate at max output, per budget and limit', () => {
    const now = Date.parse('2026-11-23T10:00:30Z');
    const plan = planLimits(input('t/mix', now))!;
    // 100 input tokens (300 bytes / 3); output: the larger max_output_tokens (100); the dearer price.
    expect(plan.estimateTokens).toBe(200);
    expect(plan.estimateNano).toBe(Math.max(100 * 1000 + 100 * 2000, 100 * 10_000 + 50 * 20_000));
    expect(plan.ops.map((o) => [o.key, o.limit])).toEqual([
      ['budget:b:*:2026-11-23', 1e9],
      ['budget:w:*:total', undefined],
      [`rl:rl:k1:req:${Date.parse('2026-11-23T10:00:00Z')}`, 10],
      [`rl:rl:k1:tok:${Date.parse('2026-11-23T10:00:00Z')}`, 5000],
      ['rl:rl:k1:inflight', 1],
    ]);
    expect(planLimits(input('p/cheap', now, 10))!.estimateTokens).toBe(110);
  });

  it('settles to the actual usage, and records actual amounts when nothing was reserved', () => {
    const plan = planLimits(input('p/cheap', Date.now()))!;
    const usage = { inputTokens: 40, outputTokens: 10 };
    const actual = 40 * 1000 + 10 * 2000;
    expect(
      settlementOps(plan, actual, usage).map((o) => [`${o.key.split(':')[0]}:${o.key.split(':')[1]}`, o.amount]),
    ).toEqual([
      ['budget:b', actual - plan.estimateNano],
      ['budget:w', actual - plan.estimateNano],
      ['rl:rl', 50 - plan.estimateTokens],
      ['rl:rl', -1],
    ]);
    expect(unreservedOps(plan, actual, usage).map((o) => o.amount)).toEqual([actual, actual, 1, 50]);
  });

  it('a slot released after its counter expired does not leave it at -1 (one clock for plan and store)', async () => {
    let now = Date.parse('2026-11-23T10:00:00Z');
    const store = new MemoryStore({ now: () => now });
    const plan = planLimits(input('p/cheap', now))!;
    expect((await store.reserve(plan.ops)).ok).toBe(true);
    now += 16 * 60_000; // in flight longer than the slot's TTL: the counter is gone
    await store.add(settlementOps(plan, 0, undefined));
    expect(await store.get(['rl:rl:k1:inflight'])).toEqual([0]);
    const again = planLimits(input('p/cheap', now))!;
    const inflight = again.ops.findIndex((o) => o.key.endsWith(':inflight'));
    expect((await store.reserve([again.ops[inflight]])).ok).toBe(true);
    expect((await store.reserve([again.ops[inflight]])).ok).toBe(false);
  });
});

describe('planCountLimits', () => {
  it(
    'counts token counting against request rates and concurrency only, in counters of its own, with room for a ' +
      'burst',
    () => {
      const now = Date.parse('2026-11-23T10:00:30Z');
      const plan = planCountLimits({ config, principal: { keyId: 'k1', role: 'r' }, modelId: 'p/cheap', now })!;
      const minute = Date.parse('2026-11-23T10:00:00Z');
      // No budget, no tokens per minute; 10 rpm and 1 in flight are raised to the burst size.
      expect(plan.ops.map((o) => [o.key, o.limit, o.amount])).toEqual([
        [`rl:rl:k1:count:req:${minute}`, COUNT_TOKENS_BURST, 1],
        ['rl:rl:k1:count:inflight', COUNT_TOKENS_BURST, 1],
      ]);
      expect(plan.estimateNano).toBe(0);
      expect(plan.limiters.every((l) => l.kind !== 'budget' && l.counting === true)).toBe(true);
      // Settling gives the slot back and keeps the request counted.
      expect(settlementOps(plan, 0, undefined).map((o) => [o.key, o.amount])).toEqual([
        ['rl:rl:k1:count:inflight', -1],
      ]);
    },
  );

  it('plans nothing for a caller no rate limit applies to', () => {
    expect(
      planCountLimits({ config, principal: { keyId: 'other', role: 'none' }, modelId: 'p/cheap', now: Date.now() }),
    ).toBeUndefined();
  });
});
