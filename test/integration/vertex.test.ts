/**
 * The vertex and vertex-anthropic kinds over real HTTP: the official openai SDK (chat, responses)
 * and the Anthropic SDK reaching a Gemini model and a Claude model on the fake Vertex AI
 * (fake-vertex.ts, in front of THE fake upstream's strict Gemini and Anthropic APIs), JSON
 * and streams, tool round trips; the service account's token fetched once for concurrent requests,
 * refreshed before expiry and after a refusal; credentials that fail; `gateway providers` on both.
 */

import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkProvider } from '../../src/cli/provider-check.js';
import type { GatewayConfig } from '../../src/config/types.js';
import { UpstreamPool } from '../../src/upstream/client.js';
import { type FakeUpstream, type Reply, startFakeUpstream, type UpstreamCall } from '../helpers/fake-upstream.js';
import { type FakeVertex, startFakeVertex } from '../helpers/fake-vertex.js';
import { loadTestConfig, type RunningGateway, startGateway } from '../helpers/start-gateway.js';

const KEY = 'vertex-suite-key-0001';
const GEMINI_KEY = 'AIza-behind-vertex-000111';
const PROJECT = 'fake-project';
const LOCATION = 'europe-west4';
const MODEL = 'vx/gemini-2.5-flash';
const CLAUDE = 'claude/claude-sonnet-4-5';
const LOCATION_PATH = `/v1/projects/${PROJECT}/locations/${LOCATION}`;
const CLAUDE_PATH = `${LOCATION_PATH}/publishers/anthropic/models/claude-sonnet-4-5@20250929`;
const VERTEX_PATH = `/v1/projects/${PROJECT}/locations/${LOCATION}/publishers/google/models/gemini-2.5-flash`;
const CLAUDE_COUNT_PATH = `${LOCATION_PATH}/publishers/anthropic/models/count-tokens:rawPredict`;
/** What the fake upstreams answer to a token count. */
const GEMINI_COUNT = 777;
const CLAUDE_COUNT = 555;

let gemini: FakeUpstream;
/** A token endpoint that takes the connection and never answers. */
let hangingServer: Server;
let hanging: string;
let claudeUp: FakeUpstream;
let vertex: FakeVertex;
let config: GatewayConfig;
let gw: RunningGateway;
let openai: OpenAI;
let anthropic: Anthropic;

/** The fake's key file with some of its fields changed. */
function keyFileWith(name: string, change: Record<string, unknown>): string {
  const key = JSON.parse(readFileSync(vertex.keyFile, 'utf8')) as Record<string, unknown>;
  const file = join(tmpdir(), `vertex-${name}-${process.pid}.json`);
  writeFileSync(file, JSON.stringify({ ...key, ...change }));
  return file;
}

