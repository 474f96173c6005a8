import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AZURE_API_KEY, AZURE_API_VERSION, ENTRA, type FakeAzure, startFakeAzure } from '../helpers/fake-azure.js';
import { checkProvider } from '../../src/cli/provider-check.js';
import type { GatewayConfig } from '../../src/config/types.js';
import { UpstreamPool } from '../../src/upstream/client.js';
import { type FakeUpstream, startFakeUpstream, youSaid } from '../helpers/fake-upstream.js';
import { TEST_KEY } from '../helpers/gateway-config.js';
import { readSse } from '../helpers/sse.js';
import { authHeaders, loadTestConfig, type RunningGateway, startGateway } from '../helpers/start-gateway.js';

const TIMEOUTS = '{ connect_ms: 1000, first_byte_ms: 800, total_ms: 5000 }';
const MODELS = `
      gpt-4o: { context_window: 128000, max_output_tokens: 1000, upstream_name: prod-gpt4o }
      undeployed: { context_window: 8000, upstream_name: not-deployed }
      embed: { context_window: 8192, kind: embedding, upstream_name: prod-embed }`;

let inner: FakeUpstream;
let azure: FakeAzure;
let entra: FakeAzure;
let hanging: Server;
const sockets = new Set<Socket>();
let config: GatewayConfig;
let gw: RunningGateway;

function configYaml(): string {
  const entraBlock = (secret: string, host: string) =>
    `{ tenant_id: ${ENTRA.tenant}, client_id: ${ENTRA.clientId}, client_secret: ${secret}, authority_host: "${host}" }`;
  const hangUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  return `
routing: { retry: { max_retries: 0 }, fallback_on: [] }
providers:
  az:
    api: azure-openai
    base_url: ${azure.url}
    api_version: "${AZURE_API_VERSION}"
    api_key: ${AZURE_API_KEY}
    byok: optional
    timeouts: ${TIMEOUTS}
    models: ${MODELS}
  azv1:
    api: azure-openai
    base_url: ${azure.url}
    style: v1
    api_key: ${AZURE_API_KEY}
    timeouts: ${TIMEOUTS}
    models: ${MODELS}
  azentra:
    api: azure-openai
    base_url: ${entra.url}
    api_version: "${AZURE_API_VERSION}"
    entra: ${entraBlock(ENTRA.secret, entra.url)}
    timeouts: ${TIMEOUTS}
    cooldown: { cooldown_ms: 1 }
    models: ${MODELS}
  azold:
    api: azure-openai
    base_url: ${azure.url}
    api_version: "2023-03-15-preview"
    api_key: ${AZURE_API_KEY}
    timeouts: ${TIMEOUTS}
    models: ${MODELS}
  azresp:
    api: azure-openai-responses
    base_url: ${azure.url}
    api_key: ${AZURE_API_KEY}
    timeouts: ${TIMEOUTS}
    models: ${MODELS}
  azrespentra:
    api: azure-openai-responses
    base_url: ${entra.url}
    entra: ${entraBlock(ENTRA.secret, entra.url)}
    timeouts: ${TIMEOUTS}
    models: ${MODELS}
  azwrongsecret:
    api: azure-openai
    base_url: ${entra.url}
    api_version: "${AZURE_API_VERSION}"
    entra: ${entraBlock('not-the-secret', entra.url)}
    timeouts: ${TIMEOUTS}
    models: ${MODELS}
  azhang:
    api: azure-openai
    base_url: ${entra.url}
    api_version: "${AZURE_API_VERSION}"
    entra: ${entraBlock(ENTRA.secret, hangUrl)}
    timeouts: ${TIMEOUTS}
    models: ${MODELS}
roles:
  all: { models: ["*"] }
keys:
  - { id: k, key: ${TEST_KEY}, role: all }
`;
}

beforeAll(async () => {
  inner = await startFakeUpstream({ handler: youSaid });
  azure = await startFakeAzure(inner, {
    auth: 'api-key',
    deployments: ['prod-gpt4o', 'prod-embed'],
    filterTrigger: 'FORBIDDEN-TOPIC',
  });
  entra = await startFakeAzure(inner, {
    auth: 'entra',
    deployments: ['prod-gpt4o'],
    tokenLifetimeS: 4,
    tokenDelayMs: 150,
  });
  hanging = createNetServer((s) => sockets.add(s));
  await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
  config = loadTestConfig(configYaml());
  gw = await startGateway(config);
});
afterAll(async () => {
  await gw.close();
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => hanging.close(() => r()));
  await azure.close();
  await entra.close();
  await inner.close();
});
beforeEach(() => {
  azure.calls.length = 0;
  entra.calls.length = 0;
  inner.setHandler(youSaid);
});

