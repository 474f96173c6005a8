/**
 * Several gateway instances sharing budgets and rate limits through one real redis-server
 * (test/helpers/redis-server.ts): three gateways in this process, each built from a config whose
 * `state:` section names the same Redis and key prefix (so each has its own RedisStore and its
 * own connection). Checked:
 * - one budget and one rate limit are exact across the three under concurrent requests;
 * - Redis stopped mid-test: fail_closed answers 503 state_store_unavailable in the caller's
 *   format without calling the upstream; fail_open serves, logs it, and records the spend once
 *   Redis is back; after a restart on the same port every store recovers by itself and the limits
 *   apply again.
 *
 * Costs are made exact: the upstream reports as usage exactly what the limits stage reserves for
 * CHAT_BODY (ceil(body bytes / 3) input tokens + max_tokens output tokens), so how many requests
 * fit in a budget does not depend on timing. No upper-bound timing assertions; every wait is a
 * bounded poll.
 */

import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BYTES_PER_TOKEN_ESTIMATE } from '../../src/budget/plan.js';
import { formatUsd } from '../../src/budget/cost.js';
import { periodWindow } from '../../src/budget/periods.js';
import { startFakeUpstream, type Handler, type FakeUpstream } from '../helpers/fake-upstream.js';
import { requireRedis, skipRedisTests, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { PROVIDER_SECRET, TEST_KEY } from '../helpers/gateway-config.js';
import { loadTestConfig, type RunningGateway, startGateway } from '../helpers/start-gateway.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** USD per million tokens: 1 000 and 2 000 nano-USD per token, so costs are exact integers. */
const PRICE = { input: 1, output: 2 };
const MAX_TOKENS = 16;
const MODEL = 'up/gpt-test';
const CHAT_BODY = JSON.stringify({
  model: MODEL,
  max_tokens: MAX_TOKENS,
  messages: [{ role: 'user', content: 'one budget, three gateways' }],
});
const STREAM_BODY = JSON.stringify({
  model: MODEL,
  max_tokens: MAX_TOKENS,
  stream: true,
  messages: [{ role: 'user', content: 'stream it' }],
});
const MESSAGES_BODY = JSON.stringify({
  model: MODEL,
  max_tokens: MAX_TOKENS,
  messages: [{ role: 'user', content: 'anthropic caller' }],
});
/** What the limits stage estimates for CHAT_BODY, and what the upstream reports (by default). */
const PROMPT_TOKENS = Math.ceil(Buffer.byteLength(CHAT_BODY) / BYTES_PER_TOKEN_ESTIMATE);
/** nano-USD: the reservation for CHAT_BODY, and every request's actual cost. */
const COST = (PROMPT_TOKENS * PRICE.input + MAX_TOKENS * PRICE.output) * 1000;
/** A budget (USD) that fits `n` requests of COST and half of one more. */
const usdFor = (n: number) => ((n + 0.5) * COST) / 1e9;

/** Waits on the outage and recovery: generous, bounded. */
const RECOVERY_MS = 20_000;

/** The upstream's reply: usage `prompt`/`completion`, as JSON or as a stream with a usage chunk. */
function usageUpstream(prompt = PROMPT_TOKENS, completion = MAX_TOKENS, delayMs = 0): Handler {
  return async (req) => {
    if (delayMs > 0) await sleep(delayMs);
    const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
    const head = { id: 'chatcmpl-shared', created: 1700000000, model: 'gpt-test-upstream' };
    if (req.body?.stream) {
      const chunk = (choices: unknown[], extra: object = {}) =>
        `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices, ...extra })}\n\n`;
      return {
        kind: 'sse',
        events: [
          chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
          chunk([{ index: 0, delta: { content: 'shared ' }, finish_reason: null }]),
          chunk([{ index: 0, delta: { content: 'state' }, finish_reason: null }]),
          chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
          chunk([], { usage }),
          'data: [DONE]\n\n',
        ],
      };
    }
    return {
      kind: 'json',
      body: {
        ...head,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'shared state', refusal: null },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage,
      },
    };
  };
}

interface LimitsYaml {
  prefix: string;
  onUnavailable: 'fail_closed' | 'fail_open';
  budgetUsd?: number;
  rpm?: number;
}

