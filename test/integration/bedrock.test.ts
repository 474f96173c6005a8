/**
 * The bedrock provider kind over real HTTP: the official openai SDK (chat and Responses) and the
 * Anthropic SDK reaching a Claude model on the fake upstream's strict Bedrock runtime (fake-upstream.ts,
 * bedrock-rules.ts), which verifies every SigV4 signature (or the Bedrock API key): JSON and
 * ConverseStream, a tool round trip, throttling and a refused signature.
 */

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadTestConfig, startGateway, type RunningGateway } from '../helpers/start-gateway.js';
import { type Content, type FakeUpstream, startFakeUpstream, type UpstreamCall } from '../helpers/fake-upstream.js';

const KEY = 'bedrock-suite-key-0001';
const REGION = 'eu-west-3';
const CREDS = {
  accessKeyId: 'AKIAFAKEBEDROCK00001',
  secretAccessKey: 'fake/secret+key0000000000000001',
  sessionToken: 'FwoGZXIvYXdzEFAKE',
};
const API_KEY = 'ABSKQmVkcm9ja0FQSUtleS1mYWtl';
const CLAUDE = 'us.anthropic.claude-sonnet-4-20250514-v1:0';
const MODEL = 'aws/claude';
/** A foundation model id: the fake's CountTokens counts it (the inference profile CLAUDE it does not). */
const HAIKU = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const COUNT_BASE = 900;
/** A model the fake's CountTokens does not count (as the real one, which counts some Claude models only). */
const NOVA = 'amazon.nova-pro-v1:0';
/** The local count of 'How many tokens is this?' (o200k_base and the chat overhead: no Claude tokenizer). */
const LOCAL_COUNT = 13;

let up: FakeUpstream;
let gw: RunningGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  up = await startFakeUpstream({
    aws: { region: REGION, credentials: CREDS, apiKey: API_KEY },
    countTokens: (converse) => COUNT_BASE + converse.messages.length,
  });
  const models =
    `    models:\n      claude: { upstream_name: "${CLAUDE}", context_window: 200000 }\n` +
    `      haiku: { upstream_name: "${HAIKU}", context_window: 200000 }\n` +
    `      nova: { upstream_name: "${NOVA}", context_window: 300000 }\n`;
  const session = `session_token: "${CREDS.sessionToken}"`;
  const yaml = `routing: { retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 } }
providers:
  aws:
    api: bedrock
    region: ${REGION}
    base_url: ${up.url}
    aws: { access_key_id: "${CREDS.accessKeyId}", secret_access_key: "${CREDS.secretAccessKey}", ${session} }
${models}  badsig:
    api: bedrock
    region: ${REGION}
    base_url: ${up.url}
    aws: { access_key_id: "${CREDS.accessKeyId}", secret_access_key: "not-the-secret", ${session} }
${models}  keyed:
    api: bedrock
    region: ${REGION}
    base_url: ${up.url}
    api_key: "${API_KEY}"
${models}roles:
  dev: { models: ["*"] }
keys:
  - { id: k, key: ${KEY}, role: dev }
`;
  gw = await startGateway(loadTestConfig(yaml));
  openai = new OpenAI({ apiKey: KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: KEY, baseURL: gw.url, maxRetries: 0 });
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
});
beforeEach(() => up.reset());

const PATH = `/model/${encodeURIComponent(CLAUDE)}`;

const THINKING = 'The user wants weather.';
/** The signature the fake signs its reasoning with. */
const SIGNATURE = `sig_${Buffer.from(THINKING).toString('base64').slice(0, 16)}`;

