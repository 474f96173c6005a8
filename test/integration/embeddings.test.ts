/**
 * POST /v1/embeddings over real sockets: the built-in mock's vectors, the caller's bytes passed
 * through to an OpenAI-format upstream (the strict fake) with only `model` spliced and its answer
 * relayed with `model` renamed, routing and BYOK as for chat, validation, model kinds, roles,
 * budgets, rate limits, guardrails, the request log, metrics and traces.
 * @see https://platform.openai.com/docs/api-reference/embeddings/create
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { embeddingsAnswer, type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.js';
import { type GatewaySpec, gatewayYaml } from '../helpers/gateway-config.js';
import { requestLogs, withinOneMinute } from '../helpers/limits-harness.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { loadTestConfig, type RunningGateway, startGateway } from '../helpers/start-gateway.js';
import { fakeEmbedding } from '../helpers/upstream-wire.js';

const SECRET = 'sk-embeddings-provider-secret-01';
const CALLER_KEY = 'sk-caller-own-embedding-key-77';
const ADMIN = 'embeddings-metrics-admin-0001';
const KEYS = {
  dev: 'embeddings-key-dev-0001',
  chatter: 'embeddings-key-chatter-0002',
  budget: 'embeddings-key-budget-0003',
  limited: 'embeddings-key-limited-0004',
  guarded: 'embeddings-key-guarded-0005',
} as const;
type Key = keyof typeof KEYS;

function spec(url: string, tracesUrl: string): GatewaySpec {
  const embedding = (upstream_name: string) => ({
    context_window: 8191,
    kind: 'embedding' as const,
    upstream_name,
    price: { input: 1 },
  });
  return {
    server: { host: '127.0.0.1', port: 0, shutdown_grace_ms: 1000 },
    routing: { retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 } },
    providers: {
      up: {
        api: 'openai',
        url,
        api_key: SECRET,
        models: {
          small: embedding('text-embedding-3-small'),
          large: embedding('text-embedding-3-large'),
          gpt: { context_window: 128000, upstream_name: 'gpt-4o-mini' },
        },
      },
      own: { api: 'openai', url, byok: 'required', models: { small: embedding('text-embedding-3-small') } },
      resp: { api: 'openai-responses', url, api_key: SECRET, models: { small: embedding('text-embedding-3-small') } },
      local: {
        api: 'mock',
        models: {
          embed: { context_window: 8192, kind: 'embedding', dimensions: 16 },
          plain: { context_window: 8192, kind: 'embedding' },
          echo: { context_window: 8192 },
        },
      },
    },
    aliases: {
      'team/embed': { strategy: 'ordered', targets: ['up/small', 'up/large'] },
      'team/local': { targets: ['local/embed'] },
      'team/chat': { targets: ['local/echo'] },
    },
    roles: {
      dev: { models: ['*'] },
      chatter: { models: ['local/echo', 'team/chat'] },
      budgeted: { models: ['up/small'] },
      limited: { models: ['up/small'] },
      guarded: { models: ['up/small', 'local/embed'] },
    },
    keys: [
      { id: 'dev', key: KEYS.dev, role: 'dev' },
      { id: 'chatter', key: KEYS.chatter, role: 'chatter' },
      { id: 'budget', key: KEYS.budget, role: 'budgeted' },
      { id: 'limited', key: KEYS.limited, role: 'limited' },
      { id: 'guarded', key: KEYS.guarded, role: 'guarded' },
    ],
    // 100,000 nano-USD: 100 input tokens at $1 per million.
    budgets: [{ id: 'emb-total', scope: { key: 'budget' }, limit_usd: 0.0001, period: 'total' }],
    extra: `
rate_limits:
  - { id: emb-rpm, scope: { key: limited }, requests_per_minute: 2, tokens_per_minute: 500 }
guardrails:
  - id: no-email
    applies_to: input
    match: { keys: [guarded] }
    check: { type: detectors, detectors: [email] }
    action: redact
  - id: codename
    applies_to: input
    match: { keys: [guarded] }
    check: { type: keywords, words: [bluebird] }
    action: block
observability:
  metrics: { admin_key: ${ADMIN} }
  traces: { otlp_endpoint: ${tracesUrl}, service_name: gw-embeddings }
`,
  };
}

let up: FakeUpstream;
let receiver: OtlpReceiver;
let gw: RunningGateway;

beforeAll(async () => {
  up = await startFakeUpstream();
  receiver = await startOtlpReceiver();
  gw = await startGateway(loadTestConfig(gatewayYaml(spec(up.url, receiver.tracesUrl))));
});
afterAll(async () => {
  await gw.close();
  await up.close();
  await receiver.close();
});
beforeEach(() => up.reset());

function post(path: string, body: unknown, key: Key = 'dev', headers: Record<string, string> = {}) {
  return fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS[key]}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
const embed = (body: unknown, key: Key = 'dev', headers: Record<string, string> = {}) =>
  post('/v1/embeddings', body, key, headers);

/** float32 values of a base64 embedding (little-endian), as plain numbers. */
function fromBase64(s: string): number[] {
  const bytes = Buffer.from(s, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}
const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('the mock provider', () => {
  it('answers in the OpenAI shape: one unit vector per input, usage about characters / 4', async () => {
    const res = await embed({ model: 'local/plain', input: ['hello world', 'abc'] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-model')).toBe('local/plain');
    const body = await res.json();
    expect(body).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: expect.any(Array) },
        { object: 'embedding', index: 1, embedding: expect.any(Array) },
      ],
      model: 'local/plain',
      usage: { prompt_tokens: 3 + 1, total_tokens: 4 },
    });
    for (const d of body.data) {
      expect(d.embedding).toHaveLength(8); // no dimensions on the model or the request: 8
      expect(Math.abs(norm(d.embedding) - 1)).toBeLessThan(1e-6);
    }
    expect(body.data[0].embedding).not.toEqual(body.data[1].embedding);
  });

  it('is deterministic: the same input gives the same vector, whatever else the request holds', async () => {
    const one = await (await embed({ model: 'local/plain', input: 'hello world' })).json();
    const two = await (await embed({ model: 'local/plain', input: ['other', 'hello world'] })).json();
    expect(two.data[1].embedding).toEqual(one.data[0].embedding);
  });

  it("takes the request's dimensions, else the model's; token lists are inputs too", async () => {
    const model = await (await embed({ model: 'local/embed', input: 'x' })).json();
    expect(model.data[0].embedding).toHaveLength(16);
    const asked = await (await embed({ model: 'local/embed', input: [[1, 2, 3], [4]], dimensions: 3 })).json();
    expect(asked.data.map((d: any) => d.embedding.length)).toEqual([3, 3]);
    expect(asked.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
  });

  it('base64 is the same float32 values, little-endian', async () => {
    const floats = await (await embed({ model: 'local/embed', input: 'same text' })).json();
    const b64 = await (await embed({ model: 'local/embed', input: 'same text', encoding_format: 'base64' })).json();
    expect(typeof b64.data[0].embedding).toBe('string');
    expect(fromBase64(b64.data[0].embedding)).toEqual(floats.data[0].embedding);
  });

  it('names the alias the caller sent; x-gateway-model names the model that served', async () => {
    const res = await embed({ model: 'team/local', input: 'x' });
    expect(res.headers.get('x-gateway-model')).toBe('local/embed');
    expect((await res.json()).model).toBe('team/local');
  });

  it('refuses an answer of more than 2^20 values (inputs × dimensions)', async () => {
    const res = await embed({ model: 'local/plain', input: ['a', 'b'], dimensions: 2 ** 19 + 1 });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'invalid_request', param: 'dimensions' });
  });
});

