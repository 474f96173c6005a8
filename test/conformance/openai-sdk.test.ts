/** The official `openai` SDK against the gateway, for the built-in mock and an OpenAI-format upstream. */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { youSaid, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { formatsGateway, OTHER_ROLE_KEY, TEST_KEY } from '../helpers/gateway-config.js';
import { configOf, type RunningGateway, startGateway } from '../helpers/start-gateway.js';

let upstream: FakeUpstream;
let gw: RunningGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startFakeUpstream({ handler: youSaid });
  gw = await startGateway(configOf(formatsGateway(upstream.url)));
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});

const models = [
  { name: 'built-in mock', model: 'local/echo', reply: 'ping pong' },
  { name: 'OpenAI-format upstream', model: 'up/gpt-test', reply: 'you said: ping pong' },
];

describe.each(models)('$name', ({ model, reply }) => {
  it('chat.completions.create', async () => {
    const res = await client.chat.completions.create({
      model,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'ping pong' },
      ],
    });
    expect(res.choices[0].message.content).toBe(reply);
    expect(res.choices[0].finish_reason).toBe('stop');
    expect(res.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('chat.completions.stream().finalChatCompletion()', async () => {
    const stream = client.chat.completions.stream({
      model,
      messages: [{ role: 'user', content: 'ping pong' }],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0].message.content).toBe(reply);
    expect(final.choices[0].finish_reason).toBe('stop');
  });

  it('create({stream: true}) yields deltas that add up', async () => {
    const stream = await client.chat.completions.create({
      model,
      stream: true,
      messages: [{ role: 'user', content: 'ping pong' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(reply);
  });
});

describe('models.list', () => {
  it('lists exactly what the role may use, with context windows', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) {
      ids.push(m.id);
      expect((m as unknown as { context_window: number }).context_window).toBeGreaterThan(0);
    }
    expect(ids).toContain('local/echo');
    expect(ids).toContain('team/fast');
    expect(ids).not.toContain('up/other');
    const viewer = new OpenAI({ apiKey: OTHER_ROLE_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const viewerIds: string[] = [];
    for await (const m of viewer.models.list()) viewerIds.push(m.id);
    expect(viewerIds).toEqual(['local/echo']);
  });
});

describe('errors surface as the SDK error classes', () => {
  const msg = [{ role: 'user' as const, content: 'x' }];
  it('401 → AuthenticationError', async () => {
    const bad = new OpenAI({ apiKey: 'nope-nope-nope', baseURL: `${gw.url}/v1`, maxRetries: 0 });
    await expect(bad.chat.completions.create({ model: 'local/echo', messages: msg })).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
  });
  it('403 → PermissionDeniedError', async () => {
    const viewer = new OpenAI({ apiKey: OTHER_ROLE_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    await expect(viewer.chat.completions.create({ model: 'up/gpt-test', messages: msg })).rejects.toBeInstanceOf(
      OpenAI.PermissionDeniedError,
    );
  });
  it('404 → NotFoundError', async () => {
    await expect(client.chat.completions.create({ model: 'no/such', messages: msg })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
  });
  it('400 → BadRequestError with the field named', async () => {
    const err = await client.chat.completions
      .create({ model: 'local/echo', messages: msg, temperature: 5 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.param).toBe('temperature');
    expect(err.code).toBe('invalid_request');
  });
  it('429 from upstream → RateLimitError; 500 → InternalServerError; in-stream error → APIError', async () => {
    upstream.setHandler(() => ({ kind: 'json', status: 429, body: { error: { message: 'slow down' } } }));
    await expect(client.chat.completions.create({ model: 'up/gpt-test', messages: msg })).rejects.toBeInstanceOf(
      OpenAI.RateLimitError,
    );
    upstream.setHandler(() => ({ kind: 'raw', status: 500, body: '{}' }));
    await expect(client.chat.completions.create({ model: 'up/gpt-test', messages: msg })).rejects.toBeInstanceOf(
      OpenAI.InternalServerError,
    );
    upstream.setHandler(() => ({
      kind: 'drop',
      events: [
        'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",' +
          '"choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}\n\n',
      ],
    }));
    const stream = client.chat.completions.stream({ model: 'up/gpt-test', messages: msg });
    await expect(stream.finalChatCompletion()).rejects.toBeInstanceOf(OpenAI.APIError);
    upstream.setHandler(youSaid);
  });
});
