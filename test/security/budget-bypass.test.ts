/**
 * Budgets cannot be bypassed, over real sockets: what a request reserves is a true upper bound of
 * what the upstream can bill. A request without an output cap gets one (OpenAI
 * `max_completion_tokens`, which reasoning models require; Anthropic `max_tokens`), `n` multiplies
 * the reservation, a thinking budget the translation adds is reserved and sent inside
 * `max_tokens`, web searches reported in usage are priced, an absurd usage report cannot make a
 * counter NaN or infinite, and a concurrent burst of mixed requests stays within a $1 budget.
 *
 * The mock upstream is strict like the real APIs: it never generates past the output cap it is
 * sent (per choice), generates NATURAL tokens per choice when it is sent none, refuses
 * `max_tokens` on a reasoning model, and refuses a thinking budget not below `max_tokens`.
 * Prices: output $100 per million tokens (input free), so 10,000 tokens cost $1.00 and the
 * models' 4096-token output limit $0.4096.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { budgetCounterKey } from '../../src/budget/plan.js';
import {
  startFakeUpstream,
  type Handler,
  type Reply,
  type FakeUpstream,
  type UpstreamCall,
} from '../helpers/fake-upstream.js';
import { loadTestConfig, startGateway, type RunningGateway } from '../helpers/start-gateway.js';
import { ANT_KEY, OAI_KEY, post, type Endpoint } from './harness.js';

const SMALL = 'budget-bypass-key-small-01';
const BIG = 'budget-bypass-key-big-0002';
/** Tokens per choice an upstream generates when no cap stops it (its own limit, above the configured one). */
const NATURAL = 10_000;
/** nano-USD per output token ($100 per million). */
const NANO_PER_OUT = 100_000;
const LIMIT_NANO = 1_000_000_000;

/** `webSearchPrice`: adds model an/search with `price.web_search` (only where a test needs it). */
function configYaml(url: string, webSearchPrice?: number): string {
  const price = '{ input: 0, output: 100 }';
  return `
server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 1000 }
routing: { retry: { max_retries: 0 }, cooldown: { failures: 100000, window_ms: 30000, cooldown_ms: 1 } }
providers:
  oa:
    api: openai
    base_url: ${url}/v1
    api_key: ${OAI_KEY}
    models:
      m: { context_window: 128000, max_output_tokens: 4096, upstream_name: gpt-4o-mini, price: ${price} }
      o: { context_window: 128000, max_output_tokens: 4096, upstream_name: o3-mini, price: ${price} }
  an:
    api: anthropic
    base_url: ${url}
    api_key: ${ANT_KEY}
    models:
      m: { context_window: 200000, max_output_tokens: 4096, upstream_name: claude-test, price: ${price} }
      think: { context_window: 200000, upstream_name: claude-think, price: ${price} }
${
  webSearchPrice === undefined
    ? ''
    : `      search: { context_window: 200000, max_output_tokens: 4096, ` +
      `upstream_name: claude-test, price: { input: 0, output: 100, web_search: ${webSearchPrice} } }\n`
}roles:
  dev: { models: ["*"] }
keys:
  - { id: small, key: ${SMALL}, role: dev }
  - { id: big, key: ${BIG}, role: dev }
budgets:
  - { id: one-dollar, scope: { key: small }, limit_usd: 1, period: total }
  - { id: roomy, scope: { key: big }, limit_usd: 1000, period: total }
`;
}

function oaiError(message: string, param: string): Reply {
  return { kind: 'json', status: 400, body: { error: { message, type: 'invalid_request_error', param, code: null } } };
}
function antError(message: string): Reply {
  return { kind: 'json', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message } } };
}
const isInt = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1;