function post(path: string, body: unknown, headers: Record<string, string> = authHeaders()) {
  return fetch(`${gw.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
}
const messagesHeaders = {
  'x-api-key': TEST_KEY,
  'anthropic-version': '2023-06-01',
  'content-type': 'application/json',
};
const hello = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'hello azure' }],
  ...extra,
});

describe('the Azure fake refuses what Azure refuses', () => {
  const direct = (path: string, headers: Record<string, string>, body: unknown = hello('prod-gpt4o')) =>
    fetch(`${azure.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const key = { 'api-key': AZURE_API_KEY, 'content-type': 'application/json' };
  const chatAt = '/openai/deployments/prod-gpt4o/chat/completions';

  it('a missing or unsupported api-version, a wrong key, a bearer token, an unknown deployment', async () => {
    expect((await direct(chatAt, key)).status).toBe(404);
    expect((await direct(`${chatAt}?api-version=2023-05-15`, key)).status).toBe(404);
    expect((await direct(`${chatAt}?api-version=${AZURE_API_VERSION}`, { ...key, 'api-key': 'wrong' })).status).toBe(
      401,
    );
    const bearer = { authorization: `Bearer ${AZURE_API_KEY}`, 'content-type': 'application/json' };
    expect((await direct(`${chatAt}?api-version=${AZURE_API_VERSION}`, bearer)).status).toBe(401);
    const unknown = await direct(`/openai/deployments/nope/chat/completions?api-version=${AZURE_API_VERSION}`, key);
    expect([unknown.status, (await unknown.json()).error.code]).toEqual([404, 'DeploymentNotFound']);
    expect((await direct('/openai/v1/chat/completions?api-version=2024-10-21', key)).status).toBe(404);
    expect((await direct(`${chatAt}?api-version=${AZURE_API_VERSION}`, key)).status).toBe(200);
  });

  it('an Entra front takes only the tokens it issued', async () => {
    const at = `${entra.url}${chatAt}?api-version=${AZURE_API_VERSION}`;
    const send = (authorization: string) =>
      fetch(at, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify(hello('prod-gpt4o')),
      });
    expect((await send('Bearer made-up-token')).status).toBe(401);
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: ENTRA.clientId,
      client_secret: ENTRA.secret,
      scope: 'https://cognitiveservices.azure.com/.default',
    });
    const token = await fetch(`${entra.url}/${ENTRA.tenant}/oauth2/v2.0/token`, { method: 'POST', body: form });
    expect(token.status).toBe(200);
    const { access_token, expires_in } = await token.json();
    expect(expires_in).toBe(4);
    expect((await send(`Bearer ${access_token}`)).status).toBe(200);
  });
});