function configYaml(upstreamUrl: string, redisUrl: string, l: LimitsYaml): string {
  return `
server: { host: 127.0.0.1, port: 0, body_limit: 16kb, shutdown_grace_ms: 2000 }
routing: { retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 } }
providers:
  up:
    api: openai
    base_url: ${upstreamUrl}/v1
    api_key: ${PROVIDER_SECRET}
    timeouts: { connect_ms: 2000, first_byte_ms: 5000, total_ms: 10000 }
    models:
      gpt-test: { context_window: 128000, max_output_tokens: 4096, upstream_name: gpt-test-upstream, \
price: { input: ${PRICE.input}, output: ${PRICE.output} } }
roles:
  developer: { models: ["up/*"] }
keys:
  - { id: dev, key: ${TEST_KEY}, role: developer }
state: { store: redis, url: "${redisUrl}", key_prefix: "${l.prefix}", on_unavailable: ${l.onUnavailable} }
${
  l.budgetUsd !== undefined
    ? `budgets:\n  - { id: shared, scope: { global: true }, limit_usd: ${l.budgetUsd}, period: total }`
    : ''
}
${l.rpm !== undefined ? `rate_limits:\n  - { id: rpm, scope: { global: true }, requests_per_minute: ${l.rpm} }` : ''}
`;
}

interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

