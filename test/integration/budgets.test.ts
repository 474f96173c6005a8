/**
 * Budgets over real sockets: the cost of each request from the usage the upstream reports (as a
 * header on JSON responses, as an HTTP trailer on streams), each budget scope, several budgets at
 * once, refusals before any upstream call in the caller's format, warn mode, settlement (the
 * reservation replaced by the actual cost, whatever way the request ended) and 200 concurrent
 * requests against a small budget.
 *
 * Arithmetic (prices in test/helpers/limits-harness.ts, nano-USD per token: input 1000, output
 * 2000, cache read 500, cache write 1250). The standard request BODY is 80 bytes with
 * max_tokens 10, so it reserves R = ceil(80 / 3) × 1000 + 10 × 2000 = 47 000; the standard
 * upstream usage (12 in, 5 out) costs A = 22 000. Sequential requests settle one by one, so a
 * budget of `room(n)` = (n - 1)·A + R + A/2 serves exactly n of them and refuses the next.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/server/http.js';
import { createLogger } from '../../src/observe/logger.js';
import { StoreUnavailableError, type StateStore } from '../../src/state/store.js';
import {
  anthropicCostNano,
  bodyFor,
  cutStreamAfter,
  errorOf,
  eventually,
  headersFor,
  openaiCostNano,
  PATH,
  rawPost,
  requestLogs,
  reservation,
  send,
  sleep,
  usd,
  type Endpoint,
  type KeyName,
  NANO,
  DEFAULT_USAGE,
  PRICED,
} from '../helpers/limits-harness.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { pricedGateway } from '../helpers/gateway-config.js';
import { configOf, startGateway, type RunningGateway } from '../helpers/start-gateway.js';

const BODY = bodyFor('oai/m');
const R = reservation(BODY, 10).nano;
const A = openaiCostNano(DEFAULT_USAGE.openai);
/** A limit that serves exactly n sequential standard requests. */
const room = (n: number) => (n - 1) * A + R + A / 2;

let up: FakeUpstream;

beforeAll(async () => {
  up = await startFakeUpstream(PRICED);
});
afterAll(async () => {
  await up.close();
});

it('the arithmetic the tests rely on', () => {
  expect(Buffer.byteLength(BODY)).toBe(80);
  expect(R).toBe(47_000);
  expect(A).toBe(22_000);
  expect(Number.isInteger(room(2))).toBe(true);
});

/** A fresh gateway for one describe, with `extra` YAML (budgets, rate limits, state). */
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

async function spend(gw: RunningGateway, key: string): Promise<number> {
  return (await gw.gateway.runtime.store.get([key]))[0];
}

/**
 * Sends the standard request as `key` until one is refused (at most `max`); returns how many
 * were served and the refusal. Every served request must be a 200.
 */
async function serveUntilRefused(
  gw: RunningGateway,
  key: KeyName,
  max = 10,
  ep: Endpoint = 'openai',
): Promise<{ served: number; refusal: Response }> {
  for (let served = 0; served <= max; served++) {
    const res = await send(gw.url, ep, key, BODY);
    if (res.status !== 200) return { served, refusal: res };
    await res.arrayBuffer();
  }
  throw new Error(`no refusal after ${max} requests`);
}

/** Asserts a budget refusal and that it reached no upstream; returns the error message. */
async function expectBudgetRefusal(
  res: Response,
  ep: Endpoint,
  budgetId: string,
  callsBefore: number,
): Promise<string> {
  expect(res.status).toBe(429);
  expect(res.headers.get('x-should-retry')).toBe('false');
  expect(res.headers.get('x-gateway-limit')).toBe(`budget=${budgetId}`);
  expect(res.headers.get('x-gateway-cost-usd')).toBeNull();
  const err = errorOf(ep, await res.json());
  expect(err.type).toBe('rate_limit_error');
  if (ep === 'openai') expect(err.code).toBe('budget_exceeded');
  expect(err.message).toContain(`Budget "${budgetId}"`);
  // Refused before any upstream call (the store answers synchronously, nothing is in flight).
  expect(up.calls.length).toBe(callsBefore);
  return err.message;
}

// ================================================================ cost