describe('azure-openai: chat pass-through', () => {
  it('deployment style: the deployment and api-version in the URL, the api-key header, the body as sent', async () => {
    const sent = '{"model":"az/gpt-4o","messages":[{"role":"user","content":"hello azure"}],"max_tokens":50}';
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: authHeaders(), body: sent });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.choices[0].message.content).toBe('you said: hello azure');
    expect(body.model).toBe('az/gpt-4o');
    // Azure's own annotations are passed on untouched.
    expect(body.prompt_filter_results[0].prompt_index).toBe(0);
    expect(azure.calls).toHaveLength(1);
    const call = azure.calls[0]!;
    expect(call.path).toBe('/openai/deployments/prod-gpt4o/chat/completions');
    expect(call.apiVersion).toBe(AZURE_API_VERSION);
    expect(call.headers['api-key']).toBe(AZURE_API_KEY);
    expect(call.headers.authorization).toBeUndefined();
    expect(call.rawBody).toBe(sent.replace('"az/gpt-4o"', '"prod-gpt4o"'));
  });

  it('v1 style: /openai/v1/chat/completions, no api-version, the deployment in model', async () => {
    const res = await post('/v1/chat/completions', hello('azv1/gpt-4o'));
    expect(res.status).toBe(200);
    expect((await res.json()).choices[0].message.content).toBe('you said: hello azure');
    const call = azure.calls[0]!;
    expect(call.path).toBe('/openai/v1/chat/completions');
    expect(call.apiVersion).toBeNull();
    expect(JSON.parse(call.rawBody).model).toBe('prod-gpt4o');
  });

  it('streams pass through, Azure prompt-filter chunk included, with usage read on the side', async () => {
    const res = await post('/v1/chat/completions', hello('az/gpt-4o', { stream: true }));
    expect(res.status).toBe(200);
    const events = await readSse(res);
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    expect(chunks[0].choices).toEqual([]);
    expect(chunks[0].prompt_filter_results).toHaveLength(1);
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe('you said: hello azure');
    // The usage chunk the gateway asked for is hidden from a caller that did not ask.
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect(JSON.parse(azure.calls[0]!.rawBody).stream_options).toEqual({ include_usage: true });
  });

  it('an unknown deployment is the upstream 404, named', async () => {
    const res = await post('/v1/chat/completions', hello('az/undeployed'));
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.error.code).toBe('upstream_error');
    expect(body.error.message).toContain('The API deployment for this resource does not exist');
  });

  it('an api-version Azure does not serve is the upstream 404, passed on', async () => {
    const res = await post('/v1/chat/completions', hello('azold/gpt-4o'));
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toBe('Provider "azold" returned HTTP 404: Resource not found');
    expect(azure.calls[0]!.apiVersion).toBe('2023-03-15-preview');
  });

  it('BYOK: the caller key goes in api-key', async () => {
    const res = await post('/v1/chat/completions', hello('az/gpt-4o'), {
      ...authHeaders(),
      'x-provider-api-key': 'callers-own-azure-key',
    });
    // The fake accepts only its own key: the caller's reached it, and was refused.
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('provider_key_rejected');
    expect(azure.calls[0]!.headers['api-key']).toBe('callers-own-azure-key');
  });

  it('429 keeps retry-after', async () => {
    inner.script({ kind: 'error', status: 429, headers: { 'retry-after': '7' } });
    const res = await post('/v1/chat/completions', hello('az/gpt-4o'));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
  });
});

describe('azure-openai: translated callers', () => {
  it('a messages caller gets an Anthropic answer', async () => {
    const res = await post('/v1/messages', hello('az/gpt-4o', { max_tokens: 100 }), messagesHeaders);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.type).toBe('message');
    expect(body.content).toEqual([{ type: 'text', text: 'you said: hello azure' }]);
    expect(body.stop_reason).toBe('end_turn');
    expect(body.usage).toMatchObject({ input_tokens: 11, output_tokens: 2 });
    const up = JSON.parse(azure.calls[0]!.rawBody);
    expect(up.model).toBe('prod-gpt4o');
    expect(up.messages).toEqual([{ role: 'user', content: 'hello azure' }]);
  });

  it('a messages stream with a forced tool becomes Anthropic tool_use events', async () => {
    inner.setHandler(() => undefined); // the strict default: a forced tool is called
    const res = await post(
      '/v1/messages',
      hello('azv1/gpt-4o', {
        max_tokens: 100,
        stream: true,
        tools: [
          {
            name: 'get_weather',
            input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        ],
        tool_choice: { type: 'tool', name: 'get_weather' },
      }),
      messagesHeaders,
    );
    expect(res.status).toBe(200);
    const events = (await readSse(res)).map((e) => JSON.parse(e.data));
    const start = events.find((e) => e.type === 'content_block_start');
    expect(start.content_block).toMatchObject({ type: 'tool_use', name: 'get_weather' });
    const args = events
      .filter((e) => e.type === 'content_block_delta')
      .map((e) => e.delta.partial_json)
      .join('');
    expect(Object.keys(JSON.parse(args))).toEqual(['city']);
    expect(events.find((e) => e.type === 'message_delta').delta.stop_reason).toBe('tool_use');
    expect(events.at(-1).type).toBe('message_stop');
    const up = JSON.parse(azure.calls[0]!.rawBody);
    expect(up.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
  });

  it('a Responses caller is translated too', async () => {
    const res = await post('/v1/responses', { model: 'az/gpt-4o', input: 'hello azure', store: false });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.output[0].content[0].text).toBe('you said: hello azure');
    expect(azure.calls[0]!.path).toBe('/openai/deployments/prod-gpt4o/chat/completions');
  });
});