describe('an OpenAI-format upstream', () => {
  it("gets the caller's bytes with only model spliced; the answer comes back as it came, model renamed", async () => {
    const sent =
      '{ "input": ["alpha", "beta"],\n  "model": "up/small", ' +
      '"encoding_format": "base64", "dimensions": 3, "user": "u-1" }';
    const res = await embed(sent);
    expect(res.status).toBe(200);
    expect(up.calls).toHaveLength(1);
    const call = up.calls[0]!;
    expect(call.path).toBe('/v1/embeddings');
    expect(call.rawBody).toBe(sent.replace('"up/small"', '"text-embedding-3-small"'));
    expect(call.headers.authorization).toBe(`Bearer ${SECRET}`);
    const upstreamBody = embeddingsAnswer({ ...call.body, model: 'up/small' });
    expect(await res.text()).toBe(JSON.stringify(upstreamBody));
    expect(call.responseText).toBe(JSON.stringify(embeddingsAnswer(call.body)));
    // prompt tokens: 2 + 1 (characters / 4 per text); $1 per million tokens.
    expect(res.headers.get('x-gateway-cost-usd')).toBe('0.000003000');
    expect(res.headers.get('x-gateway-model')).toBe('up/small');
    expect(res.headers.get('x-upstream-request-id')).toBe('req_fake_1');
  });

  it('an openai-responses provider serves embeddings at its /embeddings', async () => {
    const res = await embed({ model: 'resp/small', input: 'x' });
    expect(res.status).toBe(200);
    expect(up.calls.map((c) => c.path)).toEqual(['/v1/embeddings']);
    expect((await res.json()).data[0].embedding).toEqual(fakeEmbedding('x'));
  });

  it('relays float vectors as the upstream sent them', async () => {
    const res = await embed({ model: 'up/small', input: 'gamma' });
    const body = await res.json();
    expect(body.data[0].embedding).toEqual(fakeEmbedding('gamma'));
    expect(body.model).toBe('up/small');
    expect(body.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
  });

  it('routes an alias as chat does: a failed target moves on to the next', async () => {
    up.script({ kind: 'error', status: 500, message: 'upstream down' });
    const res = await embed({ model: 'team/embed', input: 'delta' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-model')).toBe('up/large');
    expect(res.headers.get('x-gateway-attempts')).toBe('2');
    expect((await res.json()).model).toBe('team/embed');
    expect(up.calls.map((c) => c.body.model)).toEqual(['text-embedding-3-small', 'text-embedding-3-large']);
  });

  it("passes the upstream's own 400 on in the OpenAI error shape, without moving on", async () => {
    up.script({ kind: 'error', status: 400, message: 'This model does not support dimensions.' });
    const res = await embed({ model: 'team/embed', input: 'x', dimensions: 2 });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error).toMatchObject({ type: expect.any(String), code: 'upstream_error' });
    expect(error.message).toContain('This model does not support dimensions.');
    expect(up.calls).toHaveLength(1);
  });

  it("BYOK: the caller's key goes to the provider; without it a required key is a 401", async () => {
    const res = await embed({ model: 'own/small', input: 'x' }, 'dev', { 'x-provider-api-key': CALLER_KEY });
    expect(res.status).toBe(200);
    expect(up.calls[0]!.headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
    const missing = await embed({ model: 'own/small', input: 'x' });
    expect(missing.status).toBe(401);
    expect((await missing.json()).error.code).toBe('provider_key_required');
    expect(up.calls).toHaveLength(1);
  });
});

describe('what the gateway refuses (400 naming the field, nothing sent)', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['no model', { input: 'x' }, 'model'],
    ['no input', { model: 'up/small' }, 'input'],
    ['an empty string', { model: 'up/small', input: '' }, 'input'],
    ['an empty array', { model: 'up/small', input: [] }, 'input'],
    ['an empty string among texts', { model: 'up/small', input: ['a', ''] }, 'input[1]'],
    ['a number among texts', { model: 'up/small', input: ['a', 3] }, 'input[1]'],
    ['a negative token id', { model: 'up/small', input: [1, -2] }, 'input[1]'],
    ['a fractional token id', { model: 'up/small', input: [1, 2.5] }, 'input[1]'],
    ['an empty token array', { model: 'up/small', input: [[1], []] }, 'input[1]'],
    ['a text in a token array', { model: 'up/small', input: [[1], ['x']] }, 'input[1]'],
    ['2049 inputs', { model: 'up/small', input: Array(2049).fill('a') }, 'input'],
    ['an unknown encoding', { model: 'up/small', input: 'x', encoding_format: 'int8' }, 'encoding_format'],
    ['zero dimensions', { model: 'up/small', input: 'x', dimensions: 0 }, 'dimensions'],
    ['fractional dimensions', { model: 'up/small', input: 'x', dimensions: 1.5 }, 'dimensions'],
    ['a user that is not a string', { model: 'up/small', input: 'x', user: 5 }, 'user'],
  ];
  it.each(cases)('%s', async (_, body, param) => {
    const res = await embed(body);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param });
    expect(up.calls).toHaveLength(0);
  });

  it('takes 2048 inputs', async () => {
    const res = await embed({ model: 'local/plain', input: Array(2048).fill('a'), dimensions: 1 });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toHaveLength(2048);
  });

  it('a body that is not JSON, and a duplicate key, in the OpenAI shape', async () => {
    const bad = await embed('{"model":');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('invalid_json');
    const twice = await embed('{"model":"local/plain","model":"up/small","input":"x"}');
    expect(twice.status).toBe(400);
    expect(up.calls).toHaveLength(0);
  });
});