describe('the cost of a request, from the usage the upstream reports', () => {
  const { gw } = gatewayFor('');
  /** OpenAI: 1000 prompt tokens of which 400 cached, 50 completion. */
  const OAI = { prompt: 1000, cached: 400, completion: 50 };
  /** Anthropic: 3000 input, 2000 cache read, 1000 cache write, 400 output. */
  const ANT = { input: 3000, cacheRead: 2000, cacheWrite: 1000, output: 400 };
  const cases = [
    { upstream: 'OpenAI', model: 'oai/m', nano: openaiCostNano(OAI), header: '0.000900000' },
    { upstream: 'Anthropic', model: 'ant/m', nano: anthropicCostNano(ANT), header: '0.006050' },
  ].flatMap((c) => (['openai', 'anthropic'] as Endpoint[]).map((ep) => ({ ...c, ep })));

  it('costs are what the prices say', () => {
    // 600 × 1000 + 400 × 500 + 50 × 2000; 3000 × 1000 + 2000 × 500 + 1000 × 1250 + 400 × 2000
    expect(cases[0].nano).toBe(900_000);
    expect(cases[2].nano).toBe(6_050_000);
  });

  it.each(cases)(
    '$upstream upstream, $ep endpoint, JSON: x-gateway-cost-usd header',
    async ({ model, ep, nano, header }) => {
      up.usage.openai = { ...OAI };
      up.usage.anthropic = { ...ANT };
      const res = await rawPost(gw().url + PATH[ep], headersFor(ep, 't1'), bodyFor(model));
      expect(res.status, res.text).toBe(200);
      expect(res.headers['x-gateway-cost-usd']).toBe(header);
      expect(Math.round(Number(header) * 1e9)).toBe(nano);
      expect(res.trailers).toEqual({});
      const line = requestLogs(gw().logs).find((l) => l.correlation_id === res.headers['x-correlation-id']);
      expect(line.cost_usd).toBe(nano / 1e9);
    },
  );

  it.each(cases)(
    '$upstream upstream, $ep endpoint, stream: the cost arrives as an HTTP trailer',
    async ({ model, ep, nano, header }) => {
      up.usage.openai = { ...OAI };
      up.usage.anthropic = { ...ANT };
      const res = await rawPost(gw().url + PATH[ep], headersFor(ep, 't1'), bodyFor(model, { stream: true }));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toContain('text/event-stream');
      expect(res.headers['transfer-encoding']).toBe('chunked');
      expect(res.headers.trailer).toBe('x-gateway-cost-usd');
      expect(res.headers['x-gateway-cost-usd']).toBeUndefined();
      // The whole stream came before the trailer.
      expect(res.text).toContain(ep === 'openai' ? '[DONE]' : 'message_stop');
      expect(res.trailers['x-gateway-cost-usd']).toBe(header);
      expect(Math.round(Number(res.trailers['x-gateway-cost-usd']) * 1e9)).toBe(nano);
    },
  );

  it('a request no budget or rate limit applies to still gets its cost header', async () => {
    const res = await send(gw().url, 'openai', 's1', BODY);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-cost-usd')).toBe('0.000022000');
    expect(res.headers.get('x-ratelimit-limit-requests')).toBeNull();
  });
});

// ================================================================ scopes

describe('budget scope: key', () => {
  const { gw } = gatewayFor(
    `budgets:\n  - { id: key-t1, scope: { key: t1 }, limit_usd: ${usd(room(2))}, period: total }`,
  );

  it('limits that key alone, refusing with 429 before any upstream call, in the OpenAI format', async () => {
    const { served, refusal } = await serveUntilRefused(gw(), 't1');
    expect(served).toBe(2);
    const message = await expectBudgetRefusal(refusal, 'openai', 'key-t1', 2);
    expect(message).toBe(
      `Budget "key-t1" (key "t1", total) would be exceeded: $0.000044 of $${usd(room(2))} used, this request may ` +
        `cost up to $0.000047; it never resets (period total).`,
    );
    // A total budget never resets: no retry-after.
    expect(refusal.headers.get('retry-after')).toBeNull();
    // The other keys are not limited by it.
    for (const k of ['t2', 's1'] as const)
      for (let i = 0; i < 3; i++) expect((await send(gw().url, 'openai', k, BODY)).status).toBe(200);
    expect(await spend(gw(), 'budget:key-t1:*:total')).toBe(2 * A);
  });

  it('refuses on /v1/messages in the Anthropic format', async () => {
    const res = await send(gw().url, 'anthropic', 't1', BODY);
    const message = await expectBudgetRefusal(res, 'anthropic', 'key-t1', 0);
    expect(message).toMatch(
      new RegExp(
        String.raw`^Budget "key-t1" \(key "t1", total\) would be exceeded: \$0\.000044 of \$[\d.]+ used, ` +
          String.raw`this request may cost up to \$0\.000047; it never resets \(period total\)\.$`,
      ),
    );
  });

  it('refuses streams too, before anything is streamed', async () => {
    const res = await fetch(gw().url + PATH.openai, {
      method: 'POST',
      headers: headersFor('openai', 't1'),
      body: bodyFor('oai/m', { stream: true }),
    });
    expect(res.headers.get('content-type')).toContain('application/json');
    // (a streaming body is 14 bytes longer, so its reservation is larger than R)
    await expectBudgetRefusal(res, 'openai', 'key-t1', 0);
  });
});