describe('azure-openai: the official SDKs', () => {
  const TOOL = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const;

  it("the openai SDK's stream helper reads a passed-through Azure stream, tool call included", async () => {
    inner.setHandler(() => undefined); // the strict default: a forced tool is called
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const done = await openai.chat.completions
      .stream({
        model: 'az/gpt-4o',
        messages: [{ role: 'user', content: 'weather?' }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: TOOL } }],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
      })
      .finalChatCompletion();
    const choice = done.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    expect(call.type === 'function' && Object.keys(JSON.parse(call.function.arguments))).toEqual(['city']);
  });

  it("the Anthropic SDK's stream helper gets a translated answer", async () => {
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
    const message = await anthropic.messages
      .stream({ model: 'azv1/gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'hello azure' }] })
      .finalMessage();
    expect(message.content.map((b) => b.type === 'text' && b.text)).toEqual(['you said: hello azure']);
    expect(message.stop_reason).toBe('end_turn');
    expect(azure.calls.at(-1)!.path).toBe('/openai/v1/chat/completions');
  });
});

describe('azure-openai: content filter', () => {
  it("a filtered prompt is a 400 naming the filter, in the chat caller's format", async () => {
    const res = await post('/v1/chat/completions', {
      model: 'az/gpt-4o',
      messages: [{ role: 'user', content: 'FORBIDDEN-TOPIC' }],
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.code).toBe('upstream_error');
    expect(body.error.message).toBe(
      `Provider "az" returned HTTP 400: Azure OpenAI's content filter refused the prompt: violence (high)`,
    );
  });

  it("and in the messages caller's format", async () => {
    const res = await post(
      '/v1/messages',
      { model: 'az/gpt-4o', max_tokens: 50, messages: [{ role: 'user', content: 'FORBIDDEN-TOPIC' }] },
      messagesHeaders,
    );
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain('content filter refused the prompt: violence (high)');
  });

  it('finish_reason content_filter in a 200 becomes refusal for a messages caller', async () => {
    inner.setHandler({
      kind: 'json',
      body: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'prod-gpt4o',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Partial' }, finish_reason: 'content_filter' }],
        usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
      },
    });
    const res = await post('/v1/messages', hello('az/gpt-4o', { max_tokens: 50 }), messagesHeaders);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.stop_reason).toBe('refusal');
    expect(body.content).toEqual([{ type: 'text', text: 'Partial' }]);

    const responses = await post('/v1/responses', { model: 'az/gpt-4o', input: 'hello azure', store: false });
    expect(responses.status).toBe(200);
    const answer = await responses.json();
    expect([answer.status, answer.incomplete_details]).toEqual(['incomplete', { reason: 'content_filter' }]);
  });
});

