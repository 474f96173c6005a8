/**
 * The bedrock-anthropic kind over real HTTP: the Anthropic SDK (pass-through with Bedrock's edits),
 * the openai SDK's chat and Responses calls (translated) reaching Claude through InvokeModel on the
 * strict fake Bedrock front (fake-bedrock-invoke.ts, which checks every SigV4 signature or the API
 * key, and relays to the strict fake Anthropic API): JSON, AWS event-stream chunks, a tool round
 * trip with a signed thinking block, exceptions, credentials, secrets, CountTokens; and Claude
 * Code's captured requests (test/fixtures/claude-code/) replayed on it.
 */

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeBedrockInvoke, startFakeBedrockInvoke } from '../helpers/fake-bedrock-invoke.js';
import { type FakeUpstream, startFakeUpstream, type UpstreamCall } from '../helpers/fake-upstream.js';
import { assertAnthropicStreamOrder } from '../helpers/anthropic-order.js';
import {
  CC_KEY,
  claudeCodeReply,
  expectAnthropicStream,
  loadScenarios,
  replay,
  thinkingFitted,
} from '../clients/claude-code-fixtures.js';
import { readSse } from '../helpers/sse.js';
import { loadTestConfig, type RunningGateway, startGateway } from '../helpers/start-gateway.js';

const KEY = 'bedrock-invoke-suite-key-01';
const REGION = 'us-west-2';
const CREDS = {
  accessKeyId: 'AKIAFAKEINVOKE000001',
  secretAccessKey: 'fake/invoke+secret000000000000001',
  sessionToken: 'FwoGZXIvYXdzINVOKEFAKE',
};
const API_KEY = 'ABSKSW52b2tlQVBJS2V5LWZha2U=';
const CLAUDE = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const PROFILE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
/** A model the fake's CountTokens does not count. */
const UNCOUNTED = 'anthropic.claude-3-haiku-20240307-v1:0';
const MODEL = 'aws/claude';
const PATH = `/model/${encodeURIComponent(CLAUDE)}`;
const USAGE = { input: 21, cacheRead: 4, cacheWrite: 2, output: 6 };
/** A beta this account's Bedrock takes that the gateway's defaults do not know; one Bedrock refuses. */
const NEWER_BETA = 'newer-feature-2026-09-01';
const UNKNOWN_BETA = 'no-such-feature-2099-01-01';
/** What Bedrock takes of Claude Code's betas (as the fake front knows them), tool search under its 3P name. */
const BEDROCK_NAMES: Record<string, string> = {
  'interleaved-thinking-2025-05-14': 'interleaved-thinking-2025-05-14',
  'context-management-2025-06-27': 'context-management-2025-06-27',
  'effort-2025-11-24': 'effort-2025-11-24',
  'advanced-tool-use-2025-11-20': 'tool-search-tool-2025-10-19',
};

let claude: FakeUpstream;
let bedrock: FakeBedrockInvoke;
let gw: RunningGateway;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  claude = await startFakeUpstream({ usage: { anthropic: USAGE }, countTokens: () => 42 });
  bedrock = await startFakeBedrockInvoke({
    region: REGION,
    credentials: CREDS,
    apiKey: API_KEY,
    anthropic: claude.url,
    noCountTokens: [UNCOUNTED],
    betas: [NEWER_BETA],
  });
  const models = `    models:
      claude: { upstream_name: "${CLAUDE}", context_window: 200000 }
      profile: { upstream_name: "${PROFILE}", context_window: 200000 }
      uncounted: { upstream_name: "${UNCOUNTED}", context_window: 200000 }
`;
  const session = `session_token: "${CREDS.sessionToken}"`;
  const common = `    api: bedrock-anthropic\n    region: ${REGION}\n    base_url: ${bedrock.url}\n`;
  gw = await startGateway(
    loadTestConfig(`routing: { retry: { max_retries: 0 }, fallback_on: [], cooldown: { failures: 1000, cooldown_ms: 1 }}
providers:
  aws:
${common}    aws: { access_key_id: "${CREDS.accessKeyId}", secret_access_key: "${CREDS.secretAccessKey}", ${session} }
${models}  badsig:
${common}    aws: { access_key_id: "${CREDS.accessKeyId}", secret_access_key: "not-the-secret", ${session} }
${models}  keyed:
${common}    api_key: "${API_KEY}"
${models}  newer:
${common}    api_key: "${API_KEY}"
    anthropic_betas: { allow: ["${NEWER_BETA}", "${UNKNOWN_BETA}"] }
${models}roles:
  dev: { models: ["*"] }
keys:
  - { id: k, key: ${KEY}, role: dev }
  - { id: cc, key: ${CC_KEY}, role: dev }
`),
  );
  anthropic = new Anthropic({ apiKey: KEY, baseURL: gw.url, maxRetries: 0 });
  openai = new OpenAI({ apiKey: KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gw?.close();
  await bedrock?.close();
  await claude?.close();
});
beforeEach(() => {
  bedrock.received.length = 0;
  claude.reset();
});