describe('budget scope: role (one counter shared by its keys)', () => {
  const { gw } = gatewayFor(
    `budgets:\n  - { id: team-b, scope: { role: team }, limit_usd: ${usd(room(3))}, period: total }`,
  );

  it('spend by any key of the role counts for all of them', async () => {
    for (const k of ['t1', 't2', 't1'] as const) expect((await send(gw().url, 'openai', k, BODY)).status).toBe(200);
    for (const k of ['t1', 't2'] as const) {
      const message = await expectBudgetRefusal(await send(gw().url, 'openai', k, BODY), 'openai', 'team-b', 3);
      expect(message).toContain('(role "team", total)');
      expect(message).toContain('$0.000066 of $');
    }
    expect((await send(gw().url, 'anthropic', 's1', BODY)).status).toBe(200);
    expect(await spend(gw(), 'budget:team-b:*:total')).toBe(3 * A);
  });
});

describe('budget scope: each_key_of_role (a separate counter per key)', () => {
  const { gw } = gatewayFor(
    `budgets:\n  - { id: per-key, scope: { each_key_of_role: team }, limit_usd: ${usd(room(2))}, period: total }`,
  );

  it('each key of the role has its own allowance; other roles are not limited', async () => {
    const a = await serveUntilRefused(gw(), 't1');
    expect(a.served).toBe(2);
    expect(await expectBudgetRefusal(a.refusal, 'openai', 'per-key', 2)).toContain(
      '(key "t1" (each key of role "team"), total)',
    );
    const b = await serveUntilRefused(gw(), 't2', 10, 'anthropic');
    expect(b.served).toBe(2);
    expect(await expectBudgetRefusal(b.refusal, 'anthropic', 'per-key', 4)).toContain(
      '(key "t2" (each key of role "team"), total)',
    );
    for (let i = 0; i < 3; i++) expect((await send(gw().url, 'openai', 's1', BODY)).status).toBe(200);
    expect(await spend(gw(), 'budget:per-key:t1:total')).toBe(2 * A);
    expect(await spend(gw(), 'budget:per-key:t2:total')).toBe(2 * A);
    expect(await spend(gw(), 'budget:per-key:s1:total')).toBe(0);
  });
});

describe('budget scope: global', () => {
  const { gw } = gatewayFor(
    `budgets:\n  - { id: everyone, scope: { global: true }, limit_usd: ${usd(room(3))}, period: total }`,
  );

  it('every key and role shares it', async () => {
    for (const k of ['t1', 's1', 't2'] as const) expect((await send(gw().url, 'openai', k, BODY)).status).toBe(200);
    for (const k of ['t1', 't2', 's1'] as const) {
      expect(await expectBudgetRefusal(await send(gw().url, 'openai', k, BODY), 'openai', 'everyone', 3)).toContain(
        '(global, total)',
      );
    }
    expect(await spend(gw(), 'budget:everyone:*:total')).toBe(3 * A);
  });
});