describe('azure-openai-responses: the Responses API under /openai/v1', () => {
  beforeEach(() => inner.setHandler(() => undefined)); // the strict default answer: echo

  it('a Responses caller passes through; its stored response is read and deleted at Azure', async () => {
    const sent = '{"model":"azresp/gpt-4o","input":"hello azure","max_output_tokens":50}';
    const res = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: authHeaders(), body: sent });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.model).toBe('azresp/gpt-4o');
    expect(body.output.at(-1).content[0].text).toBe('echo: hello azure');
    const call = azure.calls[0]!;
    expect([call.path, call.apiVersion, call.headers['api-key']]).toEqual([
      '/openai/v1/responses',
      null,
      AZURE_API_KEY,
    ]);
    expect(call.rawBody).toBe(sent.replace('"azresp/gpt-4o"', '"prod-gpt4o"'));

    const got = await fetch(`${gw.url}/v1/responses/${body.id}`, { headers: authHeaders() });
    expect(got.status).toBe(200);
    expect((await got.json()).id).toBe(body.id);
    expect(azure.calls[1]!.path).toBe(`/openai/v1/responses/${body.id}`);
    expect(azure.calls[1]!.headers['api-key']).toBe(AZURE_API_KEY);
    const deleted = await fetch(`${gw.url}/v1/responses/${body.id}`, { method: 'DELETE', headers: authHeaders() });
    expect(deleted.status).toBe(200);
    expect((await deleted.json()).deleted).toBe(true);
  });

  it('a chat caller is translated into a Responses request', async () => {
    const res = await post('/v1/chat/completions', hello('azresp/gpt-4o', { stream: true }));
    expect(res.status).toBe(200);
    const events = await readSse(res);
    const text = events
      .slice(0, -1)
      .map((e) => JSON.parse(e.data).choices[0]?.delta?.content ?? '')
      .join('');
    expect(text).toBe('echo: hello azure');
    const up = JSON.parse(azure.calls[0]!.rawBody);
    expect([azure.calls[0]!.path, up.model, up.stream, up.store]).toEqual([
      '/openai/v1/responses',
      'prod-gpt4o',
      true,
      false,
    ]);
  });

  it('a messages caller on an Entra provider sends the bearer token', async () => {
    const res = await post('/v1/messages', hello('azrespentra/gpt-4o', { max_tokens: 50 }), messagesHeaders);
    expect(res.status).toBe(200);
    expect((await res.json()).content).toEqual([{ type: 'text', text: 'echo: hello azure' }]);
    const call = entra.calls.at(-1)!;
    expect(call.path).toBe('/openai/v1/responses');
    expect(call.headers.authorization).toMatch(/^Bearer entra-token-\d+$/);
  });

  it('a filtered prompt is the 400 naming the filter', async () => {
    const res = await post('/v1/responses', { model: 'azresp/gpt-4o', input: 'FORBIDDEN-TOPIC' });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toBe(
      `Provider "azresp" returned HTTP 400: Azure OpenAI's content filter refused the prompt: violence (high)`,
    );
  });

  it('embeddings at /openai/v1/embeddings', async () => {
    const res = await post('/v1/embeddings', { model: 'azresp/embed', input: 'some text' });
    expect(res.status).toBe(200);
    expect(azure.calls[0]!.path).toBe('/openai/v1/embeddings');
    expect(JSON.parse(azure.calls[0]!.rawBody).model).toBe('prod-embed');
  });
});

describe('gateway providers on Azure', () => {
  const check = async (id: string) => {
    const pool = new UpstreamPool();
    try {
      const p = config.providers.get(id)!;
      return await checkProvider(p, { timeoutMs: 2000, probe: true, pool, limit: (task) => task() });
    } finally {
      await pool.close();
    }
  };

  it('checks the models list and probes each model at its deployment, with the api-key', async () => {
    const r = await check('az');
    expect([r.status, r.credentials, r.endpoint, r.detail]).toEqual([
      'failed',
      'configured',
      `${azure.url}/openai/models`,
      'reachable, credentials accepted; a model probe failed',
    ]);
    expect(r.models!.map((m) => [m.model, m.status])).toEqual([
      ['az/gpt-4o', 'ok'],
      ['az/undeployed', 'failed'],
      ['az/embed', 'ok'],
    ]);
    expect(azure.calls.map((c) => [c.path, c.apiVersion])).toEqual([
      ['/openai/models', AZURE_API_VERSION],
      ['/openai/deployments/prod-gpt4o/chat/completions', AZURE_API_VERSION],
      ['/openai/deployments/not-deployed/chat/completions', AZURE_API_VERSION],
      ['/openai/deployments/prod-embed/embeddings', AZURE_API_VERSION],
    ]);
  });

  it('signs in with Entra ID, and says so when the token request is refused', async () => {
    const ok = await check('azresp');
    expect([ok.status, ok.endpoint]).toEqual(['failed', `${azure.url}/openai/v1/models`]);
    expect(ok.models!.find((m) => m.model === 'azresp/gpt-4o')!.status).toBe('ok');
    const bad = await check('azwrongsecret');
    expect([bad.status, bad.credentials, bad.error, bad.detail]).toEqual([
      'failed',
      'configured',
      'credentials_rejected',
      'Provider "azwrongsecret" could not get a Microsoft Entra ID token for tenant "tenant-1": ' +
        'the token endpoint answered HTTP 401 (invalid_client).',
    ]);
    expect(JSON.stringify(bad)).not.toContain('not-the-secret');
  });
});