async function send(gw: RunningGateway, kind: 'chat' | 'stream' | 'messages', body?: string): Promise<Reply> {
  const anthropic = kind === 'messages';
  const res = await fetch(`${gw.url}${anthropic ? '/v1/messages' : '/v1/chat/completions'}`, {
    method: 'POST',
    headers: anthropic
      ? { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }
      : { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: body ?? (kind === 'chat' ? CHAT_BODY : kind === 'stream' ? STREAM_BODY : MESSAGES_BODY),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** `n` requests at once, spread round-robin over the gateways. */
function burst(gws: RunningGateway[], n: number, kind: 'chat' | 'stream' | 'messages' = 'chat'): Promise<Reply[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => send(gws[i % gws.length], kind)));
}

/** The caller's format: an OpenAI error body / an Anthropic error body. */
function expectOpenaiError(r: Reply, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(Object.keys(r.body ?? {})).toEqual(['error']);
  expect(r.body.error).toMatchObject({ message: expect.any(String), type: expect.any(String), code });
  expect(Object.keys(r.body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
}
function expectAnthropicError(r: Reply, status: number, type: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.body).toEqual({ type: 'error', error: { type, message: expect.any(String) } });
}

/** Log lines of one gateway, parsed. */
function logLines(gw: RunningGateway): Array<Record<string, any>> {
  return gw.logs.map((l) => JSON.parse(l) as Record<string, any>);
}

/** A rate-limit window is a calendar minute: start a burst at least 5 s before the next one. */
async function awayFromMinuteBoundary(): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 55_000) await sleep(60_000 - into + 1_000);
}

describe.skipIf(skipRedisTests('the shared-state Redis tests'))(
  'three gateway instances sharing state through Redis (real redis-server)',
  () => {
    let server: RedisServer;
    let raw: Redis;
    let upstream: FakeUpstream;
    const gws: RunningGateway[] = [];
    let redisDown = false;
    let counter = 0;

    /** Three gateways, each with its own RedisStore on the same Redis and prefix; waits until each store answers. */
    async function startThree(l: Omit<LimitsYaml, 'prefix'>): Promise<{ gws: RunningGateway[]; prefix: string }> {
      counter += 1;
      const prefix = `gwshared${process.pid}-${counter}:`;
      const yaml = configYaml(upstream.url, server.url, { ...l, prefix });
      for (let i = 0; i < 3; i++) gws.push(await startGateway(loadTestConfig(yaml)));
      for (const gw of gws) {
        expect(gw.gateway.runtime.store.kind).toBe('redis');
        await waitFor(async () => {
          await gw.gateway.runtime.store.ping();
          return true;
        }, 'store ready');
      }
      expect(new Set(gws.map((g) => g.gateway.runtime.store)).size).toBe(3);
      return { gws, prefix };
    }

    /** Polls `check` (a throw counts as not yet) every 100 ms for at most RECOVERY_MS. */
    async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
      const deadline = Date.now() + RECOVERY_MS;
      let last: unknown;
      while (Date.now() < deadline) {
        try {
          if (await check()) return;
        } catch (err) {
          last = err;
        }
        await sleep(100);
      }
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    }

    const budgetKey = (prefix: string) => `${prefix}budget:shared:*:total`;
    const spend = async (prefix: string) => Number((await raw.get(budgetKey(prefix))) ?? 0);

    async function stopRedis(): Promise<void> {
      redisDown = true;
      await server.stop();
    }
    async function restartRedis(): Promise<void> {
      await server.restart();
      redisDown = false;
      await waitFor(async () => (await raw.ping()) === 'PONG', 'raw client reconnected');
    }

    beforeAll(async () => {
      requireRedis();
      server = await startRedisServer();
      raw = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
      raw.on('error', () => undefined);
      upstream = await startFakeUpstream({ handler: usageUpstream() });
    });

    beforeEach(() => {
      upstream.received.length = 0;
      upstream.setHandler(usageUpstream());
    });

    afterEach(async () => {
      await Promise.all(gws.splice(0).map((g) => g.close()));
      if (redisDown) await restartRedis();
    });

    afterAll(async () => {
      raw?.disconnect();
      await upstream?.close();
      await server?.stop();
    });

    it(
      'one budget is exact across three instances: concurrent requests serve exactly what fits, spend never exceeds ' +
        'it',
      async () => {
        const { gws, prefix } = await startThree({ onUnavailable: 'fail_closed', budgetUsd: usdFor(10) });
        const replies = await burst(gws, 30);

        const served = replies.filter((r) => r.status === 200);
        const refused = replies.filter((r) => r.status !== 200);
        expect(served).toHaveLength(10);
        expect(refused).toHaveLength(20);
        for (const r of served) {
          expect(r.body.choices[0].message.content).toBe('shared state');
          expect(r.headers.get('x-gateway-cost-usd')).toBe(formatUsd(COST));
        }
        for (const r of refused) {
          expectOpenaiError(r, 429, 'budget_exceeded');
          expect(r.headers.get('x-should-retry')).toBe('false');
          expect(r.headers.get('x-gateway-limit')).toBe('budget=shared');
        }
        expect(upstream.received).toHaveLength(10);
        const limitNano = Math.round(usdFor(10) * 1e9);
        expect(await spend(prefix)).toBe(10 * COST);
        expect(await spend(prefix)).toBeLessThanOrEqual(limitNano);
        // Read through a store as well (the gateways' own view of the counter).
        expect(await gws[2].gateway.runtime.store.get(['budget:shared:*:total'])).toEqual([10 * COST]);

        // Full now on every instance: nothing more is sent upstream.
        const after = await burst(gws, 3);
        for (const r of after) expectOpenaiError(r, 429, 'budget_exceeded');
        expect(upstream.received).toHaveLength(10);
        expect(await spend(prefix)).toBe(10 * COST);
      },
    );

    it(
      'one budget stays under its limit when requests cost less than reserved: served × actual cost is recorded, ' +
        'then it fills exactly',
      async () => {
        // The upstream reports 1 output token instead of MAX_TOKENS, after 30 ms: reservations overlap
        // and are then settled down to the actual cost.
        const actual = (PROMPT_TOKENS * PRICE.input + 1 * PRICE.output) * 1000;
        upstream.setHandler(usageUpstream(PROMPT_TOKENS, 1, 30));
        const { gws, prefix } = await startThree({ onUnavailable: 'fail_closed', budgetUsd: usdFor(10) });
        const limitNano = Math.round(usdFor(10) * 1e9);

        const first = await burst(gws, 30);
        const servedFirst = first.filter((r) => r.status === 200).length;
        for (const r of first.filter((x) => x.status !== 200)) expectOpenaiError(r, 429, 'budget_exceeded');
        expect(servedFirst).toBeGreaterThanOrEqual(10);
        expect(await spend(prefix)).toBe(servedFirst * actual);
        expect(await spend(prefix)).toBeLessThanOrEqual(limitNano);

        // Then one at a time, round-robin, until refused: it stops exactly when the next reservation
        // (COST) no longer fits.
        let served = servedFirst;
        for (let i = 0; i < 200; i++) {
          const r = await send(gws[i % 3], 'chat');
          if (r.status !== 200) {
            expectOpenaiError(r, 429, 'budget_exceeded');
            break;
          }
          served++;
        }
        const total = await spend(prefix);
        expect(total).toBe(served * actual);
        expect(total).toBeLessThanOrEqual(limitNano);
        expect(total + COST).toBeGreaterThan(limitNano);
        expect(served).toBe(Math.floor((limitNano - COST) / actual) + 1);
        expect(upstream.received).toHaveLength(served);
      },
    );

    it('one rate limit is exact across three instances: requests_per_minute 60, 90 concurrent requests → 60 served', {
      timeout: 60_000,
    }, async () => {
      const { gws, prefix } = await startThree({ onUnavailable: 'fail_closed', rpm: 60 });
      await awayFromMinuteBoundary();
      const minute = Math.floor(Date.now() / 60_000) * 60_000;
      const replies = await burst(gws, 90);

      const served = replies.filter((r) => r.status === 200);
      const refused = replies.filter((r) => r.status !== 200);
      expect(served).toHaveLength(60);
      expect(refused).toHaveLength(30);
      for (const r of refused) {
        expectOpenaiError(r, 429, 'rate_limit_exceeded');
        expect(r.headers.get('x-should-retry')).toBe('false');
        expect(r.headers.get('x-gateway-limit')).toBe('rate_limit=rpm');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      for (const r of served) expect(r.headers.get('x-ratelimit-limit-requests')).toBe('60');
      // Each served request saw a distinct remaining count: 59 … 0.
      expect(new Set(served.map((r) => r.headers.get('x-ratelimit-remaining-requests'))).size).toBe(60);
      expect(upstream.received).toHaveLength(60);
      expect(Number(await raw.get(`${prefix}rl:rpm:*:req:${minute}`))).toBe(60);
    });

    it("fail_closed: Redis down → 503 state_store_unavailable in the caller's format, nothing sent upstream; back → " +
      'every store recovers and the budget applies again', {
      timeout: 90_000,
    }, async () => {
      const { gws, prefix } = await startThree({ onUnavailable: 'fail_closed', budgetUsd: usdFor(20) });
      for (const gw of gws) expect((await send(gw, 'chat')).status).toBe(200);
      expect(await spend(prefix)).toBe(3 * COST);
      const before = upstream.received.length;

      await stopRedis();
      for (const gw of gws) {
        const chat = await send(gw, 'chat');
        expectOpenaiError(chat, 503, 'state_store_unavailable');
        expect(chat.body.error.type).toBe('overloaded_error');
        expect(chat.headers.get('x-should-retry')).toBe('true');
        expectOpenaiError(await send(gw, 'stream'), 503, 'state_store_unavailable');
        const msg = await send(gw, 'messages');
        expectAnthropicError(msg, 503, 'overloaded_error');
        expect(msg.body.error.message).toContain('request was not sent');
        // Nothing about Redis (address, password) reaches the caller.
        expect(msg.text).not.toContain(String(server.port));
      }
      const many = await burst(gws, 12, 'messages');
      for (const r of many) expectAnthropicError(r, 503, 'overloaded_error');
      expect(upstream.received).toHaveLength(before);

      await restartRedis();
      // Each instance recovers on its own: poll each (bounded) until a request is served; until
      // then every answer is the 503.
      for (const gw of gws) {
        await waitFor(async () => {
          const r = await send(gw, 'chat');
          if (r.status !== 200) expectOpenaiError(r, 503, 'state_store_unavailable');
          return r.status === 200;
        }, 'gateway served again');
      }
      // The restarted Redis starts empty (no persistence): exactly the three recovery requests.
      expect(await spend(prefix)).toBe(3 * COST);
      expect(upstream.received).toHaveLength(before + 3);

      // The shared budget applies again, exactly: 20.5 fit in all, 3 used.
      const replies = await burst(gws, 30);
      const served = replies.filter((r) => r.status === 200);
      expect(served).toHaveLength(17);
      for (const r of replies.filter((x) => x.status !== 200)) expectOpenaiError(r, 429, 'budget_exceeded');
      expect(await spend(prefix)).toBe(20 * COST);
      expect(upstream.received).toHaveLength(before + 20);
    });

    it('fail_open: Redis down → served and logged; back → the outage spend is recorded once and the budget refuses ' +
      'again', {
      timeout: 90_000,
    }, async () => {
      // The rate limit is high: it only shows (x-ratelimit-* headers) whether the store was asked.
      const { gws, prefix } = await startThree({ onUnavailable: 'fail_open', budgetUsd: usdFor(5), rpm: 100_000 });
      for (const gw of gws) {
        const r = await send(gw, 'chat');
        expect(r.status).toBe(200);
        expect(r.headers.get('x-ratelimit-limit-requests')).toBe('100000');
      }
      expect(await spend(prefix)).toBe(3 * COST);
      const before = upstream.received.length;

      await stopRedis();
      // Per instance: a chat completion, an Anthropic message and a stream; 9 × COST in all, more
      // than the budget (5.5 × COST): fail_open does not check.
      for (const gw of gws) {
        const chat = await send(gw, 'chat');
        expect(chat.status, chat.text).toBe(200);
        expect(chat.body.choices[0].message.content).toBe('shared state');
        expect(chat.headers.get('x-ratelimit-limit-requests')).toBeNull();
        expect(chat.headers.get('x-gateway-cost-usd')).toBe(formatUsd(COST));
        const msg = await send(gw, 'messages');
        expect(msg.status, msg.text).toBe(200);
        expect(msg.body).toMatchObject({
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text: 'shared state' }],
        });
        const stream = await send(gw, 'stream');
        expect(stream.status, stream.text).toBe(200);
        expect(stream.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
        expect(stream.text).toContain('"content":"state"');
      }
      expect(upstream.received).toHaveLength(before + 9);
      for (const gw of gws) {
        const lines = logLines(gw);
        const open = lines.filter(
          (l) => l.msg === 'state store unavailable: serving without budget and rate-limit checks (fail_open)',
        );
        expect(open).toHaveLength(3);
        for (const l of open) {
          expect(l.level).toBe('error');
          expect(l.correlation_id).toEqual(expect.any(String));
          expect(l.error).toContain(`127.0.0.1:${server.port}`);
        }
        expect(lines.filter((l) => l.msg === 'state store unreachable: settlement kept to record later')).toHaveLength(
          3,
        );
        expect(gw.gateway.runtime.reconcile.size).toBeGreaterThan(0);
      }

      await restartRedis();
      // The restarted Redis starts empty; each instance's ReconcileQueue retries about every second
      // and records its own 3 × COST once its store has reconnected.
      await waitFor(async () => {
        const s = await spend(prefix);
        if (s > 9 * COST) throw new Error(`spend ${s} above the outage's ${9 * COST}`);
        return s === 9 * COST && gws.every((g) => g.gateway.runtime.reconcile.size === 0);
      }, 'outage spend recorded');
      await waitFor(
        async () =>
          gws.every((g) => logLines(g).some((l) => l.msg === 'state store back: pending settlements recorded')),
        'recovery logged',
      );
      // Recorded once: still 9 × COST a couple of retry periods later.
      await sleep(2_500);
      expect(await spend(prefix)).toBe(9 * COST);

      // The budget applies again on every instance (each store is back, since each recorded its share).
      const after = await burst(gws, 6);
      for (const r of after) {
        expectOpenaiError(r, 429, 'budget_exceeded');
        expect(r.headers.get('x-should-retry')).toBe('false');
      }
      const anth = await send(gws[1], 'messages');
      expectAnthropicError(anth, 429, 'rate_limit_error');
      expect(upstream.received).toHaveLength(before + 9);
      expect(await spend(prefix)).toBe(9 * COST);
    });
  },
);

