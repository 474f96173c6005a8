/**
 * Rate limits over real sockets: requests and tokens per fixed minute window, requests in flight,
 * their scopes, the 429s (format, retry-after, x-gateway-limit, x-should-retry) and the
 * x-ratelimit-* headers; and the official SDKs raising RateLimitError for budget and rate-limit
 * refusals WITHOUT retrying (requests counted at the gateway, from its request log, and at the
 * SDK's fetch).
 *
 * Minute windows: every test that depends on one runs inside withinOneMinute (away from the
 * window's edge, and run again in a fresh window if the minute changed meanwhile).
 *
 * Arithmetic: the standard BODY (80 bytes, max_tokens 10) reserves E = 27 + 10 = 37 tokens; the
 * upstream reports 12 + 5 = 17 tokens, which replace the reservation at settlement.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observe/logger.js';
import { createGateway } from '../../src/server/http.js';
import { MemoryStore } from '../../src/state/memory-store.js';
import {
  awayFromMinuteEdge,
  bodyFor,
  cutStreamAfter,
  errorOf,
  eventually,
  headersFor,
  KEYS,
  PRICED,
  minuteEnd,
  PATH,
  requestLogs,
  reservation,
  send,
  usd,
  withinOneMinute,
  type Endpoint,
  type KeyName,
} from '../helpers/limits-harness.js';
import { startFakeUpstream, type Reply, type FakeUpstream } from '../helpers/fake-upstream.js';
import { pricedGateway } from '../helpers/gateway-config.js';
import { configOf, startGateway, type RunningGateway } from '../helpers/start-gateway.js';

const BODY = bodyFor('oai/m');
const E = reservation(BODY, 10).tokens;
const ACTUAL_TOKENS = 12 + 5;
/** Tests that may wait for a fresh minute window. */
const MINUTE_TEST = 150_000;

let up: FakeUpstream;

beforeAll(async () => {
  up = await startFakeUpstream(PRICED);
});
afterAll(async () => {
  await up.close();
});

it('the arithmetic the tests rely on', () => {
  expect(E).toBe(37);
});

function gatewayFor(extra: string): { gw: () => RunningGateway } {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway(configOf(pricedGateway(up.url, extra)));
  });
  afterAll(async () => {
    await gw?.close();
  });
  beforeEach(() => {
    up.reset();
  });
  return { gw: () => gw };
}

/** Asserts a rate-limit refusal; returns the error message. */
async function expectRateLimited(res: Response, ep: Endpoint, limitId: string, text?: string): Promise<string> {
  expect(res.status).toBe(429);
  expect(res.headers.get('x-should-retry')).toBe('false');
  expect(res.headers.get('x-gateway-limit')).toBe(`rate_limit=${limitId}`);
  expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  const err = errorOf(ep, JSON.parse(text ?? (await res.text())));
  expect(err.type).toBe('rate_limit_error');
  if (ep === 'openai') expect(err.code).toBe('rate_limit_exceeded');
  return err.message;
}

async function statusOf(p: Promise<Response>): Promise<number> {
  const res = await p;
  await res.arrayBuffer();
  return res.status;
}

// ================================================================ requests per minute