const json = (s: string) => JSON.parse(s) as Record<string, any>;

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('Anthropic SDK → InvokeModel (pass-through with Bedrock edits)', () => {
  it('JSON: model and stream out, anthropic_version first, the beta header as anthropic_beta, signed', async () => {
    const msg = await anthropic.messages.create(
      { model: MODEL, max_tokens: 64, system: 'Be brief.', messages: [{ role: 'user', content: 'Hello there' }] },
      { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14, token-efficient-tools-2025-02-19' } },
    );
    expect(msg.content).toEqual([{ type: 'text', text: 'echo: Hello there' }]);
    expect(msg.model).toBe(MODEL);
    expect(msg.usage).toMatchObject({
      input_tokens: 21,
      cache_read_input_tokens: 4,
      cache_creation_input_tokens: 2,
      output_tokens: 6,
    });
    const call = bedrock.received[0];
    expect(call.path).toBe(`${PATH}/invoke`);
    expect(call.model).toBe(CLAUDE);
    expect(call.status).toBe(200);
    expect(call.body).toBe(
      '{"anthropic_version":"bedrock-2023-05-31",' +
        '"anthropic_beta":["interleaved-thinking-2025-05-14","token-efficient-tools-2025-02-19"],' +
        '"max_tokens":64,"system":"Be brief.","messages":[{"role":"user","content":"Hello there"}]}',
    );
    expect(call.headers.authorization).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${CREDS.accessKeyId}/\\d{8}/${REGION}/bedrock/aws4_request, `),
    );
    expect(call.headers['x-amz-security-token']).toBe(CREDS.sessionToken);
    expect(call.headers['anthropic-version']).toBeUndefined();
    expect(call.headers['anthropic-beta']).toBeUndefined();
    const relayed = claude.last('/v1/messages') as UpstreamCall;
    expect(relayed.body.model).toBe(CLAUDE);
    expect(relayed.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14,token-efficient-tools-2025-02-19');
  });

  it('stream: standard Anthropic SSE in order, usage right, no Bedrock metrics member', async () => {
    const res = await post('/v1/messages', {
      model: MODEL,
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: 'Stream this please' }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSse(res);
    assertAnthropicStreamOrder(events);
    const all = events.map((e) => `${e.event} ${e.data}`).join('\n');
    expect(all).not.toContain('amazon-bedrock-invocationMetrics');
    expect(all).not.toContain('"p":');
    const text = events
      .map((e) => json(e.data))
      .filter((d) => d.type === 'content_block_delta')
      .map((d) => d.delta.text)
      .join('');
    expect(text).toBe('echo: Stream this please');
    expect(json(events[0].data).message.usage).toMatchObject({ input_tokens: 21, cache_read_input_tokens: 4 });
    expect(json(events[0].data).message.model).toBe(MODEL);
    const delta = events.map((e) => json(e.data)).find((d) => d.type === 'message_delta');
    expect(delta?.usage.output_tokens).toBe(6);
    expect(events.at(-1)?.event).toBe('message_stop');
    expect(events.at(-1)?.data).toBe('{"type":"message_stop"}');
    const call = bedrock.received[0];
    expect(call.path).toBe(`${PATH}/invoke-with-response-stream`);
    expect(json(call.body).stream).toBeUndefined();
  });

  it('tool round trip with thinking: the signed thinking block comes back and goes up again unchanged', async () => {
    claude.setHandler((call) =>
      call.body.messages.length === 1
        ? {
            thinking: 'Paris weather needed.',
            toolCalls: [{ name: 'get_weather', args: { city: 'Paris' }, id: 'toolu_1' }],
          }
        : { text: 'It is 18C in Paris.' },
    );
    const tools: Anthropic.Tool[] = [
      {
        name: 'get_weather',
        description: 'Weather in a city',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ];
    const request = {
      model: MODEL,
      max_tokens: 2048,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      tools,
    };
    const stream = anthropic.messages.stream({
      ...request,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    const first = await stream.finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const thinking = first.content[0] as Anthropic.ThinkingBlock;
    expect(thinking.type).toBe('thinking');
    expect(thinking.thinking).toBe('Paris weather needed.');
    expect(thinking.signature.length).toBeGreaterThan(0);
    expect(first.content[1]).toEqual({
      type: 'tool_use',
      id: 'toolu_1',
      name: 'get_weather',
      input: { city: 'Paris' },
    });
    const second = await anthropic.messages.create({
      ...request,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18C' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'It is 18C in Paris.' }]);
    const sent = json(bedrock.received[1].body);
    expect(sent.messages[1].content[0]).toEqual({
      type: 'thinking',
      thinking: 'Paris weather needed.',
      signature: thinking.signature,
    });
    expect(claude.accepted).toHaveLength(2);
  });
});

describe('openai SDK → InvokeModel (translated)', () => {
  it('chat JSON and stream: the edited Anthropic body, no anthropic_beta, the answer and usage', async () => {
    const res = await openai.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi chat' },
      ],
      max_tokens: 50,
    });
    expect(res.choices[0].message.content).toBe('echo: Hi chat');
    expect(res.usage).toMatchObject({ prompt_tokens: 27, completion_tokens: 6 });
    expect(json(bedrock.received[0].body)).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 50,
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi chat' }] }],
    });
    const stream = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hi stream' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('echo: Hi stream');
    expect(usage).toMatchObject({ prompt_tokens: 27, completion_tokens: 6 });
    expect(bedrock.received[1].path).toBe(`${PATH}/invoke-with-response-stream`);
  });

  it('Responses endpoint, JSON and stream', async () => {
    const res = await openai.responses.create({ model: MODEL, input: 'Hello Responses' });
    expect(res.output_text).toBe('echo: Hello Responses');
    const stream = await openai.responses.create({ model: MODEL, input: 'Streamed', stream: true });
    let text = '';
    let status = '';
    for await (const e of stream) {
      if (e.type === 'response.output_text.delta') text += e.delta;
      if (e.type === 'response.completed') status = e.response.status ?? '';
    }
    expect(text).toBe('echo: Streamed');
    expect(status).toBe('completed');
    expect(bedrock.received.map((c) => c.path)).toEqual([`${PATH}/invoke`, `${PATH}/invoke-with-response-stream`]);
  });
});

describe('auth and errors', () => {
  it('a Bedrock API key goes as a bearer token, nothing signed', async () => {
    const msg = await anthropic.messages.create({
      model: 'keyed/claude',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'k' }],
    });
    expect(msg.content).toEqual([{ type: 'text', text: 'echo: k' }]);
    expect(bedrock.received[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(bedrock.received[0].headers['x-amz-date']).toBeUndefined();
  });

  it('a signature Bedrock refuses (InvalidSignatureException, 403) is the credential error, 502', async () => {
    const res = await post('/v1/messages', {
      model: 'badsig/claude',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body.type).toBe('error');
    expect(body.error.message).toContain('Provider "badsig" rejected the gateway\'s credentials (HTTP 403).');
    expect(bedrock.received[0].status).toBe(403);
    expect(claude.received).toHaveLength(0);
  });

  it('ThrottlingException: 429 with the retry-after AWS sent, in the caller format', async () => {
    claude.setHandler({ kind: 'error', status: 429, message: 'Slow down', headers: { 'retry-after': '7' } });
    const res = await post('/v1/messages', { model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    const body = await res.json();
    expect(body.error.type).toBe('rate_limit_error');
    expect(body.error.message).toContain('Provider "aws" returned HTTP 429: Slow down');
    const chat = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(chat.status).toBe(429);
    expect((await chat.json()).error.message).toContain('Slow down');
  });

  it('ServiceUnavailableException: 503, an overloaded_error for an Anthropic caller', async () => {
    claude.setHandler({ kind: 'error', status: 529, message: 'Overloaded' });
    const res = await post('/v1/messages', { model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(503);
    expect(bedrock.received[0].status).toBe(503);
    expect(bedrock.received[0].headers['x-amz-date']).toBeDefined();
    const body = await res.json();
    expect(body.error.message).toContain('Provider "aws" returned HTTP 503: Overloaded');
    expect(body.error.type).toBe('overloaded_error');
  });

  it('a throttlingException frame before the first event is a plain 429', async () => {
    claude.setHandler({ kind: 'error', inStream: true, after: 0, type: 'rate_limit_error', message: 'busy' });
    const res = await post('/v1/messages', {
      model: MODEL,
      max_tokens: 8,
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(res.status).toBe(429);
    expect((await res.json()).error.message).toContain('throttlingException during the stream: busy');
  });

  it('an exception frame mid-stream ends the stream with the in-stream error', async () => {
    claude.setHandler({ kind: 'error', inStream: true, after: 3, type: 'overloaded_error', message: 'Overloaded' });
    const res = await post('/v1/messages', {
      model: MODEL,
      max_tokens: 8,
      stream: true,
      messages: [{ role: 'user', content: 'one two three four' }],
    });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    expect(events.slice(0, 3).map((e) => e.event)).toEqual(['message_start', 'ping', 'content_block_start']);
    const last = events.at(-1);
    expect(last?.event).toBe('error');
    expect(json(last?.data ?? '{}').error.message).toContain(
      'serviceUnavailableException during the stream: Overloaded',
    );
    expect(events.some((e) => e.event === 'message_stop')).toBe(false);
  });

  it('a stream cut after its first events ends with the in-stream error, never a clean end', async () => {
    claude.setHandler({ kind: 'drop', after: 4 });
    const res = await post('/v1/messages', {
      model: MODEL,
      max_tokens: 8,
      stream: true,
      messages: [{ role: 'user', content: 'one two three four' }],
    });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    expect(events[0].event).toBe('message_start');
    expect(events.at(-1)?.event).toBe('error');
    expect(json(events.at(-1)?.data ?? '{}').error.message).toBe('Could not reach provider "aws" (UND_ERR_SOCKET).');
    expect(events.some((e) => e.event === 'message_stop')).toBe(false);
  });

  it('ValidationException: what Bedrock refuses is a 400 naming it (a beta config allows, Bedrock not)', async () => {
    const res = await post(
      '/v1/messages',
      { model: 'newer/claude', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] },
      { 'anthropic-beta': UNKNOWN_BETA },
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toBe('Provider "newer" returned HTTP 400: invalid beta flag');
    expect(json(bedrock.received[0].body).anthropic_beta).toEqual([UNKNOWN_BETA]);
    expect(claude.received).toHaveLength(0);
  });

  it('AWS secrets and the API key never reach a response or the logs', async () => {
    const quoted = `bad ${CREDS.secretAccessKey} and ${CREDS.sessionToken} and ${API_KEY}`;
    claude.setHandler({ kind: 'error', status: 400, message: quoted });
    for (const model of [MODEL, 'keyed/claude']) {
      const res = await post('/v1/messages', { model, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] });
      const text = await res.text();
      expect(res.status).toBe(400);
      expect(text).toContain('bad ');
      for (const secret of [CREDS.secretAccessKey, CREDS.sessionToken, API_KEY]) expect(text).not.toContain(secret);
    }
    const logs = gw.logs.join('\n');
    for (const secret of [CREDS.secretAccessKey, CREDS.sessionToken, API_KEY]) expect(logs).not.toContain(secret);
  });
});

describe('count_tokens', () => {
  it("Bedrock's CountTokens with the edited body, base64 in input.invokeModel.body", async () => {
    const res = await anthropic.messages
      .countTokens(
        { model: MODEL, system: 'Be brief.', messages: [{ role: 'user', content: 'How many?' }] },
        { headers: { 'anthropic-beta': 'token-efficient-tools-2025-02-19' } },
      )
      .withResponse();
    expect(res.data.input_tokens).toBe(42);
    expect(res.response.headers.get('x-gateway-token-count')).toBe('upstream');
    const call = bedrock.received[0];
    expect(call.path).toBe(`${PATH}/count-tokens`);
    const outer = json(call.body);
    expect(Object.keys(outer)).toEqual(['input']);
    expect(json(Buffer.from(outer.input.invokeModel.body, 'base64').toString('utf8'))).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      anthropic_beta: ['token-efficient-tools-2025-02-19'],
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'How many?' }],
      max_tokens: 1,
    });
    expect(claude.last('/v1/messages/count_tokens')?.body).toEqual({
      model: CLAUDE,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'How many?' }],
    });
  });

  it('a Responses caller is counted upstream too; thinking keeps max_tokens above its budget', async () => {
    const counted = await openai.responses.inputTokens.count({
      model: MODEL,
      input: 'Count me',
      reasoning: { effort: 'low' },
    });
    expect(counted.input_tokens).toBe(42);
    const inner = json(Buffer.from(json(bedrock.received[0].body).input.invokeModel.body, 'base64').toString('utf8'));
    expect(inner.anthropic_version).toBe('bedrock-2023-05-31');
    expect(inner.model).toBeUndefined();
    expect(inner.max_tokens).toBe(inner.thinking.budget_tokens + 1);
  });

  it('an inference profile is counted as its foundation model; one CountTokens does not support, locally', async () => {
    const count = (model: string) =>
      anthropic.messages
        .countTokens({ model, messages: [{ role: 'user', content: 'How many tokens is this?' }] })
        .withResponse();
    const profile = await count('aws/profile');
    expect([profile.data.input_tokens, profile.response.headers.get('x-gateway-token-count')]).toEqual([
      42,
      'upstream',
    ]);
    const res = await count('aws/uncounted');
    expect(res.data.input_tokens).toBeGreaterThan(0);
    expect(res.response.headers.get('x-gateway-token-count')).toBe('local-approximate');
    expect(res.response.headers.get('x-gateway-token-count-fallback')).toBe('upstream-unsupported');
    expect(bedrock.received.map((c) => [c.path, c.status])).toEqual([
      [`${PATH}/count-tokens`, 200],
      [`/model/${encodeURIComponent(UNCOUNTED)}/count-tokens`, 400],
    ]);
  });
});

describe('what Bedrock does not take is dropped and listed', () => {
  it('first-party betas and fields: left out, in x-gateway-dropped-fields; the strict front answers', async () => {
    const res = await post(
      '/v1/messages',
      {
        model: MODEL,
        max_tokens: 8,
        service_tier: 'auto',
        messages: [{ role: 'user', content: 'x' }],
        context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
        inference_geo: 'us',
      },
      { 'anthropic-beta': 'claude-code-20250219,prompt-caching-scope-2026-01-05,advanced-tool-use-2025-11-20' },
    );
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('x-gateway-dropped-fields')).toBe(
      'anthropic-beta:claude-code-20250219, anthropic-beta:prompt-caching-scope-2026-01-05, ' +
        'service_tier, context_management, inference_geo',
    );
    // context_management needs its beta, which the caller did not send: Bedrock would refuse it.
    expect(bedrock.received[0].body).toBe(
      '{"anthropic_version":"bedrock-2023-05-31","anthropic_beta":["tool-search-tool-2025-10-19"],' +
        '"max_tokens":8,"messages":[{"role":"user","content":"x"}]}',
    );
    expect(bedrock.received[0].status).toBe(200);
  });

  it("a beta the provider's anthropic_betas.allow names goes up; another provider drops it", async () => {
    const body = { model: 'newer/claude', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] };
    const res = await post('/v1/messages', body, { 'anthropic-beta': NEWER_BETA });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('x-gateway-dropped-fields')).toBeNull();
    expect(json(bedrock.received[0].body).anthropic_beta).toEqual([NEWER_BETA]);
    const dropped = await post('/v1/messages', { ...body, model: MODEL }, { 'anthropic-beta': NEWER_BETA });
    expect(dropped.status).toBe(200);
    expect(dropped.headers.get('x-gateway-dropped-fields')).toBe(`anthropic-beta:${NEWER_BETA}`);
    expect('anthropic_beta' in json(bedrock.received[1].body)).toBe(false);
  });

  it('no beta nor dropped field: nothing listed; the strict front refuses a beta it does not take', async () => {
    const res = await post('/v1/messages', { model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-dropped-fields')).toBeNull();
    // The front itself, as Bedrock: an unknown beta is a ValidationException.
    const direct = await fetch(`${bedrock.url}${PATH}/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        anthropic_version: 'bedrock-2023-05-31',
        anthropic_beta: ['claude-code-20250219'],
        max_tokens: 8,
        messages: [{ role: 'user', content: 'x' }],
      }),
    });
    expect(direct.status).toBe(400);
    expect(direct.headers.get('x-amzn-errortype')).toBe('ValidationException:');
    expect(await direct.json()).toEqual({ message: 'invalid beta flag' });
  });
});