describe('model kinds, roles and keys', () => {
  it('the embeddings endpoint refuses a chat model or alias, naming model', async () => {
    for (const model of ['up/gpt', 'team/chat']) {
      const res = await embed({ model, input: 'x' });
      expect(res.status, model).toBe(400);
      const { error } = await res.json();
      expect(error).toMatchObject({ code: 'invalid_request', param: 'model' });
      expect(error.message).toContain('not an embedding model');
    }
    expect(up.calls).toHaveLength(0);
  });

  it('the chat and messages endpoints refuse an embedding model or alias', async () => {
    const messages = [{ role: 'user', content: 'hi' }];
    for (const model of ['up/small', 'local/embed']) {
      const res = await post('/v1/chat/completions', { model, messages });
      expect(res.status, model).toBe(400);
      expect((await res.json()).error).toMatchObject({
        code: 'invalid_request',
        param: 'model',
        message: `"${model}" is an embedding model: send it to POST /v1/embeddings.`,
      });
    }
    const alias = await post('/v1/chat/completions', { model: 'team/embed', messages });
    expect((await alias.json()).error.message).toBe(
      'The alias "team/embed" routes to an embedding model: send it to POST /v1/embeddings.',
    );
    const anthropic = await post('/v1/messages', { model: 'local/embed', max_tokens: 10, messages }, 'dev', {
      'anthropic-version': '2023-06-01',
    });
    expect(anthropic.status).toBe(400);
    expect(await anthropic.json()).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: '"local/embed" is an embedding model: send it to POST /v1/embeddings.',
      },
    });
    expect(up.calls).toHaveLength(0);
  });

  it('a role without the model gets 403; no key 401; an unknown model 404; GET is 405', async () => {
    const denied = await embed({ model: 'up/small', input: 'x' }, 'chatter');
    expect(denied.status).toBe(403);
    expect((await denied.json()).error).toMatchObject({
      type: 'permission_error',
      code: 'model_not_allowed',
      param: 'model',
    });
    const anonymous = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.code).toBe('missing_api_key');
    const unknown = await embed({ model: 'up/nothing', input: 'x' });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toMatchObject({ code: 'model_not_found', param: 'model' });
    const get = await fetch(`${gw.url}/v1/embeddings`, { headers: { authorization: `Bearer ${KEYS.dev}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    await get.arrayBuffer();
    expect(up.calls).toHaveLength(0);
  });

  it('GET /v1/models shows each kind', async () => {
    const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${KEYS.dev}` } });
    const kinds = Object.fromEntries((await res.json()).data.map((m: any) => [m.id, m.kind]));
    expect(kinds).toMatchObject({
      'up/small': 'embedding',
      'up/gpt': 'chat',
      'local/echo': 'chat',
      'team/embed': 'embedding',
      'team/chat': 'chat',
    });
  });
});

