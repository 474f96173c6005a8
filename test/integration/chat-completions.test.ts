import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { answerBody, answerEvents, youSaid, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { formatsGateway, OTHER_ROLE_KEY, PROVIDER_SECRET, TEST_KEY } from '../helpers/gateway-config.js';
import { authHeaders, configOf, type RunningGateway, startGateway } from '../helpers/start-gateway.js';
import { readSse } from '../helpers/sse.js';

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

let upstream: FakeUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  // The pass-through tests forward a field OpenAI does not know, to see it arrive unchanged.
  upstream = await startFakeUpstream({ handler: youSaid, accept: { unknownFields: true } });
  gw = await startGateway(configOf(formatsGateway(upstream.url)));
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
  upstream.setHandler(youSaid);
});

function chat(body: unknown, headers: Record<string, string> = authHeaders()) {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('built-in mock provider', () => {
  it('answers a chat completion in the OpenAI shape', async () => {
    const res = await chat({ model: 'local/echo', messages: [{ role: 'user', content: 'hello there world' }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-correlation-id')).toMatch(ULID);
    expect(res.headers.get('x-gateway-model')).toBe('local/echo');
    const body = await res.json();
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0].message).toMatchObject({ role: 'assistant', content: 'hello there world' });
    expect(body.choices[0].finish_reason).toBe('stop');
    expect(body.usage.completion_tokens).toBe(3);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + 3);
  });

  it('honours max_tokens with finish_reason length', async () => {
    const res = await chat({
      model: 'local/echo',
      max_tokens: 2,
      messages: [{ role: 'user', content: 'one two three four' }],
    });
    const body = await res.json();
    expect(body.choices[0].message.content).toBe('one two ');
    expect(body.choices[0].finish_reason).toBe('length');
  });

  it('streams several chunks with one id, role first, finish last, then [DONE]', async () => {
    const res = await chat({ model: 'local/echo', stream: true, messages: [{ role: 'user', content: 'a b c' }] });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('x-correlation-id')).toMatch(ULID);
    const msgs = await readSse(res);
    expect(msgs.at(-1)!.data).toBe('[DONE]');
    const chunks = msgs.slice(0, -1).map((m) => JSON.parse(m.data));
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('a b c');
    expect(chunks.at(-1).choices[0].finish_reason).toBe('stop');
    expect(chunks.every((c) => c.usage === undefined)).toBe(true);
  });

  it('adds the usage chunk only when stream_options.include_usage is set', async () => {
    const res = await chat({
      model: 'local/echo',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'a b' }],
    });
    const msgs = await readSse(res);
    const usage = JSON.parse(msgs.at(-2)!.data);
    expect(usage.choices).toEqual([]);
    expect(usage.usage.completion_tokens).toBe(2);
  });

  it('serves an alias through its first available target', async () => {
    const res = await chat({ model: 'team/fast', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-model')).toBe('up/gpt-test');
  });
});