/** Another private key: its assertions do not verify. */
function otherPrivateKey(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

function configYaml(): string {
  const models = '{ gemini-2.5-flash: { context_window: 1048576, max_output_tokens: 8192 } }';
  const provider = (project: string, location: string, keyFile = vertex.keyFile, firstByteMs = 2000) => `
    api: vertex
    base_url: ${vertex.url}
    vertex: { project: ${project}, location: ${location}, credentials_file: "${keyFile}" }
    timeouts: { connect_ms: 1000, first_byte_ms: ${firstByteMs}, total_ms: 5000 }
    cooldown: { failures: 1000, cooldown_ms: 1 }
    models: ${models}`;
  return `
routing: { retry: { max_retries: 0 }, fallback_on: [] }
providers:
  vx: ${provider(PROJECT, LOCATION)}
  fresh: ${provider(PROJECT, LOCATION)}
  wrongkey: ${provider(PROJECT, LOCATION, keyFileWith('wrong', { private_key: otherPrivateKey() }))}
  tokendown: ${provider(PROJECT, LOCATION, keyFileWith('down', { token_uri: 'http://127.0.0.1:9/token' }))}
  tokenhang: ${provider(PROJECT, LOCATION, keyFileWith('hang', { token_uri: `${hanging}/token` }), 300)}
  nofile: ${provider(PROJECT, LOCATION, '/nonexistent/vertex-key.json')}
  claude:
    api: vertex-anthropic
    base_url: ${vertex.url}
    vertex: { project: ${PROJECT}, location: ${LOCATION}, credentials_file: "${vertex.keyFile}" }
    models: { claude-sonnet-4-5: { context_window: 200000, upstream_name: "claude-sonnet-4-5@20250929" } }
  claudeprobe:
    api: vertex-anthropic
    base_url: ${vertex.url}
    vertex: { project: ${PROJECT}, location: ${LOCATION}, credentials_file: "${vertex.keyFile}" }
    models: { claude-sonnet-4-5: { context_window: 200000, upstream_name: "claude-sonnet-4-5@20250929" } }
  otherproject: ${provider('someone-else', LOCATION)}
  otherlocation: ${provider(PROJECT, 'us-central1')}
roles: { dev: { models: ['*'] } }
keys: [{ id: k, key: ${KEY}, role: dev }]
`;
}

beforeAll(async () => {
  hangingServer = createServer(() => {});
  await new Promise<void>((r) => hangingServer.listen(0, '127.0.0.1', r));
  hanging = `http://127.0.0.1:${(hangingServer.address() as AddressInfo).port}`;
  gemini = await startFakeUpstream({ geminiKey: GEMINI_KEY, countTokens: () => GEMINI_COUNT });
  claudeUp = await startFakeUpstream({ countTokens: () => CLAUDE_COUNT });
  vertex = await startFakeVertex({
    project: PROJECT,
    location: LOCATION,
    gemini: gemini.url,
    geminiKey: GEMINI_KEY,
    anthropic: claudeUp.url,
  });
  config = loadTestConfig(configYaml());
  gw = await startGateway(config);
  openai = new OpenAI({ apiKey: KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: KEY, baseURL: gw.url, maxRetries: 0 });
});
afterAll(async () => {
  hangingServer?.closeAllConnections();
  hangingServer?.close();
  await gw?.close();
  await vertex?.close();
  await gemini?.close();
  await claudeUp?.close();
});
beforeEach(() => {
  gemini.reset();
  vertex.received.length = 0;
  claudeUp.reset();
});

/** First turn: call get_weather; once the result is back: answer from it. */
function weatherLoop(call: UpstreamCall): Reply {
  const contents = call.body.contents as Array<{ parts: Array<Record<string, unknown>> }>;
  const answered = contents[contents.length - 1].parts.find((p) => p.functionResponse !== undefined);
  if (answered) return { text: [`It is ${JSON.stringify(answered.functionResponse)}`] };
  return { toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }] };
}

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('openai SDK, chat completions → Gemini on Vertex', () => {
  it('JSON: the project/location path, a bearer token, the Gemini body', async () => {
    const res = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hello there' }],
      max_tokens: 50,
    });
    expect(res.choices[0].message.content).toBe('echo: Hello there');
    expect(res.model).toBe(MODEL);
    expect(vertex.received[0].path).toBe(`${VERTEX_PATH}:generateContent`);
    expect(vertex.received[0].authorization).toMatch(/^Bearer ya29\.fake-\d+-/);
    expect(vertex.received[0].status).toBe(200);
    expect(gemini.received[0].body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
      generationConfig: { maxOutputTokens: 50 },
    });
  });

  it('stream: streamGenerateContent?alt=sse, the text in order', async () => {
    gemini.setHandler({ text: ['One, ', 'two.'] });
    const stream = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Count' }],
      stream: true,
    });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe('One, two.');
    expect(finish).toBe('stop');
    expect(vertex.received[0].path).toBe(`${VERTEX_PATH}:streamGenerateContent?alt=sse`);
  });

  it('tool round trip: the call, its result back, the answer', async () => {
    gemini.setHandler(weatherLoop);
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: WEATHER_TOOL }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await openai.chat.completions.create({ model: MODEL, messages, tools });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const tc = first.choices[0].message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(tc.function.name).toBe('get_weather');
    expect(JSON.parse(tc.function.arguments)).toEqual({ city: 'Paris' });
    messages.push(
      { role: 'assistant', content: null, tool_calls: [tc] },
      { role: 'tool', tool_call_id: tc.id, content: '18C' },
    );
    const second = await openai.chat.completions.create({ model: MODEL, messages, tools });
    expect(second.choices[0].message.content).toBe('It is {"name":"get_weather","response":{"output":"18C"}}');
    expect(vertex.received.map((c) => c.status)).toEqual([200, 200]);
  });
});