describe('several budgets at once: all must allow, and a refusal reserves nothing anywhere', () => {
  const { gw } = gatewayFor(`budgets:
  - { id: per-key, scope: { each_key_of_role: team }, limit_usd: ${usd(room(2))}, period: total }
  - { id: team-b, scope: { role: team }, limit_usd: ${usd(room(3))}, period: total }
  - { id: everyone, scope: { global: true }, limit_usd: ${usd(room(4))}, period: total }
  - { id: generous, scope: { key: t1 }, limit_usd: ${usd(room(100))}, period: total }`);

  it('the budget that would be exceeded is the one named', async () => {
    const url = gw().url;
    expect((await send(url, 'openai', 't1', BODY)).status).toBe(200);
    expect((await send(url, 'openai', 't1', BODY)).status).toBe(200);
    await expectBudgetRefusal(await send(url, 'openai', 't1', BODY), 'openai', 'per-key', 2); // t1's own 3rd
    expect((await send(url, 'openai', 't2', BODY)).status).toBe(200); // team: 3 of 3
    // t2 has room, the team has not
    await expectBudgetRefusal(await send(url, 'openai', 't2', BODY), 'openai', 'team-b', 3);
    expect((await send(url, 'openai', 's1', BODY)).status).toBe(200); // global: 4 of 4
    await expectBudgetRefusal(await send(url, 'anthropic', 's1', BODY), 'anthropic', 'everyone', 4);
    await expectBudgetRefusal(await send(url, 'openai', 't1', BODY), 'openai', 'per-key', 4);

    const store = gw().gateway.runtime.store;
    expect(
      await store.get([
        'budget:per-key:t1:total',
        'budget:per-key:t2:total',
        'budget:team-b:*:total',
        'budget:everyone:*:total',
        'budget:generous:*:total',
      ]),
    ).toEqual([2 * A, A, 3 * A, 4 * A, 2 * A]);
  });
});

// ================================================================ periods

/** Next UTC midnight, Monday, and the next month's 1st in Tokyo (UTC+9, no DST), computed by hand. */
function resets(now: number) {
  const d = new Date(now);
  const weekday = d.getUTCDay() || 7;
  const tokyo = new Date(now + 9 * 3600_000);
  return {
    day: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1),
    week: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - (weekday - 1) + 7),
    month: Date.UTC(tokyo.getUTCFullYear(), tokyo.getUTCMonth() + 1, 1) - 9 * 3600_000,
  };
}

describe('calendar periods: the refusal says when the budget resets', () => {
  const { gw } = gatewayFor(`budgets:
  - { id: daily, scope: { key: t1 }, limit_usd: ${usd(room(1))}, period: day }
  - { id: weekly, scope: { key: s1 }, limit_usd: ${usd(room(1))}, period: week, timezone: UTC }
  - { id: monthly, scope: { key: t2 }, limit_usd: ${usd(room(1))}, period: month, timezone: Asia/Tokyo }`);

  it.each([
    { key: 't1' as const, id: 'daily', period: 'day' as const },
    { key: 's1' as const, id: 'weekly', period: 'week' as const },
    { key: 't2' as const, id: 'monthly', period: 'month' as const },
  ])('$period', async ({ key, id, period }) => {
    // Not across a period boundary (the counter would start again).
    const left = resets(Date.now())[period] - Date.now();
    if (left < 10_000) await sleep(left + 1_000);
    const { served, refusal } = await serveUntilRefused(gw(), key);
    const now = Date.now();
    expect(served).toBe(1);
    const reset = resets(now)[period];
    const message = await expectBudgetRefusal(refusal, 'openai', id, 1);
    expect(message).toContain(`(key "${key}", ${period})`);
    expect(message).toContain(`it resets at ${new Date(reset).toISOString()}.`);
    // retry-after only when the period ends within the hour.
    const retryAfter = refusal.headers.get('retry-after');
    if (reset - now > 3600_000 + 5_000) expect(retryAfter).toBeNull();
    else if (reset - now < 3600_000 - 5_000) {
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(Math.floor((reset - now) / 1000));
      expect(Number(retryAfter)).toBeLessThanOrEqual(3600);
    }
  });
});

// ================================================================ warn mode

describe('warn mode', () => {
  const { gw } = gatewayFor(`budgets:
  - { id: soft, scope: { global: true }, limit_usd: ${usd(room(2))}, period: total, mode: warn }
  - { id: soft-t2, scope: { key: t2 }, limit_usd: ${usd(R / 2)}, period: total, mode: warn }
  - { id: hard, scope: { key: t1 }, limit_usd: ${usd(room(100))}, period: total }`);

  it('serves past the limit, adding x-gateway-budget-warning once over it, and keeps counting', async () => {
    const warnings: Array<string | null> = [];
    for (let i = 0; i < 5; i++) {
      const res = await send(gw().url, 'openai', 't1', BODY);
      expect(res.status).toBe(200);
      warnings.push(res.headers.get('x-gateway-budget-warning'));
    }
    // A request warns when what is spent plus its own reservation is past the limit.
    expect(warnings).toEqual([null, null, 'soft', 'soft', 'soft']);
    expect(up.calls.length).toBe(5);
    expect(await spend(gw(), 'budget:soft:*:total')).toBe(5 * A);
    const warned = gw()
      .logs.map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'budget over its limit (warn mode)');
    expect(warned.length).toBeGreaterThanOrEqual(3);
    expect(warned.at(-1).budgets).toEqual(['soft']);
  });

  it('names every warn budget that is over, on both endpoints', async () => {
    const res = await send(gw().url, 'anthropic', 't2', BODY);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-budget-warning')).toBe('soft, soft-t2');
  });
});