/** The strict upstream (see the file comment); `usage` overrides what it reports. */
function strictUpstream(o: { delayMs?: number; usage?: (req: UpstreamCall) => object | undefined } = {}): Handler {
  return async (req) => {
    if (o.delayMs) await new Promise((r) => setTimeout(r, o.delayMs));
    const b = req.body ?? {};
    if (req.path.endsWith('/chat/completions')) {
      if (b.max_tokens !== undefined && b.max_completion_tokens !== undefined)
        return oaiError('Set max_tokens or max_completion_tokens, not both.', 'max_tokens');
      if (/^o\d/.test(b.model) && b.max_tokens !== undefined) {
        return oaiError(
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
          'max_tokens',
        );
      }
      const n = b.n ?? 1;
      if (!isInt(n) || n > 128) return oaiError('n must be between 1 and 128.', 'n');
      const cap = b.max_completion_tokens ?? b.max_tokens ?? Infinity;
      const out = Math.min(cap, NATURAL) * n;
      const usage = o.usage?.(req) ?? { prompt_tokens: 10, completion_tokens: out, total_tokens: 10 + out };
      return {
        kind: 'json',
        body: {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1700000000,
          model: b.model,
          choices: Array.from({ length: n }, (_, i) => ({
            index: i,
            message: { role: 'assistant', content: 'ok' },
            finish_reason: 'length',
          })),
          usage,
        },
      };
    }
    if (!isInt(b.max_tokens)) return antError('max_tokens: Field required');
    const thinking = b.thinking?.type === 'enabled';
    if (
      thinking &&
      !(isInt(b.thinking.budget_tokens) && b.thinking.budget_tokens >= 1024 && b.thinking.budget_tokens < b.max_tokens)
    ) {
      return antError('`max_tokens` must be greater than `thinking.budget_tokens`');
    }
    // Thinking spends its budget, then the answer fills the rest: the worst case is the whole max_tokens.
    const out = thinking ? b.max_tokens : Math.min(b.max_tokens, NATURAL);
    const searchTool = (b.tools ?? []).find(
      (t: { type?: string }) => typeof t.type === 'string' && t.type.startsWith('web_search'),
    );
    const usage = o.usage?.(req) ?? {
      input_tokens: 10,
      output_tokens: out,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      ...(searchTool ? { server_tool_use: { web_search_requests: searchTool.max_uses ?? 5 } } : {}),
    };
    return {
      kind: 'json',
      body: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: b.model,
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'max_tokens',
        stop_sequence: null,
        usage,
      },
    };
  };
}

let up: FakeUpstream | undefined;
let gw: RunningGateway | undefined;

async function start(handler: Handler = strictUpstream(), webSearchPrice?: number): Promise<RunningGateway> {
  up = await startFakeUpstream({ handler: handler });
  gw = await startGateway(loadTestConfig(configYaml(up.url, webSearchPrice)));
  return gw;
}
afterEach(async () => {
  await gw?.close();
  await up?.close();
  gw = undefined;
  up = undefined;
});

function send(ep: Endpoint, key: string, body: object): Promise<Response> {
  return post(gw!.url, ep, JSON.stringify(body), { authorization: `Bearer ${key}` });
}
const hi = [{ role: 'user', content: 'hi' }];

/** nano-USD from the cost header. */
function costOf(res: Response): number {
  return Math.round(Number(res.headers.get('x-gateway-cost-usd')) * 1e9);
}

async function spend(key: 'one-dollar' | 'roomy'): Promise<number> {
  return (await gw!.gateway.runtime.store.get([budgetCounterKey(key, '*', 'total')]))[0];
}