describe('requests_per_minute: 100', () => {
  const { gw } = gatewayFor(`rate_limits:\n  - { id: rpm, scope: { global: true }, requests_per_minute: 100 }`);

  it(
    '150 concurrent requests: exactly 100 served, 50 refused with retry-after up to the window end',
    async () => {
      await withinOneMinute(async () => {
        up.reset();
        const end = minuteEnd();
        const results = await Promise.all(
          Array.from({ length: 150 }, async (_, i) => {
            const ep: Endpoint = i % 2 ? 'anthropic' : 'openai';
            const res = await send(gw().url, ep, (['t1', 't2', 's1'] as const)[i % 3], BODY);
            return { ep, res, body: await res.text() };
          }),
        );
        const ok = results.filter((r) => r.res.status === 200);
        const refused = results.filter((r) => r.res.status === 429);
        expect(ok.length).toBe(100);
        expect(refused.length).toBe(50);
        expect(up.calls.length).toBe(100);
        for (const r of refused) {
          expect(r.res.headers.get('x-should-retry')).toBe('false');
          expect(r.res.headers.get('x-gateway-limit')).toBe('rate_limit=rpm');
          const retryAfter = Number(r.res.headers.get('retry-after'));
          expect(retryAfter).toBeGreaterThanOrEqual(1);
          expect(retryAfter).toBeLessThanOrEqual(60);
          // It points at (or past) the end of the window the request was counted in.
          expect(Date.now() + retryAfter * 1000).toBeGreaterThanOrEqual(end);
          const err = errorOf(r.ep, JSON.parse(r.body));
          expect(err.type).toBe('rate_limit_error');
          if (r.ep === 'openai') expect(err.code).toBe('rate_limit_exceeded');
          expect(err.message).toBe('Rate limit "rpm" (global): at most 100 requests per minute.');
        }
        // Each admitted request saw its own count: remaining 99, 98, …, 0.
        expect(
          ok.map((r) => Number(r.res.headers.get('x-ratelimit-remaining-requests'))).sort((a, b) => a - b),
        ).toEqual(Array.from({ length: 100 }, (_, i) => i));
        for (const r of ok) {
          expect(r.res.headers.get('x-ratelimit-limit-requests')).toBe('100');
          expect(r.res.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+s$/);
          expect(r.res.headers.get('x-ratelimit-limit-tokens')).toBeNull();
        }
        // Still the same window: one more is refused, streams included.
        const more = await fetch(gw().url + PATH.openai, {
          method: 'POST',
          headers: headersFor('openai', 't1'),
          body: bodyFor('oai/m', { stream: true }),
        });
        await expectRateLimited(more, 'openai', 'rpm');
        expect(up.calls.length).toBe(100);
      });
    },
    MINUTE_TEST,
  );
});

// ================================================================ tokens per minute

describe('tokens_per_minute', () => {
  /** Three reservations of E fit, not four. */
  const T = 3 * E + Math.floor(E / 2);
  const { gw } = gatewayFor(`rate_limits:\n  - { id: tpm, scope: { key: t1 }, tokens_per_minute: ${T} }`);

  it(
    'refuses once the window holds its reservations; settling at actual usage gives room back',
    async () => {
      await withinOneMinute(async () => {
        up.reset();
        const key = `rl:tpm:*:tok:${minuteEnd() - 60_000}`;
        const store = gw().gateway.runtime.store;
        const before = (await store.get([key]))[0];
        expect(before).toBe(0);
        // Held replies keep the reservations (E each) in the window.
        const release = up.hold();
        const held = Array.from({ length: 3 }, () => send(gw().url, 'openai', 't1', BODY));
        await up.waitForCalls(3);
        let other: Promise<number> | undefined;
        try {
          expect((await store.get([key]))[0]).toBe(3 * E);
          const message = await expectRateLimited(await send(gw().url, 'anthropic', 't1', BODY), 'anthropic', 'tpm');
          expect(message).toBe(`Rate limit "tpm" (key "t1"): at most ${T} tokens per minute.`);
          expect(up.calls.length).toBe(3);
          // Another key is not limited: admitted (and held) while t1 is at its limit.
          other = statusOf(send(gw().url, 'openai', 't2', BODY));
          await up.waitForCalls(4);
        } finally {
          release();
        }
        expect(await other).toBe(200);
        for (const p of held) expect(await statusOf(p)).toBe(200);
        // Settled: the window now holds what was used.
        expect((await store.get([key]))[0]).toBe(3 * ACTUAL_TOKENS);
        // Sequentially, as long as used + E fits.
        const remaining: number[] = [];
        for (let k = 3; k < 20; k++) {
          const res = await send(gw().url, 'openai', 't1', BODY);
          if (res.status !== 200) {
            expect(k * ACTUAL_TOKENS + E).toBeGreaterThan(T);
            await expectRateLimited(res, 'openai', 'tpm');
            break;
          }
          await res.arrayBuffer();
          expect(k * ACTUAL_TOKENS + E).toBeLessThanOrEqual(T);
          expect(res.headers.get('x-ratelimit-limit-tokens')).toBe(String(T));
          remaining.push(Number(res.headers.get('x-ratelimit-remaining-tokens')));
        }
        expect(remaining).toEqual([
          T - (3 * ACTUAL_TOKENS + E),
          T - (4 * ACTUAL_TOKENS + E),
          T - (5 * ACTUAL_TOKENS + E),
        ]);
        expect((await store.get([key]))[0]).toBe(6 * ACTUAL_TOKENS);
      });
    },
    MINUTE_TEST,
  );
});