/** First turn: reason, then call get_weather; once the result is back: answer from it. */
function weatherLoop(call: UpstreamCall): Content {
  const messages = call.body.messages as Array<{ content: Array<Record<string, unknown>> }>;
  const result = messages[messages.length - 1].content.find((b) => b.toolResult !== undefined)?.toolResult as
    | { content: Array<{ text: string }> }
    | undefined;
  if (result) return { text: `It is ${result.content[0].text}` };
  return { thinking: THINKING, toolCalls: [{ id: 'tooluse_abc', name: 'get_weather', args: { city: 'Paris' } }] };
}

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('openai SDK, chat completions → Bedrock Converse', () => {
  it('JSON: the encoded model id in the path, a valid SigV4 signature, the translated body, the usage', async () => {
    up.usage.bedrock = { input: 7, cacheRead: 0, cacheWrite: 0, output: 5 };
    const res = await openai.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello there' },
      ],
      max_tokens: 50,
      stop: ['END'],
    });
    expect(res.choices[0].message.content).toBe('echo: Hello there');
    expect(res.choices[0].finish_reason).toBe('stop');
    expect(res.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
    const call = up.received[0];
    expect(call.path).toBe(`${PATH}/converse`);
    expect(call.path).toContain('v1%3A0');
    expect(call.status).toBe(200);
    expect(call.headers.authorization).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${CREDS.accessKeyId}/\\d{8}/${REGION}/bedrock/aws4_request, `),
    );
    expect(call.headers['x-amz-security-token']).toBe(CREDS.sessionToken);
    expect(call.body).toEqual({
      messages: [{ role: 'user', content: [{ text: 'Hello there' }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 50, stopSequences: ['END'] },
    });
  });

  it('stream: ConverseStream frames decoded, the text in order, usage with cache reads at the end', async () => {
    up.setHandler({ text: 'One, two, three.', usage: { input: 4, output: 3, cacheRead: 10 } });
    const stream = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Count' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('One, two, three.');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 3 });
    expect(usage?.prompt_tokens_details?.cached_tokens).toBe(10);
    expect(up.received[0].path).toBe(`${PATH}/converse-stream`);
    expect(up.received[0].headers.accept).toBe('application/vnd.amazon.eventstream');
  });

  it.each([false, true])('tool round trip (stream %s): toolUse id and toolResult match', async (stream) => {
    up.setHandler(weatherLoop);
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: WEATHER_TOOL }];
    let call: { id: string; name: string; args: string };
    if (stream) {
      const s = await openai.chat.completions.create({ model: MODEL, messages, tools, stream: true });
      const parts = { id: '', name: '', args: '' };
      let finish: string | null = null;
      for await (const chunk of s) {
        const tc = chunk.choices[0]?.delta.tool_calls?.[0];
        if (tc?.id) parts.id = tc.id;
        if (tc?.function?.name) parts.name = tc.function.name;
        parts.args += tc?.function?.arguments ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(finish).toBe('tool_calls');
      call = parts;
    } else {
      const res = await openai.chat.completions.create({ model: MODEL, messages, tools });
      expect(res.choices[0].finish_reason).toBe('tool_calls');
      const tc = res.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
      call = { id: tc.id, name: tc.function.name, args: tc.function.arguments };
    }
    expect(call).toEqual({ id: 'tooluse_abc', name: 'get_weather', args: '{"city":"Paris"}' });
    messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.args } }],
      },
      { role: 'tool', tool_call_id: call.id, content: '18C and sunny' },
    );
    const second = await openai.chat.completions.create({ model: MODEL, messages, tools });
    expect(second.choices[0].message.content).toBe('It is 18C and sunny');
    expect(up.received[1].body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'get_weather',
            description: 'Weather in a city',
            inputSchema: { json: WEATHER_TOOL.parameters },
          },
        },
      ],
    });
    expect((up.received[1].body.messages as unknown[])[2]).toEqual({
      role: 'user',
      content: [{ toolResult: { toolUseId: 'tooluse_abc', content: [{ text: '18C and sunny' }], status: 'success' } }],
    });
  });
});

describe('Anthropic SDK, messages → Bedrock Converse', () => {
  it('JSON with thinking: signed reasoning comes back as a thinking block; the tool loop keeps it', async () => {
    up.setHandler(weatherLoop);
    const tools: Anthropic.Tool[] = [
      { name: 'get_weather', description: 'Weather in a city', input_schema: WEATHER_TOOL.parameters },
    ];
    const first = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools,
    });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([
      { type: 'thinking', thinking: THINKING, signature: SIGNATURE },
      { type: 'tool_use', id: 'tooluse_abc', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(up.received[0].body.additionalModelRequestFields).toEqual({
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });
    expect(up.received[0].body.inferenceConfig).toEqual({ maxTokens: 2048 });
    const second = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tooluse_abc', content: '18C' }] },
      ],
      tools,
    });
    expect(second.content).toEqual([{ type: 'text', text: 'It is 18C' }]);
    expect((up.received[1].body.messages as Array<{ content: unknown[] }>)[1].content[0]).toEqual({
      reasoningContent: { reasoningText: { text: THINKING, signature: SIGNATURE } },
    });
  });

  it('stream: text deltas and message_delta usage', async () => {
    up.setHandler({ text: 'Hello from Bedrock', usage: { output: 5 } });
    const stream = anthropic.messages.stream({
      model: MODEL,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hello from Bedrock' }]);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBe(5);
  });
});

describe('Responses API → Bedrock Converse', () => {
  it('JSON and stream', async () => {
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
    expect(up.received.map((c) => c.path)).toEqual([`${PATH}/converse`, `${PATH}/converse-stream`]);
  });
});

describe('auth and errors', () => {
  it('a Bedrock API key goes as a bearer token, nothing signed', async () => {
    const res = await openai.chat.completions.create({
      model: 'keyed/claude',
      messages: [{ role: 'user', content: 'k' }],
    });
    expect(res.choices[0].message.content).toBe('echo: k');
    expect(up.received[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(up.received[0].headers['x-amz-date']).toBeUndefined();
  });

  it('a signature Bedrock refuses (InvalidSignatureException, 403) is the credential error, 502', async () => {
    const err = await openai.chat.completions
      .create({ model: 'badsig/claude', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect((err as { status?: number }).status).toBe(502);
    expect((err as Error).message).toContain('Provider "badsig" rejected the gateway\'s credentials (HTTP 403).');
    expect(up.accepted).toHaveLength(0);
    expect(up.received.map((c) => [c.status, c.error])).toEqual([
      [403, 'The request signature we calculated does not match the signature you provided.'],
    ]);
  });

  it('ThrottlingException: 429 with the retry-after Bedrock sent', async () => {
    up.setHandler({
      kind: 'error',
      status: 429,
      type: 'ThrottlingException',
      message: 'Too many requests',
      headers: { 'retry-after': '3' },
    });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect((await res.json()).error.message).toBe(
      'model "aws/claude" could not be served (1 attempt). ' +
        'Last failure: Provider "aws" returned HTTP 429: Too many requests',
    );
  });

  it('ValidationException: 400 with its message; an exception frame mid-stream ends the stream with it', async () => {
    up.setHandler({ kind: 'error', status: 400, type: 'ValidationException', message: 'Malformed input request' });
    const err = await openai.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect((err as { status?: number }).status).toBe(400);
    expect((err as Error).message).toContain('Malformed input request');

    // messageStart, the text's delta and its contentBlockStop, then the exception frame.
    up.setHandler({
      kind: 'error',
      inStream: true,
      after: 3,
      text: 'partial',
      type: 'throttlingException',
      message: 'slow down',
    });
    const stream = anthropic.messages.stream({
      model: MODEL,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const failed = await stream.finalMessage().catch((e: unknown) => e);
    expect((failed as Error).message).toContain('throttlingException during the stream: slow down');
  });

  it('an upstream message quoting the secret key or session token reaches the caller without them', async () => {
    const quoted = `bad ${CREDS.secretAccessKey} and ${CREDS.sessionToken}`;
    up.setHandler({ kind: 'error', status: 400, type: 'ValidationException', message: quoted });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }),
    });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text).toContain('bad ');
    expect(text).not.toContain(CREDS.secretAccessKey);
    expect(text).not.toContain(CREDS.sessionToken);
    expect(gw.logs.join('\n')).not.toContain(CREDS.secretAccessKey);
  });
});

describe('count_tokens: Bedrock CountTokens', () => {
  const HAIKU_PATH = `/model/${encodeURIComponent(HAIKU)}/count-tokens`;
  const countCall = () => up.on(HAIKU_PATH);

  it('messages: input.converse (messages, system, toolConfig; no inferenceConfig), signed; its count', async () => {
    const res = await anthropic.messages
      .countTokens({
        model: 'aws/haiku',
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'How many tokens is this?' }],
        tools: [{ name: 'get_weather', input_schema: WEATHER_TOOL.parameters }],
      })
      .withResponse();
    expect(res.data).toEqual({ input_tokens: COUNT_BASE + 1 });
    expect(res.response.headers.get('x-gateway-token-count')).toBe('upstream');
    expect(res.response.headers.get('x-gateway-token-count-fallback')).toBeNull();
    const [call] = countCall();
    expect(call).toMatchObject({ format: 'bedrock', endpoint: 'count_tokens', status: 200 });
    expect(call!.headers.authorization).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${CREDS.accessKeyId}/\\d{8}/${REGION}/bedrock/aws4_request, `),
    );
    expect(call!.body).toEqual({
      input: {
        converse: {
          messages: [{ role: 'user', content: [{ text: 'How many tokens is this?' }] }],
          system: [{ text: 'Be brief.' }],
          toolConfig: {
            tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: WEATHER_TOOL.parameters } } }],
          },
        },
      },
    });
  });

  it('Responses input_tokens, and a Bedrock API key provider: the upstream count', async () => {
    const counted = await openai.responses.inputTokens.count({
      model: 'keyed/haiku',
      input: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'two' },
        { role: 'user', content: 'three' },
      ],
    });
    expect(counted).toEqual({ object: 'response.input_tokens', input_tokens: COUNT_BASE + 3 });
    expect(countCall().map((c) => [c.status, c.headers.authorization])).toEqual([[200, `Bearer ${API_KEY}`]]);
  });

  it('an inference profile is counted as its foundation model (CountTokens takes no profile)', async () => {
    const res = await anthropic.messages
      .countTokens({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
      .withResponse();
    expect([res.data.input_tokens, res.response.headers.get('x-gateway-token-count')]).toEqual([
      COUNT_BASE + 1,
      'upstream',
    ]);
    const foundation = encodeURIComponent(CLAUDE.replace(/^us\./, ''));
    expect(up.received.map((c) => [c.path, c.status])).toEqual([[`/model/${foundation}/count-tokens`, 200]]);
  });

  it('a model CountTokens does not support: counted locally, said in a header, not asked again', async () => {
    const count = () =>
      anthropic.messages
        .countTokens({ model: 'aws/nova', messages: [{ role: 'user', content: 'How many tokens is this?' }] })
        .withResponse();
    const first = await count();
    const local = first.data.input_tokens;
    expect(local).toBe(LOCAL_COUNT);
    expect(first.response.headers.get('x-gateway-token-count')).toBe('local-approximate');
    expect(first.response.headers.get('x-gateway-token-count-fallback')).toBe('upstream-unsupported');
    expect(up.received.map((c) => [c.path, c.status, c.error])).toEqual([
      [`/model/${encodeURIComponent(NOVA)}/count-tokens`, 400, "The provided model doesn't support counting tokens."],
    ]);
    const second = await count();
    expect([second.data.input_tokens, second.response.headers.get('x-gateway-token-count-fallback')]).toEqual([
      local,
      'upstream-unsupported',
    ]);
    expect(up.received).toHaveLength(1);
  });

  it('a refused signature (403): the credential error in the caller format, no local count', async () => {
    const res = await fetch(`${gw.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'badsig/haiku', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body.type).toBe('error');
    expect(body.error.message).toBe('Provider "badsig" rejected the gateway\'s credentials (HTTP 403).');
    expect(res.headers.get('x-gateway-token-count')).toBeNull();
    expect(countCall().map((c) => c.status)).toEqual([403]);
  });

  it('other upstream errors reach the caller (a throttled count is a 429, not a local count)', async () => {
    up.script({ kind: 'error', status: 429, type: 'ThrottlingException', message: 'Too many requests' });
    const err = await openai.responses.inputTokens.count({ model: 'aws/haiku', input: 'x' }).catch((e: unknown) => e);
    expect((err as { status?: number }).status).toBe(429);
    expect((err as Error).message).toContain('Provider "aws" returned HTTP 429: Too many requests');
  });
});