describe('budgets and rate limits', () => {
  it('prices input tokens; the budget refuses once the next request would pass its limit', async () => {
    const body = { model: 'up/small', input: 'x'.repeat(200) };
    const first = await embed(body, 'budget');
    expect(first.status).toBe(200);
    // 50 prompt tokens (200 characters / 4) at $1 per million: 50,000 nano-USD.
    expect(first.headers.get('x-gateway-cost-usd')).toBe('0.000050000');
    // Settled at 50,000 (or still reserved at ceil(bytes / 3) tokens): either way over 100,000 with the next.
    const second = await embed(body, 'budget');
    expect(second.status).toBe(429);
    expect(second.headers.get('x-should-retry')).toBe('false');
    expect(second.headers.get('x-gateway-limit')).toBe('budget=emb-total');
    expect((await second.json()).error).toMatchObject({ code: 'budget_exceeded', param: 'budget:emb-total' });
    expect(up.calls).toHaveLength(1);
  });

  it('counts requests and tokens; token ids reserve at least one token each', { timeout: 90_000 }, async () => {
    await withinOneMinute(async () => {
      up.reset();
      // 600 token ids: over the 500 tokens per minute, though its 1,230 bytes alone would reserve 410.
      const ids = await embed({ model: 'up/small', input: Array(600).fill(0) }, 'limited');
      expect(ids.status).toBe(429);
      expect(ids.headers.get('x-gateway-limit')).toBe('rate_limit=emb-rpm');
      expect((await ids.json()).error.message).toContain('at most 500 tokens per minute');
      const statuses: number[] = [];
      const remaining: Array<string | null> = [];
      for (let i = 0; i < 3; i++) {
        const res = await embed({ model: 'up/small', input: 'x' }, 'limited');
        statuses.push(res.status);
        remaining.push(res.headers.get('x-ratelimit-remaining-requests'));
        await res.arrayBuffer();
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect(remaining.slice(0, 2)).toEqual(['1', '0']);
      expect(up.calls).toHaveLength(2);
    });
  });
});

describe('guardrails', () => {
  it('a redaction changes only input in what reaches the upstream', async () => {
    const sent = '{"model":"up/small", "input":["write to bob@example.com", "plain"],"encoding_format":"float"}';
    const res = await embed(sent, 'guarded');
    expect(res.status).toBe(200);
    expect(up.calls[0]!.rawBody).toBe(
      '{"model":"text-embedding-3-small", "input":["write to [REDACTED:email]","plain"],"encoding_format":"float"}',
    );
    const body = await res.json();
    expect(body.data[0].embedding).toEqual(fakeEmbedding('write to [REDACTED:email]'));
  });

  it('the mock embeds the redacted text', async () => {
    const guarded = await (await embed({ model: 'local/embed', input: 'mail bob@example.com' }, 'guarded')).json();
    const redacted = await (await embed({ model: 'local/embed', input: 'mail [REDACTED:email]' })).json();
    expect(guarded.data[0].embedding).toEqual(redacted.data[0].embedding);
  });

  it('a block is the guardrail error, before any upstream call; token lists are not read', async () => {
    const res = await embed({ model: 'up/small', input: ['fine', 'the bluebird plan'] }, 'guarded');
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'guardrail_blocked', param: 'guardrail:codename' });
    expect(up.calls).toHaveLength(0);
    const tokens = await embed({ model: 'up/small', input: [[5, 6, 7]] }, 'guarded');
    expect(tokens.status).toBe(200);
    expect(up.calls[0]!.body.input).toEqual([[5, 6, 7]]);
  });
});