describe('same-format pass-through to an OpenAI-compatible upstream', () => {
  it(
    'forwards the body unchanged but for model and the output cap, ' + 'with the provider key and correlation id',
    async () => {
      const raw =
        '{ "model" : "up/gpt-test", "messages":[{"role":"user","content":"hi \\u00e9"}], "seed": 7, "x_custom": ' +
        '{"nested": ["model", 1]} }';
      const res = await chat(raw);
      expect(res.status).toBe(200);
      const got = upstream.received[0];
      expect(got.path).toBe('/v1/chat/completions');
      // No cap from the caller: the gateway adds one (the bound its budget reservation uses).
      expect(got.rawBody).toBe(
        raw.replace('{ "model" : "up/gpt-test"', '{"max_completion_tokens":4096, "model" : "gpt-test-upstream"'),
      );
      expect(got.headers.authorization).toBe(`Bearer ${PROVIDER_SECRET}`);
      expect(JSON.stringify(got.headers)).not.toContain(TEST_KEY);
      expect(got.headers['x-correlation-id']).toBe(res.headers.get('x-correlation-id'));
    },
  );

  it('returns the upstream response bytes as they came, but for the model the caller named', async () => {
    const upstreamBody = answerBody('openai', { text: 'exact bytes', model: 'gpt-test-upstream' });
    upstream.setHandler(() => ({ kind: 'json', body: upstreamBody }));
    const res = await chat({ model: 'up/gpt-test', messages: [{ role: 'user', content: 'x' }] });
    expect(await res.text()).toBe(
      JSON.stringify(upstreamBody).replace('"model":"gpt-test-upstream"', '"model":"up/gpt-test"'),
    );
  });

  it('relays a stream byte for byte when the caller asked for usage', async () => {
    const chunks = answerEvents('openai', { text: 'one two three', model: 'gpt-test' }, { includeUsage: true });
    upstream.setHandler(() => ({ kind: 'sse', events: chunks }));
    const res = await chat({
      model: 'up/gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'x' }],
    });
    // Every chunk names the model the caller sent; the rest is relayed byte for byte.
    expect(await res.text()).toBe(chunks.join('').replaceAll('"model":"gpt-test"', '"model":"up/gpt-test"'));
    expect(upstream.received[0].body.stream_options).toEqual({ include_usage: true });
  });

  it('asks the upstream for usage but hides the usage chunk from a caller that did not ask', async () => {
    const res = await chat({ model: 'up/gpt-test', stream: true, messages: [{ role: 'user', content: 'x y' }] });
    const msgs = await readSse(res);
    expect(upstream.received[0].body.stream_options).toEqual({ include_usage: true });
    expect(msgs.at(-1)!.data).toBe('[DONE]');
    const chunks = msgs.slice(0, -1).map((m) => JSON.parse(m.data));
    expect(chunks.every((c) => c.choices.length === 1)).toBe(true);
    const line = gw.logs
      .map((l) => JSON.parse(l))
      .find((l) => l.correlation_id === res.headers.get('x-correlation-id'));
    expect(line).toMatchObject({ input_tokens: 8, cache_read_tokens: 3, stream: true, status: 200 });
  });

  it('turns a stream cut mid-way into an in-stream OpenAI error', async () => {
    const chunks = answerEvents('openai', { text: 'one two three', model: 'gpt-test' });
    upstream.setHandler(() => ({ kind: 'drop', events: chunks.slice(0, 2) }));
    const res = await chat({
      model: 'up/gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(res.status).toBe(200);
    const msgs = await readSse(res);
    const last = JSON.parse(msgs.at(-1)!.data);
    expect(last.error.code).toBe('upstream_unavailable');
  });
});

describe('errors in the OpenAI shape', () => {
  const expectError = async (res: Response, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('x-correlation-id')).toMatch(ULID);
    const body = await res.json();
    expect(body.error).toMatchObject({ code });
    expect(typeof body.error.message).toBe('string');
    expect(body.error).toHaveProperty('type');
    expect(body.error).toHaveProperty('param');
    return body.error;
  };
  const msg = { model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] };

  it('401 without a key and with a wrong key', async () => {
    await expectError(await chat(msg, { 'content-type': 'application/json' }), 401, 'missing_api_key');
    await expectError(await chat(msg, authHeaders('wrong-key-000000')), 401, 'invalid_api_key');
  });
  it('403 for a model outside the role, 404 for an unknown model', async () => {
    await expectError(
      await chat({ ...msg, model: 'up/gpt-test' }, authHeaders(OTHER_ROLE_KEY)),
      403,
      'model_not_allowed',
    );
    const e = await expectError(await chat({ ...msg, model: 'nope/nothing' }), 404, 'model_not_found');
    expect(e.param).toBe('model');
  });
  it('400 for malformed JSON and for an invalid field, naming it', async () => {
    await expectError(await chat('{"model": '), 400, 'invalid_json');
    const e = await expectError(
      await chat({ ...msg, messages: [{ role: 'wizard', content: 'x' }] }),
      400,
      'invalid_request',
    );
    expect(e.param).toBe('messages[0].role');
    const t = await expectError(await chat({ ...msg, temperature: 9 }), 400, 'invalid_request');
    expect(t.param).toBe('temperature');
  });
  it('413 over the body limit', async () => {
    await expectError(
      await chat({ ...msg, messages: [{ role: 'user', content: 'x'.repeat(5000) }] }),
      413,
      'body_too_large',
    );
  });
  it('404 for an unknown route and 405 for a wrong method', async () => {
    await expectError(await fetch(`${gw.url}/v1/nothing`, { headers: authHeaders() }), 404, 'route_not_found');
    const res = await fetch(`${gw.url}/v1/chat/completions`, { headers: authHeaders() });
    await expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('POST');
  });
  it('passes an upstream 429 on with its status and retry-after', async () => {
    upstream.setHandler(() => ({
      kind: 'json',
      status: 429,
      headers: { 'retry-after': '7' },
      body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
    }));
    const res = await chat({ ...msg, model: 'up/gpt-test' });
    const e = await expectError(res, 429, 'upstream_error');
    expect(res.headers.get('retry-after')).toBe('7');
    expect(e.message).toContain('Rate limit reached');
  });
  it('an upstream 401 is the gateway credential failing: 502, and the key is never echoed', async () => {
    upstream.setHandler(() => ({
      kind: 'json',
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${PROVIDER_SECRET}` } },
    }));
    const res = await chat({ ...msg, model: 'up/gpt-test' });
    const e = await expectError(res, 502, 'upstream_error');
    expect(JSON.stringify(e)).not.toContain(PROVIDER_SECRET);
  });
  it('an upstream 400 message is passed on with secrets redacted', async () => {
    upstream.setHandler(() => ({
      kind: 'json',
      status: 400,
      body: { error: { message: `bad thing with ${PROVIDER_SECRET}` } },
    }));
    const e = await expectError(await chat({ ...msg, model: 'up/gpt-test' }), 400, 'upstream_error');
    expect(e.message).toContain('bad thing');
    expect(e.message).not.toContain(PROVIDER_SECRET);
  });
  it('an upstream 500 stays a 500', async () => {
    upstream.setHandler(() => ({ kind: 'raw', status: 500, body: 'oops' }));
    await expectError(await chat({ ...msg, model: 'up/gpt-test' }), 500, 'upstream_error');
  });
  it('504 when the upstream sends nothing in time', async () => {
    upstream.setHandler(() => ({ kind: 'hang' }));
    await expectError(await chat({ ...msg, model: 'up/gpt-test' }), 504, 'upstream_timeout');
  });
  it('503 when no provider behind the model is available', async () => {
    const e = await expectError(await chat({ ...msg, model: 'team/dead' }), 503, 'no_available_provider');
    expect(e.message).toContain('GATEWAY_TEST_UNSET_VAR');
  });
});

describe('correlation ids', () => {
  it('keeps a valid ULID sent by the caller and replaces anything else', async () => {
    const mine = '01JABCDEFGHJKMNPQRSTVWXYZ0';
    const a = await chat(
      { model: 'local/echo', messages: [{ role: 'user', content: 'x' }] },
      { ...authHeaders(), 'x-correlation-id': mine },
    );
    expect(a.headers.get('x-correlation-id')).toBe(mine);
    const b = await chat(
      { model: 'local/echo', messages: [{ role: 'user', content: 'x' }] },
      { ...authHeaders(), 'x-correlation-id': 'not-a-ulid' },
    );
    expect(b.headers.get('x-correlation-id')).toMatch(ULID);
    expect(b.headers.get('x-correlation-id')).not.toBe(mine);
  });
});

describe('logs', () => {
  it('never contain a gateway key or a provider key', () => {
    const all = gw.logs.join('\n');
    expect(gw.logs.length).toBeGreaterThan(10);
    for (const secret of [TEST_KEY, OTHER_ROLE_KEY, PROVIDER_SECRET]) expect(all).not.toContain(secret);
  });
});