// ================================================================ in flight

describe('max_concurrent: 3', () => {
  const { gw } = gatewayFor(`rate_limits:\n  - { id: conc, scope: { role: team }, max_concurrent: 3 }`);
  const INFLIGHT = 'rl:conc:*:inflight';
  const inflight = async () => (await gw().gateway.runtime.store.get([INFLIGHT]))[0];

  /** Every call from now on waits for its own release. */
  function holdEach(): Array<() => void> {
    const gates: Array<() => void> = [];
    up.setHandler(() => new Promise<Reply | undefined>((r) => gates.push(() => r(undefined))));
    return gates;
  }

  it('admits exactly 3 in flight, refuses the rest at once, and gives slots back as requests complete', async () => {
    const gates = holdEach();
    const outcomes: Array<{ ep: Endpoint; res: Response; text: string }> = [];
    const first = Array.from({ length: 5 }, (_, i) => {
      const ep: Endpoint = i % 2 ? 'anthropic' : 'openai';
      return send(gw().url, ep, i % 2 ? 't1' : 't2', BODY).then(async (res) => {
        const o = { ep, res, text: await res.text() };
        outcomes.push(o);
        return o;
      });
    });
    await up.waitForCalls(3);
    await eventually(() => gates.length === 3, 'three calls held');
    await eventually(() => outcomes.length === 2, 'two refusals');
    for (const o of outcomes) {
      expect(await expectRateLimited(o.res, o.ep, 'conc', o.text)).toBe(
        'Rate limit "conc" (role "team"): at most 3 requests in flight.',
      );
      expect(o.res.headers.get('retry-after')).toBe('1');
    }
    expect(await inflight()).toBe(3);
    expect(up.calls.length).toBe(3);
    // Another role is not limited, even now.
    const solo = send(gw().url, 'openai', 's1', BODY);
    await eventually(() => gates.length === 4, 'the solo call reaches the upstream');
    gates[3]();
    expect(await statusOf(solo)).toBe(200);
    expect(outcomes.length).toBe(2);

    // One completes: its slot comes back, and exactly one more gets in.
    gates[0]();
    await eventually(() => outcomes.length === 3, 'the released request completes');
    expect(outcomes[2].res.status).toBe(200);
    await eventually(async () => (await inflight()) === 2, 'a slot is released');
    const next = send(gw().url, 'openai', 't1', BODY);
    await eventually(() => gates.length === 5, 'the next request reaches the upstream');
    expect(await statusOf(send(gw().url, 'openai', 't2', BODY))).toBe(429);

    for (const g of gates) g();
    expect(await statusOf(next)).toBe(200);
    const all = await Promise.all(first);
    expect(all.filter((o) => o.res.status === 200).length).toBe(3);
    expect(all.filter((o) => o.res.status === 429).length).toBe(2);
    await eventually(async () => (await inflight()) === 0, 'all slots released');
    // All three usable again.
    up.setHandler(undefined);
    const again = await Promise.all(Array.from({ length: 3 }, () => statusOf(send(gw().url, 'openai', 't1', BODY))));
    expect(again).toEqual([200, 200, 200]);
  });

  it('a stream holds its slot until it ends; a client leaving mid-stream gives it back', async () => {
    // Up to the first text delta (Anthropic sends a ping before its first block), then silence.
    up.setHandler((call) => ({ kind: 'hang', after: call.format === 'anthropic' ? 4 : 3 }));
    const cuts: Array<Promise<unknown>> = [];
    const streams = Array.from({ length: 3 }, (_, i) => {
      const ep: Endpoint = i === 0 ? 'anthropic' : 'openai';
      return { ep, body: bodyFor(i === 2 ? 'oai/m' : 'ant/m', { stream: true }) };
    });
    // Three streams that have started and then stall: three slots taken.
    const controllers = streams.map(() => new AbortController());
    const started = streams.map(({ ep, body }, i) =>
      fetch(gw().url + PATH[ep], {
        method: 'POST',
        headers: headersFor(ep, 't1'),
        body,
        signal: controllers[i].signal,
      }).then(async (res) => {
        expect(res.status).toBe(200);
        const reader = res.body!.getReader();
        await reader.read(); // the first bytes have arrived
        return reader;
      }),
    );
    const readers = await Promise.all(started);
    expect(await inflight()).toBe(3);
    await expectRateLimited(await send(gw().url, 'openai', 't2', BODY), 'openai', 'conc');
    // The callers go away.
    for (const c of controllers) c.abort();
    for (const r of readers) cuts.push(r.cancel().catch(() => undefined));
    await Promise.all(cuts);
    await eventually(async () => (await inflight()) === 0, 'slots released after the callers left');
    await eventually(() => up.open === 0, 'upstream calls aborted');
    // And a stream that completes releases its slot too.
    up.setHandler(undefined);
    for (let i = 0; i < 4; i++) {
      const res = await fetch(gw().url + PATH.openai, {
        method: 'POST',
        headers: headersFor('openai', 't1'),
        body: bodyFor('oai/m', { stream: true }),
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('[DONE]');
    }
    await eventually(async () => (await inflight()) === 0, 'slots released after complete streams');
  });

  it('a client cutting a stream with node:http releases the slot as well', async () => {
    up.setHandler(() => ({ kind: 'hang', after: 2 }));
    for (let i = 0; i < 4; i++) {
      await cutStreamAfter(
        gw().url + PATH.openai,
        headersFor('openai', 't1'),
        bodyFor('oai/m', { stream: true }),
        '"content":"o"',
      );
      await eventually(async () => (await inflight()) === 0, 'slot released');
    }
  });

  it('upstream failures and refusals leave no slot taken', async () => {
    up.setHandler(() => ({ kind: 'error', status: 500 }));
    for (let i = 0; i < 5; i++)
      expect(await statusOf(send(gw().url, i % 2 ? 'anthropic' : 'openai', 't1', BODY))).toBe(500);
    up.setHandler(() => ({ kind: 'drop' }));
    for (let i = 0; i < 5; i++) expect(await statusOf(send(gw().url, 'openai', 't1', bodyFor('ant/m')))).toBe(502);
    expect(await inflight()).toBe(0);
    const gates = holdEach();
    const held = Array.from({ length: 3 }, () => send(gw().url, 'openai', 't1', BODY));
    await eventually(() => gates.length === 3, 'three held');
    for (let i = 0; i < 5; i++) expect(await statusOf(send(gw().url, 'openai', 't2', BODY))).toBe(429);
    expect(await inflight()).toBe(3);
    for (const g of gates) g();
    for (const p of held) expect(await statusOf(p)).toBe(200);
    await eventually(async () => (await inflight()) === 0, 'all released');
  });
});

// ================================================================ scopes

describe('rate-limit scopes: model (as requested) and each_key_of_role', () => {
  const { gw } = gatewayFor(`rate_limits:
  - { id: per-model, scope: { model: ant/m }, requests_per_minute: 2 }
  - { id: per-key, scope: { each_key_of_role: team }, requests_per_minute: 3 }`);

  it(
    'a model limit is shared by every key; a per-key limit is separate for each key',
    async () => {
      await withinOneMinute(async () => {
        up.reset();
        const url = gw().url;
        const ANT = bodyFor('ant/m');
        expect(await statusOf(send(url, 'openai', 't1', ANT))).toBe(200);
        expect(await statusOf(send(url, 'anthropic', 't1', ANT))).toBe(200);
        expect(await expectRateLimited(await send(url, 'openai', 't1', ANT), 'openai', 'per-model')).toBe(
          'Rate limit "per-model" (model "ant/m"): at most 2 requests per minute.',
        );
        // The refused request counted nowhere: t1 has used 2 of its 3.
        expect(await statusOf(send(url, 'openai', 't1', BODY))).toBe(200);
        expect(await expectRateLimited(await send(url, 'openai', 't1', BODY), 'openai', 'per-key')).toBe(
          'Rate limit "per-key" (key "t1" (each key of role "team")): at most 3 requests per minute.',
        );
        for (let i = 0; i < 3; i++) expect(await statusOf(send(url, 'openai', 't2', BODY))).toBe(200);
        await expectRateLimited(await send(url, 'anthropic', 't2', BODY), 'anthropic', 'per-key');
        // The model limit is shared across keys and roles; other models are not limited for s1.
        await expectRateLimited(await send(url, 'openai', 's1', ANT), 'openai', 'per-model');
        for (let i = 0; i < 5; i++) expect(await statusOf(send(url, 'openai', 's1', BODY))).toBe(200);
        expect(up.calls.length).toBe(2 + 1 + 3 + 5);
      });
    },
    MINUTE_TEST,
  );
});

// ================================================================ SDKs

describe('the official SDKs: RateLimitError, and no retry', () => {
  // s1's budget is below one reservation: always refused. t2's token limit is below one
  // reservation: always refused, whatever the minute. t1 is not limited.
  const { gw } = gatewayFor(`budgets:
  - { id: broke, scope: { key: s1 }, limit_usd: ${usd(1000)}, period: total }
rate_limits:
  - { id: trickle, scope: { key: t2 }, tokens_per_minute: 1 }`);

  /** Requests the gateway handled (its request log lines) for a key. */
  const handled = (key: KeyName) => requestLogs(gw().logs).filter((l) => l.key_id === key).length;

  function countingFetch(): { fetch: typeof fetch; count: () => number } {
    let n = 0;
    return {
      fetch: ((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
        n++;
        return fetch(input, init);
      }) as typeof fetch,
      count: () => n,
    };
  }

  /** Runs one SDK call; returns its error and how many requests the SDK sent and the gateway handled. */
  async function once(
    key: KeyName,
    call: (f: typeof fetch) => Promise<unknown>,
  ): Promise<{ err: any; sent: number; handled: number }> {
    const before = handled(key);
    const counter = countingFetch();
    const err = await call(counter.fetch).then(
      () => undefined,
      (e: unknown) => e,
    );
    // The log line is written just after the response; a retry would have happened before the call settled.
    await eventually(() => handled(key) > before, 'the request is logged');
    return { err, sent: counter.count(), handled: handled(key) - before };
  }

  const cases = [
    { key: 's1' as const, code: 'budget_exceeded', limit: 'budget=broke', text: 'Budget "broke"' },
    { key: 't2' as const, code: 'rate_limit_exceeded', limit: 'rate_limit=trickle', text: 'Rate limit "trickle"' },
  ];
  const messages = [{ role: 'user' as const, content: 'hello' }];

  it.each(cases)(
    'openai: $code → RateLimitError, one request despite maxRetries: 3',
    async ({ key, code, limit, text }) => {
      for (const stream of [false, true]) {
        const r = await once(key, (f) => {
          const client = new OpenAI({ apiKey: KEYS[key], baseURL: `${gw().url}/v1`, maxRetries: 3, fetch: f });
          return stream
            ? client.chat.completions.create({ model: 'oai/m', max_tokens: 10, messages, stream: true })
            : client.chat.completions.create({ model: 'oai/m', max_tokens: 10, messages });
        });
        expect(r.err).toBeInstanceOf(OpenAI.RateLimitError);
        expect(r.err.status).toBe(429);
        expect(r.err.code).toBe(code);
        expect(r.err.message).toContain(text);
        expect(r.err.headers.get('x-should-retry')).toBe('false');
        expect(r.err.headers.get('x-gateway-limit')).toBe(limit);
        expect(r.sent).toBe(1);
        expect(r.handled).toBe(1);
      }
      expect(up.calls.length).toBe(0);
    },
  );

  it.each(cases)(
    'anthropic: $code → RateLimitError, one request despite maxRetries: 3',
    async ({ key, limit, text }) => {
      for (const stream of [false, true]) {
        const r = await once(key, (f) => {
          const client = new Anthropic({ apiKey: KEYS[key], baseURL: gw().url, maxRetries: 3, fetch: f });
          return stream
            ? client.messages.stream({ model: 'ant/m', max_tokens: 10, messages }).finalMessage()
            : client.messages.create({ model: 'ant/m', max_tokens: 10, messages });
        });
        expect(r.err).toBeInstanceOf(Anthropic.RateLimitError);
        expect(r.err.status).toBe(429);
        expect(r.err.error?.error?.type).toBe('rate_limit_error');
        expect(r.err.error?.error?.message).toContain(text);
        expect(r.err.headers.get('x-should-retry')).toBe('false');
        expect(r.err.headers.get('x-gateway-limit')).toBe(limit);
        expect(r.sent).toBe(1);
        expect(r.handled).toBe(1);
      }
      expect(up.calls.length).toBe(0);
    },
  );

  it(
    'control: the counting sees retries when the gateway ' + 'allows them (upstream 500 → x-should-retry: true)',
    async () => {
      up.setHandler(() => ({ kind: 'error', status: 500 }));
      const r = await once('t1', (f) =>
        new OpenAI({ apiKey: KEYS.t1, baseURL: `${gw().url}/v1`, maxRetries: 1, fetch: f }).chat.completions.create({
          model: 'oai/m',
          max_tokens: 10,
          messages,
        }),
      );
      expect(r.err).toBeInstanceOf(OpenAI.InternalServerError);
      expect(r.err.headers.get('x-should-retry')).toBe('true');
      await eventually(() => handled('t1') >= 2, 'both logged');
      expect(r.sent).toBe(2);
      expect(up.calls.length).toBe(2);
    },
  );
});

// ================================================================ counters settled after their expiry

/*
 * BUG (src/budget/plan.ts settlementOps + src/state/memory-store.ts apply; RedisStore's ADD_LUA
 * likewise): settlement ops carry no `expiresAt`, and a counter that has expired by the time a
 * request settles is re-created by the settlement WITHOUT any expiry. So:
 *  - a request still in flight when its scope's in-flight counter expires (INFLIGHT_TTL_MS, 15
 *    minutes without a new reservation) releases its slot into a fresh counter: -1, for ever;
 *    from then on max_concurrent N admits N + 1 (each such request adds one more);
 *  - a request that outlives its minute window's counter (expiresAt = window start + 2 min, so a
 *    stream of 70–130 s is enough, well within the default 10-minute total timeout) settles its
 *    tokens into a new key `rl:…:tok:<minute>` that never expires: it stays in memory and in the
 *    state file for good (in Redis: a key without TTL), one per such request.
 * Expected: settling an expired counter does nothing (or carries the reservation's expiresAt).
 * Reproduced with the embedded store's clock moved forward while the request is held upstream.
 */
describe('counters that expire while their request is still in flight', () => {
  async function gatewayWithClock(limits: string) {
    const clock = { now: Date.now() };
    const store = new MemoryStore({ now: () => clock.now });
    const gateway = createGateway(configOf(pricedGateway(up.url, limits)), { logger: silentLogger, store });
    const url = await gateway.listen(0, '127.0.0.1');
    return { clock, store, url, close: () => gateway.close(500) };
  }
  beforeEach(() => up.reset());

  // The in-flight counter outliving its TTL is covered in test/unit/budget/plan.test.ts (one clock for plan and store).

  it('settling tokens after the minute window expired must not create a counter that never expires', async () => {
    const g = await gatewayWithClock(`rate_limits:\n  - { id: tok, scope: { key: s1 }, tokens_per_minute: 100000 }`);
    try {
      await awayFromMinuteEdge();
      const key = `rl:tok:*:tok:${minuteEnd() - 60_000}`;
      const release = up.hold();
      const p = send(g.url, 'openai', 's1', BODY);
      await up.waitForCalls(1);
      expect(await g.store.get([key])).toEqual([E]);
      g.clock.now += 3 * 60_000; // the window's counter (kept 2 minutes) has expired meanwhile
      release();
      expect(await statusOf(p)).toBe(200);
      g.clock.now += 24 * 3600_000;
      // A day later no counter of that window may remain (it holds 17 - 37 = -20 for ever).
      expect(await g.store.get([key])).toEqual([0]);
    } finally {
      await g.close();
    }
  });
});