describe('logs, metrics and traces', () => {
  it('one request record, as for chat', async () => {
    const res = await embed({ model: 'team/embed', input: 'abcdefgh' });
    const id = res.headers.get('x-correlation-id');
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 20));
    const line = requestLogs(gw.logs).find((l) => l.correlation_id === id);
    expect(line).toMatchObject({
      endpoint: 'POST /v1/embeddings',
      key_id: 'dev',
      role: 'dev',
      model: 'team/embed',
      provider: 'up',
      served_model: 'up/small',
      attempts: 1,
      status: 200,
      stream: false,
      input_tokens: 2,
      output_tokens: 0,
      cost_usd: 0.000002,
    });
  });

  it('metrics carry the endpoint label; the trace is an embeddings span', async () => {
    const res = await embed({ model: 'local/plain', input: 'metrics' });
    const id = res.headers.get('x-correlation-id');
    await res.arrayBuffer();
    const text = await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    const labels = 'endpoint="POST /v1/embeddings",model="local/plain",provider="local",status="200"';
    const line = text.split('\n').find((l) => l.startsWith(`gateway_requests_total{${labels},`));
    expect(Number(line?.split(' ').at(-1))).toBeGreaterThanOrEqual(1);
    let server: (typeof receiver.spans)[number] | undefined;
    for (let i = 0; i < 100 && !server; i++) {
      await new Promise((r) => setTimeout(r, 50));
      server = receiver.spans.find((s) => s.attributes['gateway.correlation_id'] === id);
    }
    expect(server?.name).toBe('embeddings local/plain');
    expect(server?.attributes).toMatchObject({ 'gen_ai.operation.name': 'embeddings', 'gen_ai.usage.input_tokens': 2 });
  });
});
