/**
 * Embeddings through the gateway with the client libraries people use for them: the official
 * openai SDK's `embeddings.create` (which asks for base64 unless told otherwise and decodes it)
 * and the AI SDK's `embed` / `embedMany` with `createOpenAI(...).embedding(model)`, on an
 * OpenAI-format upstream (the strict fake) and on the built-in mock.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { embed, embedMany } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.js';
import { gatewayYaml } from '../helpers/gateway-config.js';
import { loadTestConfig, type RunningGateway, startGateway } from '../helpers/start-gateway.js';
import { fakeEmbedding } from '../helpers/upstream-wire.js';

const KEY = 'embeddings-sdk-key-0001';
const CHAT_ONLY_KEY = 'embeddings-sdk-key-0002';

let up: FakeUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  up = await startFakeUpstream();
  const yaml = gatewayYaml({
    server: { host: '127.0.0.1', port: 0, shutdown_grace_ms: 1000 },
    routing: { retry: { max_retries: 0 } },
    providers: {
      oai: {
        api: 'openai',
        url: up.url,
        api_key: 'sk-embeddings-sdk-provider-01',
        models: {
          'text-embedding-3-small': { context_window: 8191, kind: 'embedding', price: { input: 0.02 } },
          'gpt-4o-mini': { context_window: 128000 },
        },
      },
      local: { api: 'mock', models: { embed: { context_window: 8192, kind: 'embedding', dimensions: 16 } } },
    },
    aliases: { 'team/embed': { targets: ['oai/text-embedding-3-small'] } },
    roles: { all: { models: ['*'] }, chat: { models: ['oai/gpt-4o-mini'] } },
    keys: [
      { id: 'all', key: KEY, role: 'all' },
      { id: 'chat', key: CHAT_ONLY_KEY, role: 'chat' },
    ],
  });
  gw = await startGateway(loadTestConfig(yaml));
});
afterAll(async () => {
  await gw.close();
  await up.close();
});
beforeEach(() => up.reset());

const openai = (apiKey = KEY) => new OpenAI({ apiKey, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const aiSdk = (model: string) => createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY }).embedding(model);

describe('openai SDK: embeddings.create', () => {
  it('asks for base64 by default and gets the upstream vectors back as numbers', async () => {
    const res = await openai().embeddings.create({ model: 'team/embed', input: ['first text', 'second'] });
    expect(up.calls[0]!.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['first text', 'second'],
      encoding_format: 'base64',
    });
    expect(res.model).toBe('team/embed');
    expect(res.data.map((d) => d.embedding)).toEqual([fakeEmbedding('first text'), fakeEmbedding('second')]);
    expect(res.usage).toEqual({ prompt_tokens: 3 + 2, total_tokens: 5 });
  });

  it('float when asked, with dimensions passed through', async () => {
    const res = await openai().embeddings.create({
      model: 'oai/text-embedding-3-small',
      input: 'third',
      encoding_format: 'float',
      dimensions: 6,
    });
    expect(up.calls[0]!.body).toMatchObject({ encoding_format: 'float', dimensions: 6 });
    expect(res.data[0]!.embedding).toEqual(fakeEmbedding('third', 6));
  });

  it("the mock's base64 decodes to its float answer; dimensions honoured", async () => {
    const client = openai();
    const b64 = await client.embeddings.create({ model: 'local/embed', input: 'offline' });
    const floats = await client.embeddings.create({ model: 'local/embed', input: 'offline', encoding_format: 'float' });
    expect(b64.data[0]!.embedding).toHaveLength(16);
    expect(b64.data[0]!.embedding).toEqual(floats.data[0]!.embedding);
    const small = await client.embeddings.create({ model: 'local/embed', input: ['a', 'b'], dimensions: 3 });
    expect(small.data.map((d) => d.embedding.length)).toEqual([3, 3]);
    expect(up.calls).toHaveLength(0);
  });

  it('errors arrive as the SDK error classes, with param', async () => {
    const chat = await openai()
      .embeddings.create({ model: 'oai/gpt-4o-mini', input: 'x' })
      .catch((e: unknown) => e);
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    expect(chat).toMatchObject({ status: 400, param: 'model', code: 'invalid_request' });
    const denied = await openai(CHAT_ONLY_KEY)
      .embeddings.create({ model: 'local/embed', input: 'x' })
      .catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(denied).toMatchObject({ status: 403, code: 'model_not_allowed' });
  });
});

describe('AI SDK: embed and embedMany with createOpenAI().embedding()', () => {
  it('embed: one vector and its usage', async () => {
    const r = await embed({ model: aiSdk('team/embed'), value: 'sunny day', maxRetries: 0 });
    expect(r.embedding).toEqual(fakeEmbedding('sunny day'));
    expect(r.usage).toEqual({ tokens: 3 });
    expect(up.calls[0]!.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['sunny day'],
      encoding_format: 'float',
    });
  });

  it('embedMany: the vectors in order', async () => {
    const values = ['one', 'two two', 'three three three'];
    const r = await embedMany({ model: aiSdk('oai/text-embedding-3-small'), values, maxRetries: 0 });
    expect(r.embeddings).toEqual(values.map((v) => fakeEmbedding(v)));
    expect(r.usage).toEqual({ tokens: 1 + 2 + 5 });
  });

  it('on the mock, with dimensions as a provider option', async () => {
    const r = await embedMany({
      model: aiSdk('local/embed'),
      values: ['a', 'b'],
      providerOptions: { openai: { dimensions: 4 } },
      maxRetries: 0,
    });
    expect(r.embeddings.map((e) => e.length)).toEqual([4, 4]);
    expect(r.embeddings[0]).not.toEqual(r.embeddings[1]);
    expect(up.calls).toHaveLength(0);
  });
});