/** The budget counter once it equals `want` (settlement is written after the response), else its last value. */
async function settled(key: 'one-dollar' | 'roomy', want: number): Promise<number> {
  const until = Date.now() + 5000;
  for (;;) {
    const v = await spend(key);
    if (v === want || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function expectBudgetRefusal(res: Response): Promise<void> {
  const text = await res.text();
  expect(res.status, text).toBe(429);
  expect(res.headers.get('x-gateway-limit')).toBe('budget=one-dollar');
}

describe('no output cap from the caller: the gateway sends one, the reservation bounds the spend', () => {
  it('OpenAI pass-through gets max_completion_tokens (the model limit), also on a reasoning model', async () => {
    await start();
    for (const model of ['oa/m', 'oa/o']) {
      const res = await send('openai', BIG, { model, messages: hi });
      expect(res.status, await res.text()).toBe(200);
      const got = up!.received.at(-1)!;
      expect(got.body.max_completion_tokens).toBe(4096);
      expect(got.body.max_tokens).toBeUndefined();
      expect(costOf(res)).toBe(4096 * NANO_PER_OUT);
    }
  });

  it('translated to Anthropic: max_tokens is the model limit', async () => {
    await start();
    const res = await send('openai', BIG, { model: 'an/m', messages: hi });
    expect(res.status, await res.text()).toBe(200);
    expect(up!.received[0].body.max_tokens).toBe(4096);
    expect(costOf(res)).toBe(4096 * NANO_PER_OUT);
  });

  it('a concurrent burst of uncapped requests stays within $1', async () => {
    await start(strictUpstream({ delayMs: 100 }));
    const all = await Promise.all(
      Array.from({ length: 6 }, (_, i) => send('openai', SMALL, { model: i % 2 ? 'oa/o' : 'oa/m', messages: hi })),
    );
    let charged = 0;
    for (const res of all) {
      if (res.status === 200) charged += costOf(res);
      else await expectBudgetRefusal(res);
    }
    const spent = await settled('one-dollar', charged);
    expect(spent, `spent $${spent / 1e9} of $1`).toBeLessThanOrEqual(LIMIT_NANO);
    expect(spent).toBe(charged);
    expect(all.filter((r) => r.status === 200).length).toBe(2);
  });
});

describe('n multiplies the reservation', () => {
  it('n: 128 × max_tokens 100 ($1.28) is refused before the upstream; n: 8 is reserved and billed ×8', async () => {
    await start();
    await expectBudgetRefusal(await send('openai', SMALL, { model: 'oa/m', max_tokens: 100, n: 128, messages: hi }));
    expect(up!.received).toHaveLength(0);
    const res = await send('openai', SMALL, { model: 'oa/m', max_tokens: 100, n: 8, messages: hi });
    expect(res.status, await res.text()).toBe(200);
    expect(costOf(res)).toBe(800 * NANO_PER_OUT);
    // Uncapped, n: 2 → 2 × 4096 tokens reserved ($0.8192): fits next to the $0.08 spent.
    const uncapped = await send('openai', SMALL, { model: 'oa/m', n: 2, messages: hi });
    expect(uncapped.status, await uncapped.text()).toBe(200);
    expect(up!.received.at(-1)!.body).toMatchObject({ n: 2, max_completion_tokens: 4096 });
    // Another would not fit.
    await expectBudgetRefusal(await send('openai', SMALL, { model: 'oa/m', n: 2, messages: hi }));
    const spent = await settled('one-dollar', 800 * NANO_PER_OUT + 8192 * NANO_PER_OUT);
    expect(spent).toBe(800 * NANO_PER_OUT + 8192 * NANO_PER_OUT);
  });

  it('n > 1 cannot be translated (400 naming it), so it cannot escape the reservation', async () => {
    await start();
    const res = await send('openai', SMALL, { model: 'an/m', max_tokens: 100, n: 4, messages: hi });
    expect(res.status).toBe(400);
    expect((await res.json()).error.param).toBe('n');
    expect(up!.received).toHaveLength(0);
  });
});

describe('a thinking budget added by translation is reserved and sent inside max_tokens', () => {
  it('reasoning_effort high without a cap: 4096 + 16384 tokens reserved ($2.05), refused by a $1 budget', async () => {
    await start();
    await expectBudgetRefusal(
      await send('openai', SMALL, { model: 'an/think', reasoning_effort: 'high', messages: hi }),
    );
    expect(up!.received).toHaveLength(0);
    const res = await send('openai', BIG, { model: 'an/think', reasoning_effort: 'high', messages: hi });
    expect(res.status, await res.text()).toBe(200);
    expect(up!.received[0].body).toMatchObject({
      max_tokens: 4096 + 16384,
      thinking: { type: 'enabled', budget_tokens: 16384 },
    });
    expect(costOf(res)).toBe((4096 + 16384) * NANO_PER_OUT);
  });

  it("the caller's max_tokens stays the answer's room: max_tokens 100 + high → 16484 sent and reserved", async () => {
    await start();
    const res = await send('openai', BIG, {
      model: 'an/think',
      max_tokens: 100,
      reasoning_effort: 'high',
      messages: hi,
    });
    expect(res.status, await res.text()).toBe(200);
    expect(up!.received[0].body).toMatchObject({ max_tokens: 16484, thinking: { budget_tokens: 16384 } });
    expect(await settled('roomy', 16484 * NANO_PER_OUT)).toBe(16484 * NANO_PER_OUT);
    // Reserved in full: a $1 budget refuses it ($1.6484).
    await expectBudgetRefusal(
      await send('openai', SMALL, { model: 'an/think', max_tokens: 100, reasoning_effort: 'high', messages: hi }),
    );
  });
});

describe('web searches reported in usage are priced', () => {
  it('Anthropic list price ($10 / 1000) by default', async () => {
    await start();
    const tools = [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }];
    const plain = await send('anthropic', BIG, { model: 'an/m', max_tokens: 10, tools, messages: hi });
    expect(plain.status, await plain.text()).toBe(200);
    expect(costOf(plain)).toBe(10 * NANO_PER_OUT + 3 * 10_000_000);
    // Translated to OpenAI format, the caller sees the cost too (the usage came from Anthropic).
    up!.setHandler(
      strictUpstream({
        usage: () => ({ input_tokens: 10, output_tokens: 10, server_tool_use: { web_search_requests: 2 } }),
      }),
    );
    const translated = await send('openai', BIG, { model: 'an/m', max_tokens: 10, messages: hi });
    expect(translated.status, await translated.text()).toBe(200);
    expect(costOf(translated)).toBe(10 * NANO_PER_OUT + 2 * 10_000_000);
    const all = costOf(plain) + costOf(translated);
    expect(await settled('roomy', all)).toBe(all);
  });

  it('price.web_search when configured', async () => {
    await start(strictUpstream(), 20);
    const tools = [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }];
    const priced = await send('anthropic', BIG, { model: 'an/search', max_tokens: 10, tools, messages: hi });
    expect(priced.status, await priced.text()).toBe(200);
    expect(costOf(priced)).toBe(10 * NANO_PER_OUT + 3 * 20_000_000);
    expect(await settled('roomy', costOf(priced))).toBe(costOf(priced));
  });
});

describe('absurd usage reports never reach budget arithmetic as NaN or Infinity', () => {
  it(
    'input and output tokens 1e308: the cost is capped, the counter stays finite and the budget refuses what ' +
      'follows',
    async () => {
      await start(
        strictUpstream({
          usage: (req) =>
            req.path.endsWith('/chat/completions')
              ? { prompt_tokens: 10, completion_tokens: 1e308 }
              : { input_tokens: 1e308, output_tokens: 1e308 },
        }),
      );
      const res = await send('anthropic', BIG, { model: 'an/m', max_tokens: 10, messages: hi });
      expect(res.status, await res.text()).toBe(200);
      const spent = await settled('roomy', costOf(res));
      expect(Number.isFinite(spent), String(spent)).toBe(true);
      expect(Number.isSafeInteger(spent), String(spent)).toBe(true);
      expect(spent).toBeGreaterThan(1000 * 1e9);
      const next = await send('openai', BIG, { model: 'oa/m', max_tokens: 10, messages: hi });
      expect(next.status).toBe(429);
    },
  );
});

describe('a concurrent burst of mixed requests against $1', () => {
  it('20 requests (no cap, n, reasoning, both endpoints): recorded spend ≤ $1, no 5xx', async () => {
    await start(strictUpstream({ delayMs: 150 }));
    const mix: Array<[Endpoint, object]> = [
      ['openai', { model: 'oa/m', messages: hi }],
      ['openai', { model: 'oa/m', n: 4, max_tokens: 500, messages: hi }],
      ['openai', { model: 'an/think', max_tokens: 200, reasoning_effort: 'low', messages: hi }],
      ['anthropic', { model: 'an/m', max_tokens: 1000, messages: hi }],
      ['openai', { model: 'oa/o', messages: hi }],
      ['openai', { model: 'an/m', messages: hi }],
      ['openai', { model: 'oa/m', n: 16, max_tokens: 300, messages: hi }],
    ];
    const started = Date.now();
    const all = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(mix[i % mix.length][0], SMALL, mix[i % mix.length][1])),
    );
    expect(Date.now() - started).toBeLessThan(20_000);
    const texts = await Promise.all(all.map((r) => r.text()));
    const served = all.filter((r) => r.status === 200);
    const charged = served.reduce((sum, r) => sum + costOf(r), 0);
    const spent = await settled('one-dollar', charged);
    expect(spent, `spent $${spent / 1e9} of $1 (${served.length} served)`).toBeLessThanOrEqual(LIMIT_NANO);
    expect(spent).toBe(charged);
    expect(served.length).toBeGreaterThan(0);
    all.forEach((r, i) => {
      expect([200, 429], texts[i]).toContain(r.status);
    });
  });
});