describe('Anthropic SDK, messages → Gemini on Vertex', () => {
  it('JSON', async () => {
    const msg = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi from Claude Code' }],
    });
    expect(msg.content).toEqual([{ type: 'text', text: 'echo: Hi from Claude Code' }]);
    expect(msg.stop_reason).toBe('end_turn');
    expect(vertex.received[0].path).toBe(`${VERTEX_PATH}:generateContent`);
  });

  it('stream with a tool call', async () => {
    gemini.setHandler(weatherLoop);
    const stream = anthropic.messages.stream({
      model: MODEL,
      max_tokens: 64,
      tools: [
        { name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, input_schema: WEATHER_TOOL.parameters },
      ],
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    const msg = await stream.finalMessage();
    expect(msg.stop_reason).toBe('tool_use');
    const use = msg.content.find((b) => b.type === 'tool_use');
    expect(use).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } });
    expect(vertex.received[0].path).toBe(`${VERTEX_PATH}:streamGenerateContent?alt=sse`);
  });
});

describe('Claude on Vertex (vertex-anthropic)', () => {
  it('Anthropic SDK, JSON: pass-through with exactly two edits (no model, anthropic_version), rawPredict', async () => {
    const msg = await anthropic.messages.create({
      model: CLAUDE,
      max_tokens: 64,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hello Claude' }],
    });
    expect(msg.content).toEqual([{ type: 'text', text: 'echo: Hello Claude' }]);
    expect(msg.model).toBe(CLAUDE);
    const call = vertex.received[0];
    expect(call.path).toBe(`${CLAUDE_PATH}:rawPredict`);
    expect(call.authorization).toMatch(/^Bearer ya29\.fake-/);
    expect(call.body.startsWith('{"anthropic_version":"vertex-2023-10-16",')).toBe(true);
    expect(JSON.parse(call.body)).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 64,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hello Claude' }],
    });
    expect(claudeUp.received[0].body.model).toBe('claude-sonnet-4-5@20250929');
  });

  it('Anthropic SDK, stream: streamRawPredict, the events relayed', async () => {
    const stream = anthropic.messages.stream({
      model: CLAUDE,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Stream please' }],
    });
    const msg = await stream.finalMessage();
    expect(msg.content).toEqual([{ type: 'text', text: 'echo: Stream please' }]);
    expect(msg.model).toBe(CLAUDE);
    expect(vertex.received[0].path).toBe(`${CLAUDE_PATH}:streamRawPredict`);
    expect(JSON.parse(vertex.received[0].body).stream).toBe(true);
  });

  it('openai SDK chat, JSON and stream: translated, no model in the body', async () => {
    const res = await openai.chat.completions.create({
      model: CLAUDE,
      messages: [{ role: 'user', content: 'From OpenAI' }],
      max_tokens: 32,
    });
    expect(res.choices[0].message.content).toBe('echo: From OpenAI');
    const stream = await openai.chat.completions.create({
      model: CLAUDE,
      messages: [{ role: 'user', content: 'Streamed' }],
      max_tokens: 32,
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('echo: Streamed');
    expect(vertex.received.map((c) => c.path)).toEqual([
      `${CLAUDE_PATH}:rawPredict`,
      `${CLAUDE_PATH}:streamRawPredict`,
    ]);
    for (const c of vertex.received) {
      const body = JSON.parse(c.body);
      expect(body.model).toBeUndefined();
      expect(body.anthropic_version).toBe('vertex-2023-10-16');
    }
  });

  it('openai SDK chat: a tool round trip', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: WEATHER_TOOL }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await openai.chat.completions.create({
      model: CLAUDE,
      messages,
      tools,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const tc = first.choices[0].message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(tc.function.name).toBe('get_weather');
    messages.push(
      { role: 'assistant', content: null, tool_calls: [tc] },
      { role: 'tool', tool_call_id: tc.id, content: '18C' },
      { role: 'user', content: 'Thanks' },
    );
    const second = await openai.chat.completions.create({ model: CLAUDE, messages, tools });
    expect(second.choices[0].message.content).toBe('echo: Thanks');
    const sent = JSON.parse(vertex.received[1].body) as { messages: Array<{ content: unknown }> };
    expect(sent.messages[2].content).toContainEqual({ type: 'tool_result', tool_use_id: tc.id, content: '18C' });
    expect(claudeUp.received.map((c) => c.status)).toEqual([200, 200]);
  });
});

