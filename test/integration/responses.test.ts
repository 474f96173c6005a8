/**
 * POST /v1/responses over raw HTTP to an `openai-responses` provider (pass-through): the caller's
 * bytes go up with `model` spliced (and an output cap when none was sent), the upstream's bytes
 * come back with `model` renamed; streams are relayed in the documented order; the provider holds
 * the conversation, the gateway records who owns each response id and where it lives, so
 * previous_response_id, GET and DELETE work for the owner and for nobody else.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.js';
import { gatewayYaml } from '../helpers/gateway-config.js';
import { responsesOrderViolations, sseMessages } from '../helpers/responses-order.js';
import { loadTestConfig, startGateway, type RunningGateway } from '../helpers/start-gateway.js';

const KEY = 'resp-test-key-0001';
const OTHER_KEY = 'resp-test-key-0002';
const SECRET = 'sk-resp-provider-secret-000333';

let up: FakeUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  up = await startFakeUpstream({ accept: { unknownFields: true } }); // to see an unknown field arrive unchanged
  const timeouts = { connect_ms: 2000, first_byte_ms: 3000, total_ms: 10000 };
  const yaml = gatewayYaml({
    server: { host: '127.0.0.1', port: 0, body_limit: '1mb', shutdown_grace_ms: 2000 },
    routing: { retry: { max_retries: 0 } },
    providers: {
      resp: {
        api: 'openai-responses',
        url: up.url,
        api_key: SECRET,
        timeouts,
        models: { 'gpt-5-mini': { context_window: 400000, max_output_tokens: 2000, upstream_name: 'gpt-5-mini-up' } },
      },
    },
    aliases: { 'team/fast': { targets: ['resp/gpt-5-mini'] } },
    roles: { all: { models: ['*'] } },
    keys: [
      { id: 'one', key: KEY, role: 'all' },
      { id: 'two', key: OTHER_KEY, role: 'all' },
    ],
  });
  gw = await startGateway(loadTestConfig(yaml));
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
});
beforeEach(() => up.reset());

function call(path: string, init: { method?: string; body?: unknown; key?: string } = {}) {
  return fetch(`${gw.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { authorization: `Bearer ${init.key ?? KEY}`, 'content-type': 'application/json' },
    ...(init.body === undefined ? {} : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
  });
}

describe('POST /v1/responses to a Responses provider (pass-through)', () => {
  it('sends the caller bytes with model spliced and a cap added; answers the upstream bytes renamed', async () => {
    const sent = '{"model":"team/fast","input":"hello there","x_unknown":{"kept":true},"store":false}';
    const res = await call('/v1/responses', { body: sent });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const got = up.last('/v1/responses')!;
    expect(got.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(got.rawBody).toBe(
      '{"max_output_tokens":2000,"model":"gpt-5-mini-up","input":"hello there",' +
        '"x_unknown":{"kept":true},"store":false}',
    );
    const body = JSON.parse(text);
    expect(body.model).toBe('team/fast');
    expect(body.object).toBe('response');
    expect(res.headers.get('x-gateway-model')).toBe('resp/gpt-5-mini');
    expect(text).not.toContain('gpt-5-mini-up');
  });

  it('relays a stream in the documented order, model renamed in every event that names it', async () => {
    const res = await call('/v1/responses', { body: { model: 'team/fast', input: 'stream please', stream: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    const messages = sseMessages(text);
    expect(responsesOrderViolations(messages)).toEqual([]);
    const last = JSON.parse(String(messages.at(-1)!.data)) as { type: string; response: { model: string } };
    expect(last.type).toBe('response.completed');
    expect(last.response.model).toBe('team/fast');
    expect(text).not.toContain('gpt-5-mini-up');
  });

  it('the provider holds the conversation: previous_response_id is forwarded for its owner only', async () => {
    const first = await (
      await call('/v1/responses', { body: { model: 'team/fast', input: 'My name is Ada.' } })
    ).json();
    expect(first.id).toMatch(/^resp_/);
    const second = await call('/v1/responses', {
      body: { model: 'team/fast', input: 'What is my name?', previous_response_id: first.id },
    });
    expect(second.status).toBe(200);
    expect(up.last('/v1/responses')!.body.previous_response_id).toBe(first.id);

    const calls = up.calls.length;
    const stolen = await call('/v1/responses', {
      key: OTHER_KEY,
      body: { model: 'team/fast', input: 'What is their name?', previous_response_id: first.id },
    });
    expect(stolen.status).toBe(400);
    expect((await stolen.json()).error.param).toBe('previous_response_id');
    expect(up.calls.length).toBe(calls); // never reached the provider
  });

  it('GET and DELETE of a provider-held response go to that provider, for the owner only', async () => {
    const created = await (await call('/v1/responses', { body: { model: 'team/fast', input: 'keep me' } })).json();
    const got = await call(`/v1/responses/${created.id}`);
    expect(got.status).toBe(200);
    const body = await got.json();
    expect(body.id).toBe(created.id);
    expect(body.model).toBe('team/fast');
    expect(up.last()!.method).toBe('GET');
    expect(up.last()!.headers.authorization).toBe(`Bearer ${SECRET}`);

    const items = await call(`/v1/responses/${created.id}/input_items`);
    expect(items.status).toBe(200);
    expect((await items.json()).object).toBe('list');

    expect((await call(`/v1/responses/${created.id}`, { key: OTHER_KEY })).status).toBe(404);
    expect((await call(`/v1/responses/${created.id}`, { key: OTHER_KEY, method: 'DELETE' })).status).toBe(404);

    const del = await call(`/v1/responses/${created.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect((await del.json()).deleted).toBe(true);
    expect((await call(`/v1/responses/${created.id}`)).status).toBe(404);
  });

  it('errors come in the OpenAI shape, with x-should-retry', async () => {
    const res = await call('/v1/responses', { body: { input: 'no model' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-should-retry')).toBe('false');
    const body = await res.json();
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'model' });
    const bad = await call('/v1/responses', { body: { model: 'team/fast', input: 12 } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.param).toBe('input');
  });

  it('input_tokens asks the provider and answers in the Responses shape', async () => {
    const res = await call('/v1/responses/input_tokens', { body: { model: 'team/fast', input: 'count me' } });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toEqual({ object: 'response.input_tokens', input_tokens: expect.any(Number) });
    expect(up.last()!.path).toBe('/v1/responses/input_tokens');
    expect(res.headers.get('x-gateway-token-count')).toBe('upstream');
  });

  it("a WebSocket upgrade (Codex's first try) is a 426, so the client falls back to HTTP at once", async () => {
    // fetch refuses upgrade headers: a raw node:http request, as a WebSocket client sends it.
    const { status, headers, body } = await new Promise<{ status: number; headers: any; body: string }>(
      (resolve, reject) => {
        const req = request(`${gw.url}/v1/responses`, {
          headers: {
            authorization: `Bearer ${KEY}`,
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          },
        });
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
        });
        req.on('upgrade', () => reject(new Error('the gateway must not switch protocols')));
        req.on('error', reject);
        req.end();
      },
    );
    expect(status).toBe(426);
    expect(headers['x-should-retry']).toBe('false');
    expect(JSON.parse(body).error.code).toBe('upgrade_not_supported');
  });
});
