/**
 * POST /v1/messages over raw HTTP: errors in Anthropic's shape `{type: "error", error: {type, message}}`
 * with the documented status per type, X-Correlation-ID on every response, and same-format
 * pass-through to an Anthropic-format upstream (bytes up but for `model`, bytes down unchanged).
 * @see https://docs.anthropic.com/en/api/errors
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertAnthropicStreamOrder } from '../helpers/anthropic-order.js';
import { type FakeUpstream, SCRIPTED, startFakeUpstream } from '../helpers/fake-upstream.js';
import { ANT_SECRET, SCRIPTED_KEY, SCRIPTED_LIMITED_KEY, scriptedGateway } from '../helpers/gateway-config.js';
import { readSse } from '../helpers/sse.js';
import { configOf, startGateway, type RunningGateway } from '../helpers/start-gateway.js';

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

let up: FakeUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  // The pass-through tests send fields Anthropic does not know, to see them arrive unchanged.
  up = await startFakeUpstream({ ...SCRIPTED, accept: { unknownFields: true } });
  gw = await startGateway(configOf(scriptedGateway(up.url, { bodyLimit: '2kb' })));
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
});
beforeEach(() => up.reset());

function headers(key: string | null = SCRIPTED_KEY): Record<string, string> {
  return {
    ...(key ? { 'x-api-key': key } : {}),
    'anthropic-version': '2023-06-01',
    'content-type': 'application/json',
  };
}

function messages(body: unknown, h: Record<string, string> = headers(), path = '/v1/messages') {
  return fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: h,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const ok = { model: 'local/echo', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] };

async function expectAnthropicError(res: Response, status: number, type: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('x-correlation-id')).toMatch(ULID);
  expect(res.headers.get('content-type')).toContain('application/json');
  const body = await res.json();
  expect(body).toEqual({ type: 'error', error: { type, message: expect.any(String) } });
  expect(body.error.message.length).toBeGreaterThan(0);
  return body.error as { type: string; message: string };
}

describe('errors in the Anthropic shape', () => {
  it('400 invalid_request_error for a missing max_tokens, naming it', async () => {
    const { max_tokens: _, ...noMax } = ok;
    const e = await expectAnthropicError(await messages(noMax), 400, 'invalid_request_error');
    expect(e.message).toContain('max_tokens');
  });

  it('400 invalid_request_error for malformed JSON', async () => {
    await expectAnthropicError(await messages('{"model": "local/echo", '), 400, 'invalid_request_error');
  });

  it('401 authentication_error without a key and with a wrong key', async () => {
    await expectAnthropicError(await messages(ok, headers(null)), 401, 'authentication_error');
    await expectAnthropicError(await messages(ok, headers('wrong-key-00000000')), 401, 'authentication_error');
    await expectAnthropicError(
      await messages(ok, { ...headers(null), authorization: 'Bearer wrong-key-00000000' }),
      401,
      'authentication_error',
    );
  });

  it('403 permission_error for a model outside the role', async () => {
    await expectAnthropicError(
      await messages({ ...ok, model: 'ant/m' }, headers(SCRIPTED_LIMITED_KEY)),
      403,
      'permission_error',
    );
    expect(up.received).toEqual([]);
  });

  it('404 not_found_error for an unknown model and for an unknown route under /v1/messages', async () => {
    await expectAnthropicError(await messages({ ...ok, model: 'nope/nothing' }), 404, 'not_found_error');
    await expectAnthropicError(await messages(ok, headers(), '/v1/messages/nope'), 404, 'not_found_error');
  });

  it('413 request_too_large over the body limit', async () => {
    await expectAnthropicError(
      await messages({ ...ok, messages: [{ role: 'user', content: 'x'.repeat(5000) }] }),
      413,
      'request_too_large',
    );
  });

  it('an upstream 529 stays 529 overloaded_error, from either upstream format', async () => {
    for (const model of ['ant/m', 'oai/m']) {
      const e = await expectAnthropicError(
        await messages({ ...ok, model, messages: [{ role: 'user', content: 'please fail 529' }] }),
        529,
        'overloaded_error',
      );
      expect(e.message).not.toContain(ANT_SECRET);
    }
    // The same before a stream would have started.
    await expectAnthropicError(
      await messages({ ...ok, model: 'ant/m', stream: true, messages: [{ role: 'user', content: 'please fail 529' }] }),
      529,
      'overloaded_error',
    );
  });

  it('upstream 429 → 429 rate_limit_error with retry-after', async () => {
    const res = await messages({ ...ok, model: 'oai/m', messages: [{ role: 'user', content: 'please fail 429' }] });
    await expectAnthropicError(res, 429, 'rate_limit_error');
    expect(res.headers.get('retry-after')).toBe('7');
  });
});

describe('X-Correlation-ID on every response', () => {
  it('on JSON, SSE and count_tokens responses, and sent to the upstream', async () => {
    const responses = [
      await messages({ ...ok, model: 'ant/m' }),
      await messages({ ...ok, model: 'ant/m', stream: true }),
      await messages({ ...ok, model: 'oai/m', stream: true }),
      await messages({ ...ok, model: 'local/echo', stream: true }),
      await messages({ model: 'ant/m', messages: ok.messages }, headers(), '/v1/messages/count_tokens'),
      await fetch(`${gw.url}/v1/models`, { headers: headers() }),
    ];
    const ids = new Set<string>();
    for (const res of responses) {
      expect(res.status).toBe(200);
      const id = res.headers.get('x-correlation-id');
      expect(id).toMatch(ULID);
      ids.add(id!);
      if (res.headers.get('content-type')?.includes('text/event-stream'))
        assertAnthropicStreamOrder(await readSse(res));
      else await res.arrayBuffer();
    }
    expect(ids.size).toBe(responses.length);
    expect(up.received.map((r) => r.headers['x-correlation-id'])).toEqual([...ids].slice(0, 3).concat([...ids][4]));
  });
});

describe('same-format pass-through to an Anthropic upstream', () => {
  it('sends the caller’s bytes up unchanged but for model, with the provider key', async () => {
    const raw =
      '{ "model" :   "ant/m",\n  "max_tokens":50,"messages":[ {"role":"user","content":"hi \\u00e9 there"} ],' +
      ' "x_unknown_field": {"nested": ["model", 1, null]}, "metadata": {"user_id": "u-1"} ,"top_k" : 5 }';
    const res = await messages(raw);
    expect(res.status).toBe(200);
    const u = up.last('/v1/messages')!;
    expect(u.rawBody).toBe(raw.replace('"ant/m"', '"m"'));
    expect(u.headers['x-api-key']).toBe(ANT_SECRET);
    expect(JSON.stringify(u.headers)).not.toContain(SCRIPTED_KEY);
    // …and the upstream's JSON answer comes back as it was sent, naming the model the caller sent.
    expect(await res.text()).toBe(u.responseText.replace('"model":"m"', '"model":"ant/m"'));
  });

  it('relays the upstream’s SSE bytes unchanged', async () => {
    const raw =
      '{"model":"ant/m","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"several words in this ' +
      'reply"}],"x_extra":true}';
    const res = await messages(raw);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    const u = up.last('/v1/messages')!;
    expect(u.rawBody).toBe(raw.replace('"ant/m"', '"m"'));
    expect(text).toBe(u.responseText.replace('"model":"m"', '"model":"ant/m"'));
    expect(text).toContain('event: ping');
    assertAnthropicStreamOrder(await readSse(new Response(text)));
  });

  it("relays a stream up to an upstream in-stream error, then re-renders that error as the gateway's", async () => {
    const res = await messages({
      ...ok,
      model: 'ant/m',
      stream: true,
      messages: [{ role: 'user', content: 'cut it short' }],
    });
    expect(res.status).toBe(200);
    const text = await res.clone().text();
    const upstreamText = up.last('/v1/messages')!.responseText.replace('"model":"m"', '"model":"ant/m"');
    const errorAt = upstreamText.indexOf('event: error');
    expect(text.slice(0, errorAt)).toBe(upstreamText.slice(0, errorAt));
    const events = await readSse(res);
    assertAnthropicStreamOrder(events);
    expect(events.at(-1)!.event).toBe('error');
    expect(JSON.parse(events.at(-1)!.data)).toEqual({
      type: 'error',
      error: {
        type: 'overloaded_error',
        message: 'The upstream reported an error during the stream (overloaded_error): Overloaded',
      },
    });
  });
});

describe('translated streams to an Anthropic caller', () => {
  it.each(['oai/m', 'local/echo'])('%s: Anthropic event order, tool blocks included', async (model) => {
    const res = await messages({
      ...ok,
      model,
      stream: true,
      messages: [{ role: 'user', content: 'parallel weather please' }],
    });
    expect(res.status).toBe(200);
    assertAnthropicStreamOrder(await readSse(res));
  });
});