describe('openai SDK, responses → both Vertex kinds', () => {
  it.each([
    [MODEL, `${VERTEX_PATH}:generateContent`, 'echo: Via Responses'],
    [CLAUDE, `${CLAUDE_PATH}:rawPredict`, 'echo: Via Responses'],
  ])('%s: translated, JSON', async (model, path, text) => {
    const res = await openai.responses.create({ model, input: 'Via Responses', store: false });
    expect(res.output_text).toBe(text);
    expect(res.model).toBe(model);
    expect(vertex.received.map((c) => [c.path, c.status])).toEqual([[path, 200]]);
  });
});

describe('token counts on both Vertex kinds: the upstream counts', () => {
  const count = (path: string, body: unknown) =>
    fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const messages = [{ role: 'user', content: 'Count these words' }];

  it('vertex, /v1/messages/count_tokens: :countTokens with the counted fields at the top', async () => {
    const res = await count('/v1/messages/count_tokens', { model: MODEL, system: 'Be brief.', messages });
    expect([res.status, res.headers.get('x-gateway-token-count')]).toEqual([200, 'upstream']);
    expect(await res.json()).toEqual({ input_tokens: GEMINI_COUNT });
    expect(vertex.received.map((c) => [c.path, c.status])).toEqual([[`${VERTEX_PATH}:countTokens`, 200]]);
    expect(JSON.parse(vertex.received[0].body)).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Count these words' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
    });
    expect(gemini.received.map((c) => [c.endpoint, c.status])).toEqual([['count_tokens', 200]]);
  });

  it('vertex-anthropic, /v1/messages/count_tokens: count-tokens:rawPredict, the body with its model', async () => {
    const res = await count('/v1/messages/count_tokens', { model: CLAUDE, system: 'Be brief.', messages });
    expect([res.status, res.headers.get('x-gateway-token-count')]).toEqual([200, 'upstream']);
    expect(await res.json()).toEqual({ input_tokens: CLAUDE_COUNT });
    const call = vertex.received[0];
    expect([call.path, call.status]).toEqual([CLAUDE_COUNT_PATH, 200]);
    expect(call.body.startsWith('{"anthropic_version":"vertex-2023-10-16",')).toBe(true);
    expect(JSON.parse(call.body)).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      model: 'claude-sonnet-4-5@20250929',
      system: 'Be brief.',
      messages,
    });
    expect(claudeUp.received.map((c) => [c.path, c.body.model])).toEqual([
      ['/v1/messages/count_tokens', 'claude-sonnet-4-5@20250929'],
    ]);
  });

  it.each([
    [MODEL, `${VERTEX_PATH}:countTokens`, GEMINI_COUNT],
    [CLAUDE, CLAUDE_COUNT_PATH, CLAUDE_COUNT],
  ])('%s, /v1/responses/input_tokens: the upstream count', async (model, path, n) => {
    const res = await openai.responses.inputTokens.count({ model, input: 'Count these words', instructions: 'Hi' });
    expect(res).toEqual({ object: 'response.input_tokens', input_tokens: n });
    expect(vertex.received.map((c) => [c.path, c.status])).toEqual([[path, 200]]);
  });

  it('a count Vertex refuses (400) is the caller’s error, in its format', async () => {
    gemini.script(400);
    const refused = await count('/v1/messages/count_tokens', { model: MODEL, messages });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('(INVALID_ARGUMENT)') },
    });
    claudeUp.script(400);
    const err = await openai.responses.inputTokens
      .count({ model: CLAUDE, input: 'Count these words' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      type: 'invalid_request_error',
      message: expect.stringContaining('scripted 400'),
    });
    expect(vertex.received.map((c) => c.status)).toEqual([400, 400]);
  });
});