/**
 * BUG (src/budget/periods.ts:30-34, offsetMs): every call constructs a new Intl.DateTimeFormat,
 * and zonedMidnight() calls offsetMs twice, so periodWindow() for a day/week/month budget builds
 * 4 formatters on EVERY request (planLimits → periodWindow per budget). Constructing one costs
 * ~0.15 ms on the benchmark machine: about 0.6-0.8 ms per request and per budget, i.e. a monthly
 * budget more than doubles the gateway's added latency (bench: `limits` lane, period month, vs
 * `--budget-period total`). Expected: formatters cached per time zone (as localDate() already
 * does), so a warm periodWindow() constructs none. Counted, not timed.
 */
describe('budget periods (found while benchmarking the limits lanes)', () => {
  it('periodWindow() for a calendar period reuses its Intl formatters once warm', () => {
    const original = Intl.DateTimeFormat;
    let constructed = 0;
    const counting = new Proxy(original, {
      construct(target, args: unknown[]) {
        constructed++;
        return Reflect.construct(target, args);
      },
    });
    Object.defineProperty(Intl, 'DateTimeFormat', { value: counting, writable: true, configurable: true });
    try {
      const now = Date.UTC(2026, 10, 23, 12, 0, 0);
      for (const period of ['day', 'week', 'month'] as const) periodWindow(period, 'Europe/Berlin', now); // warm
      constructed = 0;
      for (let i = 0; i < 10; i++) {
        for (const period of ['day', 'week', 'month'] as const) periodWindow(period, 'Europe/Berlin', now + i * 1000);
      }
      expect(constructed).toBe(0);
    } finally {
      Object.defineProperty(Intl, 'DateTimeFormat', { value: original, writable: true, configurable: true });
    }
  });
});