// ================================================================ settlement

describe('settlement: the reservation is replaced by the actual cost', () => {
  const { gw } = gatewayFor(`budgets:\n  - { id: all, scope: { global: true }, limit_usd: 1, period: total }`);
  const KEY = 'budget:all:*:total';

  it('N requests spend N × their actual cost, whatever was reserved', async () => {
    const before = await spend(gw(), KEY);
    for (let i = 0; i < 4; i++)
      expect((await send(gw().url, i % 2 ? 'anthropic' : 'openai', 't1', BODY)).status).toBe(200);
    expect(await spend(gw(), KEY)).toBe(before + 4 * A);
    // Different usage, different cost: reserved R each time, recorded exactly what was used.
    up.usage.openai = { prompt: 20, cached: 8, completion: 9 };
    up.usage.anthropic = { input: 7, cacheRead: 3, cacheWrite: 2, output: 4 };
    expect((await send(gw().url, 'openai', 't2', BODY)).status).toBe(200);
    expect((await send(gw().url, 'openai', 't2', bodyFor('ant/m'))).status).toBe(200);
    expect(openaiCostNano(up.usage.openai)).toBe(34_000);
    expect(anthropicCostNano(up.usage.anthropic)).toBe(19_000);
    expect(await spend(gw(), KEY)).toBe(before + 4 * A + 34_000 + 19_000);
  });

  it('while a request is in flight its reservation is held; at the end only its cost remains', async () => {
    const before = await spend(gw(), KEY);
    const release = up.hold();
    const pending = send(gw().url, 'openai', 't1', BODY);
    await up.waitForCalls(1);
    expect(await spend(gw(), KEY)).toBe(before + R);
    release();
    expect((await pending).status).toBe(200);
    expect(await spend(gw(), KEY)).toBe(before + A);
  });

  it.each([
    { what: 'HTTP 500', reply: { kind: 'error', status: 500 } as const, status: 500 },
    { what: 'a connection reset', reply: { kind: 'drop' } as const, status: 502 },
  ])('an upstream failure ($what) spends nothing, on both endpoints', async ({ reply, status }) => {
    const before = await spend(gw(), KEY);
    up.setHandler(() => reply);
    for (const ep of ['openai', 'anthropic'] as const) {
      for (const model of ['oai/m', 'ant/m']) {
        const res = await send(gw().url, ep, 't1', bodyFor(model));
        expect(res.status).toBe(status);
        expect(res.headers.get('x-gateway-cost-usd')).toBeNull();
        expect(await spend(gw(), KEY)).toBe(before);
      }
    }
    expect(up.calls.length).toBe(4);
  });

  it('an upstream stream that breaks after message_start: the usage seen so far counts', async () => {
    const before = await spend(gw(), KEY);
    up.usage.anthropic = { input: 3000, cacheRead: 2000, cacheWrite: 1000, output: 400 };
    // message_start, ping, content_block_start and the first text delta, then the socket is gone.
    up.setHandler(() => ({ kind: 'drop', after: 4 }));
    const res = await rawPost(
      gw().url + PATH.anthropic,
      headersFor('anthropic', 't1'),
      bodyFor('ant/m', { stream: true }),
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain('event: error');
    // message_start reported the input side and output_tokens 1.
    const seen = anthropicCostNano({ ...up.usage.anthropic, output: 1 });
    expect(res.trailers['x-gateway-cost-usd']).toBe((seen / 1e9).toFixed(6));
    expect(await spend(gw(), KEY)).toBe(before + seen);
  });

  it(
    'a client cutting an OpenAI-format stream before its usage chunk: the prompt and the relayed output are charged, ' +
      '' +
      '' +
      '' +
      'counted locally',
    async () => {
      // OpenAI streams report usage only in their last chunk, so none has been seen when the caller
      // leaves; the provider read the prompt and generated what was relayed: both count, locally.
      const before = await spend(gw(), KEY);
      const body = bodyFor('oai/m', { stream: true });
      up.setHandler(() => ({ kind: 'hang', after: 2 }));
      const cut = await cutStreamAfter(gw().url + PATH.openai, headersFor('openai', 't1'), body, '"content":"o"');
      expect(cut.status).toBe(200);
      await eventually(() => up.open === 0, 'the upstream call is aborted');
      await eventually(() => requestLogs(gw().logs).some((l) => l.client_aborted === true), 'the request is logged');
      const line = requestLogs(gw().logs)
        .filter((l) => l.client_aborted === true)
        .at(-1);
      expect(line.input_tokens).toBeGreaterThan(0);
      expect(line.input_tokens).toBeLessThan(Math.ceil(Buffer.byteLength(body) / 3));
      expect(line.output_tokens).toBeGreaterThanOrEqual(1);
      const charged = line.input_tokens * NANO.input + line.output_tokens * NANO.output;
      expect(line.cost_usd).toBe(charged / 1e9);
      await eventually(async () => (await spend(gw(), KEY)) === before + charged, 'settled at the counted usage');
    },
  );

  it.each([
    { ep: 'anthropic' as const, marker: '"text":"o"', how: 'pass-through' },
    { ep: 'openai' as const, marker: '"content":"o"', how: 'translated' },
  ])(
    'a client cutting an Anthropic-upstream stream ($how, $ep endpoint): the usage of message_start is charged',
    async ({ ep, marker }) => {
      const before = await spend(gw(), KEY);
      up.usage.anthropic = { input: 3000, cacheRead: 2000, cacheWrite: 1000, output: 400 };
      // message_start, ping, content_block_start and the first text delta, then silence.
      up.setHandler(() => ({ kind: 'hang', after: 4 }));
      const cut = await cutStreamAfter(
        gw().url + PATH[ep],
        headersFor(ep, 't1'),
        bodyFor('ant/m', { stream: true }),
        marker,
      );
      expect(cut.status).toBe(200);
      const seen = anthropicCostNano({ ...up.usage.anthropic, output: 1 });
      expect(seen).toBe(5_252_000);
      await eventually(() => up.open === 0, 'the upstream call is aborted');
      await eventually(
        async () => (await spend(gw(), KEY)) !== before + reservation(bodyFor('ant/m', { stream: true }), 10).nano,
        'settled',
      );
      expect(await spend(gw(), KEY)).toBe(before + seen);
    },
  );
});

// ================================================================ concurrency

describe('200 concurrent requests against a small budget', () => {
  /** 20 reservations fit, not 21. */
  const L = 20 * R + R / 2;
  const { gw } = gatewayFor(`budgets:
  - { id: small-team, scope: { role: team }, limit_usd: ${usd(L)}, period: total }
  - { id: small-s1, scope: { key: s1 }, limit_usd: ${usd(L)}, period: total }`);

  it(
    'with replies held, exactly floor(limit / reservation) are sent upstream; the rest get 429 at once; spend stays ' +
      'within the limit',
    async () => {
      const release = up.hold();
      let refused = 0;
      const all = Array.from({ length: 200 }, (_, i) =>
        send(gw().url, i % 2 ? 'anthropic' : 'openai', i % 3 ? 't1' : 't2', BODY).then(async (res) => {
          if (res.status === 429) {
            refused++;
            expect(res.headers.get('x-gateway-limit')).toBe('budget=small-team');
          }
          await res.arrayBuffer();
          return res.status;
        }),
      );
      try {
        await up.waitForCalls(20);
        await eventually(() => refused === 180, '180 refusals');
        // The store holds exactly the 20 reservations: nothing more can get in.
        expect(await spend(gw(), 'budget:small-team:*:total')).toBe(20 * R);
        expect(up.calls.length).toBe(20);
      } finally {
        release();
      }
      const statuses = await Promise.all(all);
      expect(statuses.filter((s) => s === 200).length).toBe(20);
      expect(statuses.filter((s) => s === 429).length).toBe(180);
      expect(up.calls.length).toBe(20);
      const spent = await spend(gw(), 'budget:small-team:*:total');
      expect(spent).toBe(20 * A);
      expect(spent).toBeLessThanOrEqual(L);

      // Settled at their actual cost, the budget has room again: sequentially, until the next
      // reservation would not fit.
      const more = await serveUntilRefused(gw(), 't1', 100);
      expect(20 + more.served).toBe(Math.floor((L - R) / A) + 1);
      expect(await spend(gw(), 'budget:small-team:*:total')).toBeLessThanOrEqual(L);
    },
  );

  it('free-running (replies not held): never more spend than the limit, and every served request counted', async () => {
    const all = await Promise.all(
      Array.from({ length: 200 }, () =>
        send(gw().url, 'openai', 's1', BODY).then(async (res) => {
          await res.arrayBuffer();
          return res.status;
        }),
      ),
    );
    const served = all.filter((s) => s === 200).length;
    expect(served + all.filter((s) => s === 429).length).toBe(200);
    const spent = await spend(gw(), 'budget:small-s1:*:total');
    expect(spent).toBe(served * A);
    expect(spent).toBeLessThanOrEqual(L);
    // At least as many as fit as reservations; at most as many as fit settled one by one.
    expect(served).toBeGreaterThanOrEqual(20);
    expect(served).toBeLessThanOrEqual(Math.floor((L - R) / A) + 1);
    expect(up.calls.length).toBe(served);
  });
});

describe('usage above the estimate (the documented worst case)', () => {
  const { gw } = gatewayFor(
    `budgets:\n  - { id: tight, scope: { global: true }, limit_usd: ${usd(R + 1000)}, period: total }`,
  );

  it(
    'a request whose reservation fits is served and recorded in full even past the limit; ' + 'the next is refused',
    async () => {
      // The body-size estimate (27 input tokens) is far below what this upstream reports (1000).
      up.usage.openai = { prompt: 1000, cached: 0, completion: 5 };
      expect((await send(gw().url, 'openai', 't1', BODY)).status).toBe(200);
      const spent = await spend(gw(), 'budget:tight:*:total');
      expect(spent).toBe(1000 * 1000 + 5 * 2000);
      expect(spent).toBeGreaterThan(R + 1000);
      await expectBudgetRefusal(await send(gw().url, 'openai', 't1', BODY), 'openai', 'tight', 1);
    },
  );
});

// ================================================================ store down

describe('the state store unavailable', () => {
  const down: StateStore = {
    kind: 'memory',
    reserve: async () => {
      throw new StoreUnavailableError('test store is down');
    },
    add: async () => {
      throw new StoreUnavailableError('test store is down');
    },
    get: async () => {
      throw new StoreUnavailableError('test store is down');
    },
    ping: async () => {
      throw new StoreUnavailableError('test store is down');
    },
    putDoc: async () => {
      throw new StoreUnavailableError('test store is down');
    },
    getDoc: async () => {
      throw new StoreUnavailableError('test store is down');
    },
    deleteDoc: async () => {
      throw new StoreUnavailableError('test store is down');
    },
    close: async () => undefined,
  };
  const budgets = `budgets:\n  - { id: all, scope: { global: true }, limit_usd: 1, period: total }`;
  beforeEach(() => up.reset());

  it.each([
    { policy: 'fail_closed', status: 503 },
    { policy: 'fail_open', status: 200 },
  ])('$policy', async ({ policy, status }) => {
    const logs: string[] = [];
    const config = configOf(pricedGateway(up.url, `${budgets}\nstate: { on_unavailable: ${policy} }`));
    const gateway = createGateway(config, {
      logger: createLogger({ level: 'debug', write: (l) => logs.push(l) }),
      store: down,
    });
    const url = await gateway.listen(0, '127.0.0.1');
    try {
      const res = await send(url, 'openai', 't1', BODY);
      expect(res.status).toBe(status);
      if (status === 503) {
        const body = await res.json();
        expect(body.error.code).toBe('state_store_unavailable');
        expect(up.calls.length).toBe(0);
      } else {
        expect(res.headers.get('x-gateway-cost-usd')).toBe('0.000022000');
        expect(up.calls.length).toBe(1);
        const msgs = logs.map((l) => JSON.parse(l).msg);
        expect(msgs).toContain('state store unavailable: serving without budget and rate-limit checks (fail_open)');
        expect(msgs).toContain('state store unreachable: settlement kept to record later');
        expect(gateway.runtime.reconcile.size).toBe(1);
      }
    } finally {
      await gateway.close(500);
    }
  });
});