describe('the fake Vertex is strict', () => {
  const post = (path: string, body: unknown, token?: string) =>
    fetch(`${vertex.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const claudeBody = {
    anthropic_version: 'vertex-2023-10-16',
    max_tokens: 8,
    messages: [{ role: 'user', content: 'x' }],
  };

  it('takes the Claude body as Vertex documents it', async () => {
    const res = await post(`${CLAUDE_PATH}:rawPredict`, claudeBody, vertex.issueToken());
    expect(res.status).toBe(200);
  });

  it('the count routes: Claude’s needs its model; Gemini’s takes Vertex’s fields only', async () => {
    const token = vertex.issueToken();
    const countBody = { messages: claudeBody.messages };
    expect((await post(CLAUDE_COUNT_PATH, countBody, token)).status).toBe(400);
    expect((await post(CLAUDE_COUNT_PATH, { ...countBody, model: 'claude-x@1' }, token)).status).toBe(200);
    const contents = [{ role: 'user', parts: [{ text: 'x' }] }];
    const wrapped = await post(`${VERTEX_PATH}:countTokens`, { generateContentRequest: { contents } }, token);
    expect([wrapped.status, (await wrapped.json()).error.status]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(await (await post(`${VERTEX_PATH}:countTokens`, { contents }, token)).json()).toEqual({
      totalTokens: GEMINI_COUNT,
    });
  });

  it.each([
    ['no token', `${CLAUDE_PATH}:rawPredict`, claudeBody, false, 401],
    ['a model in the body', `${CLAUDE_PATH}:rawPredict`, { ...claudeBody, model: 'claude' }, true, 400],
    ['no anthropic_version', `${CLAUDE_PATH}:rawPredict`, { max_tokens: 8, messages: claudeBody.messages }, true, 400],
    ['another project', `${CLAUDE_PATH.replace(PROJECT, 'other')}:rawPredict`, claudeBody, true, 403],
    [
      'another location',
      `${CLAUDE_PATH.replace(`locations/${LOCATION}`, 'locations/us-east5')}:rawPredict`,
      claudeBody,
      true,
      404,
    ],
  ])('refuses %s', async (_what, path, body, withToken, status) => {
    const res = await post(path, body, withToken ? vertex.issueToken() : undefined);
    expect(res.status).toBe(status);
    expect(claudeUp.received).toEqual([]);
  });
});

describe('the service-account token', () => {
  it('the fake verified every assertion it was sent (none refused)', () => {
    expect(vertex.refusals).toEqual([]);
  });

  it('concurrent first requests share one token fetch', async () => {
    const before = vertex.tokenFetches;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        openai.chat.completions.create({
          model: 'fresh/gemini-2.5-flash',
          messages: [{ role: 'user', content: `n${i}` }],
        }),
      ),
    );
    expect(answers.map((a) => a.choices[0].message.content)).toEqual(
      Array.from({ length: 6 }, (_, i) => `echo: n${i}`),
    );
    expect(vertex.tokenFetches).toBe(before + 1);
    expect(vertex.received).toHaveLength(6);
    expect(new Set(vertex.received.map((c) => c.authorization)).size).toBe(1);
  });

  it('a token Vertex refuses (401) is dropped: the next request fetches another', async () => {
    await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'warm' }] });
    vertex.revokeAll();
    const before = vertex.tokenFetches;
    const refused = await openai.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect(vertex.tokenFetches).toBe(before);
    const res = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'y' }] });
    expect(res.choices[0].message.content).toBe('echo: y');
    expect(vertex.tokenFetches).toBe(before + 1);
    expect(vertex.received.map((c) => c.status)).toEqual([200, 401, 200]);
  });

  it('a token is refreshed before it expires', async () => {
    vertex.tokenLifetimeS = 2;
    vertex.revokeAll();
    // The refused token is dropped; the next one lives 2 s, so it is refreshed after 1 s.
    await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'a' }] }).catch(() => {});
    const fetches = vertex.tokenFetches;
    await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'b' }] });
    await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'c' }] });
    expect(vertex.tokenFetches).toBe(fetches + 1);
    await new Promise((r) => setTimeout(r, 1100));
    await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'd' }] });
    expect(vertex.tokenFetches).toBe(fetches + 2);
    const auth = vertex.received.slice(-3).map((c) => c.authorization);
    expect(auth[0]).toBe(auth[1]);
    expect(auth[2]).not.toBe(auth[1]);
    expect(vertex.received.slice(-3).map((c) => c.status)).toEqual([200, 200, 200]);
    vertex.tokenLifetimeS = 3600;
  });
});

describe('credentials that do not work', () => {
  const chat = (model: string) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'x' }] }),
    });

  it('a key the token endpoint refuses: a credential error naming the provider, no key', async () => {
    const refusals = vertex.refusals.length;
    const res = await chat('wrongkey/gemini-2.5-flash');
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(JSON.parse(text).error.message).toBe(
      'model "wrongkey/gemini-2.5-flash" could not be served (1 attempt). Last failure: ' +
        'Provider "wrongkey" could not get a Google Cloud access token: the token endpoint answered HTTP 400.',
    );
    expect(vertex.refusals.slice(refusals)).toEqual(['invalid JWT signature']);
    expect(vertex.received).toEqual([]);
    expect(text).not.toContain('PRIVATE KEY');
  });

  it('a key file that cannot be read: the same credential error', async () => {
    const res = await chat('nofile/gemini-2.5-flash');
    expect(res.status).toBe(502);
    expect((await res.json()).error.message).toBe(
      'model "nofile/gemini-2.5-flash" could not be served (1 attempt). Last failure: ' +
        'Provider "nofile" could not get a Google Cloud access token: its credentials could not be loaded.',
    );
    expect(vertex.received).toEqual([]);
  });

  it('a token endpoint that cannot be reached: transient (upstream unavailable)', async () => {
    const res = await chat('tokendown/gemini-2.5-flash');
    const body = await res.json();
    // 502 upstream_unavailable, as a provider that cannot be reached (retryable, unlike a refusal).
    expect([res.status, res.headers.get('x-should-retry'), body.error.message]).toEqual([
      502,
      'true',
      'model "tokendown/gemini-2.5-flash" could not be served (1 attempt). Last failure: ' +
        'Provider "tokendown" could not get a Google Cloud access token: the token endpoint could not be reached.',
    ]);
  });

  it('a token endpoint that never answers fails within the first-byte timeout (504)', async () => {
    const started = performance.now();
    const res = await chat('tokenhang/gemini-2.5-flash');
    expect(performance.now() - started).toBeLessThan(2000);
    expect([res.status, (await res.json()).error.message]).toEqual([
      504,
      'model "tokenhang/gemini-2.5-flash" could not be served (1 attempt). Last failure: ' +
        'Provider "tokenhang" could not get a Google Cloud access token: the token request timed out.',
    ]);
  });

  it('tokens and keys stay out of the logs', () => {
    const logs = gw.logs.join('\n');
    expect(logs).not.toContain('ya29.');
    expect(logs).not.toContain('PRIVATE KEY');
  });
});

describe('wrong project or location', () => {
  it.each([
    ['otherproject', 403],
    ['otherlocation', 404],
  ])('%s: the fake refuses (%i) and the caller gets an error', async (provider, status) => {
    const err = await openai.chat.completions
      .create({ model: `${provider}/gemini-2.5-flash`, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(vertex.received[0].status).toBe(status);
    expect(gemini.received).toEqual([]);
  });
});

describe('gateway providers on vertex', () => {
  it('the project’s model list answers with the token: healthy; --probe: one generateContent', async () => {
    const pool = new UpstreamPool();
    const p = config.providers.get('vx');
    if (!p) throw new Error('no vx provider');
    const check = await checkProvider(p, { probe: true, timeoutMs: 3000, pool, limit: (task) => task() });
    expect(check).toMatchObject({ status: 'ok', credentials: 'configured' });
    expect(check.models?.map((m) => m.status)).toEqual(['ok']);
    expect(vertex.received.map((c) => c.path)).toEqual([
      `/v1/projects/${PROJECT}/locations/${LOCATION}/models?pageSize=1`,
      `${VERTEX_PATH}:generateContent`,
    ]);
    expect(gemini.received[0].body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'ping' }] }],
      generationConfig: { maxOutputTokens: 1 },
    });
    await pool.close();
  });

  it('vertex-anthropic: --probe sends one rawPredict body Vertex takes', async () => {
    const pool = new UpstreamPool();
    // A provider of its own: no token cached yet (the token tests revoke the others').
    const p = config.providers.get('claudeprobe');
    if (!p) throw new Error('no claudeprobe provider');
    const check = await checkProvider(p, { probe: true, timeoutMs: 3000, pool, limit: (task) => task() });
    expect(check).toMatchObject({ status: 'ok', kind: 'vertex-anthropic', credentials: 'configured' });
    expect(check.models?.map((m) => m.status)).toEqual(['ok']);
    expect(vertex.received.map((c) => [c.path, c.status])).toEqual([
      [`/v1/projects/${PROJECT}/locations/${LOCATION}/models?pageSize=1`, 200],
      [`${CLAUDE_PATH}:rawPredict`, 200],
    ]);
    await pool.close();
  });
});