describe('azure-openai: count_tokens', () => {
  it('is counted locally: Azure has no token-counting endpoint', async () => {
    const res = await post('/v1/messages/count_tokens', hello('az/gpt-4o'), messagesHeaders);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-token-count')).toMatch(/^local-/);
    expect((await res.json()).input_tokens).toBeGreaterThan(0);
    expect(azure.calls).toHaveLength(0);
  });
});

describe('azure-openai: embeddings', () => {
  it('go to the deployment embeddings path', async () => {
    const res = await post('/v1/embeddings', { model: 'az/embed', input: 'some text' });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.model).toBe('az/embed');
    expect(body.data).toHaveLength(1);
    expect(azure.calls[0]!.path).toBe('/openai/deployments/prod-embed/embeddings');
    expect(azure.calls[0]!.apiVersion).toBe(AZURE_API_VERSION);
  });
});

describe('azure-openai: Entra ID', () => {
  it('one token fetch serves concurrent requests; the token is refreshed before it expires', async () => {
    const before = entra.tokenFetches;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => post('/v1/chat/completions', hello('azentra/gpt-4o'))),
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(entra.tokenFetches - before).toBe(1);
    const first = entra.tokens.at(-1);
    expect(entra.calls.map((c) => c.headers.authorization)).toEqual(Array(5).fill(`Bearer ${first}`));
    expect(entra.calls.every((c) => c.headers['api-key'] === undefined)).toBe(true);

    // Valid for 4 s: refreshed once past half of it (the margin is 5 min or half the lifetime).
    await new Promise((r) => setTimeout(r, 2100));
    const again = await post('/v1/chat/completions', hello('azentra/gpt-4o'));
    expect(again.status).toBe(200);
    expect(entra.tokenFetches - before).toBe(2);
    expect(entra.calls.at(-1)!.headers.authorization).toBe(`Bearer ${entra.tokens.at(-1)}`);
    expect(entra.tokens.at(-1)).not.toBe(first);
  });

  it('a token Azure refuses is dropped: the next request fetches a new one', async () => {
    expect((await post('/v1/chat/completions', hello('azentra/gpt-4o'))).status).toBe(200);
    const before = entra.tokenFetches;
    entra.revokeTokens();
    const refused = await post('/v1/chat/completions', hello('azentra/gpt-4o'));
    expect(refused.status).toBe(502);
    expect(entra.tokenFetches).toBe(before);
    // The refusal opened the credential's circuit (1 ms here): the next request is its probe.
    await new Promise((r) => setTimeout(r, 5));
    const again = await post('/v1/chat/completions', hello('azentra/gpt-4o'));
    expect(again.status).toBe(200);
    expect(entra.tokenFetches).toBe(before + 1);
    expect(entra.calls.at(-1)!.headers.authorization).toBe(`Bearer ${entra.tokens.at(-1)}`);
  });

  it('a refused token request is a clear credential error that names no secret', async () => {
    const res = await post('/v1/chat/completions', hello('azwrongsecret/gpt-4o'));
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(JSON.parse(text).error.message).toBe(
      'model "azwrongsecret/gpt-4o" could not be served (1 attempt). Last failure: ' +
        'Provider "azwrongsecret" could not get a Microsoft Entra ID token for tenant "tenant-1": ' +
        'the token endpoint answered HTTP 401 (invalid_client).',
    );
    expect(text).not.toContain('not-the-secret');
    expect(entra.calls).toHaveLength(0);
    expect(gw.logs.join('\n')).not.toContain('not-the-secret');
  });

  it('a token endpoint that never answers fails within the first-byte timeout', async () => {
    const started = performance.now();
    const res = await post('/v1/chat/completions', hello('azhang/gpt-4o'));
    expect(performance.now() - started).toBeLessThan(3000);
    expect(res.status).toBe(504);
    expect((await res.json()).error.message).toBe(
      'model "azhang/gpt-4o" could not be served (1 attempt). Last failure: ' +
        'Provider "azhang" could not get a Microsoft Entra ID token for tenant "tenant-1": ' +
        'the token endpoint timed out.',
    );
  });

  it('tokens and secrets stay out of the logs', () => {
    const logs = gw.logs.join('\n');
    expect(logs).not.toContain(ENTRA.secret);
    expect(logs).not.toContain('entra-token-');
  });
});