describe("Claude Code's captured requests → InvokeModel", () => {
  const messages = loadScenarios().flatMap((s) =>
    s.requests.filter((c) => c.method === 'POST' && c.path.startsWith('/v1/messages?')).map((c) => ({ ...s, c })),
  );

  it.each(messages.map((m) => [`${m.version}/${m.name}/${m.c.file}`, m.c] as const))(
    '%s: a well-formed stream; Bedrock gets the edited body with the betas in anthropic_beta',
    async (_, c) => {
      claude.setHandler(claudeCodeReply);
      const { res } = await replay(gw, c, MODEL);
      expect(res.status, await res.clone().text()).toBe(200);
      await expectAnthropicStream(res);
      const sent = json(bedrock.received[0].body);
      expect(bedrock.received[0].path).toBe(`${PATH}/${c.body.stream ? 'invoke-with-response-stream' : 'invoke'}`);
      expect(sent.anthropic_version).toBe('bedrock-2023-05-31');
      expect('model' in sent || 'stream' in sent).toBe(false);
      // The betas Bedrock takes go up (renamed where its name differs); the others are listed.
      const betas = c.headers['anthropic-beta'].split(',');
      expect(sent.anthropic_beta).toEqual(betas.filter((b) => BEDROCK_NAMES[b]).map((b) => BEDROCK_NAMES[b]));
      // Adaptive thinking (Claude Code by alias) fitted to Sonnet 4.5, its effort listed first (README, Pass-through).
      const fitted = thinkingFitted(c.body);
      const listed = [
        ...(fitted === c.body ? [] : ['output_config.effort']),
        ...betas.filter((b) => !BEDROCK_NAMES[b]).map((b) => `anthropic-beta:${b}`),
      ];
      expect(res.headers.get('x-gateway-dropped-fields')).toBe(listed.join(', '));
      expect(sent.thinking).toEqual(fitted.thinking);
      // Claude Code's body fields are all Bedrock's (context_management with its beta).
      expect(Object.keys(sent).sort()).toEqual(
        [
          'anthropic_version',
          'anthropic_beta',
          ...Object.keys(fitted).filter((k) => k !== 'model' && k !== 'stream'),
        ].sort(),
      );
    },
  );

  const counts = loadScenarios().flatMap((s) =>
    s.requests.filter((c) => c.path.startsWith('/v1/messages/count_tokens')),
  );

  it.each(counts.map((c) => [c.file, c] as const))('%s: counted by CountTokens', async (_, c) => {
    const { res } = await replay(gw, c, MODEL);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ input_tokens: 42 });
    expect(bedrock.received.map((r) => [r.path, r.status])).toEqual([[`${PATH}/count-tokens`, 200]]);
  });
});
