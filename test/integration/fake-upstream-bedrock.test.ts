/**
 * The fake upstream's AWS Bedrock runtime, driven directly (no gateway): credentials (the Bedrock
 * API key, SigV4 signatures recomputed), Converse JSON and ConverseStream frames made from Content
 * (text, reasoning, tool uses, usage, finish), the replies (AWS errors, exception frames, drops),
 * the Converse rules, CountTokens and the health check's ListAsyncInvokes.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { SignatureV4 } from '@smithy/signature-v4';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AWS_TEST_ACCOUNT, COUNT_TOKENS_UNSUPPORTED } from '../helpers/bedrock-rules.js';
import { type FakeUpstream, SCRIPTED, startFakeUpstream } from '../helpers/fake-upstream.js';

const { apiKey, region, credentials } = AWS_TEST_ACCOUNT;
const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const PROFILE = 'us.anthropic.claude-sonnet-4-20250514-v1:0';
const path = (op: string, model = MODEL) => `/model/${encodeURIComponent(model)}/${op}`;

let up: FakeUpstream;
beforeAll(async () => {
  up = await startFakeUpstream();
});
afterEach(() => up.reset());
afterAll(() => up.close());

interface Sent {
  status: number;
  headers: Headers;
  bytes: Buffer;
  body: any;
}

async function send(method: string, p: string, body: unknown, headers: Record<string, string>): Promise<Sent> {
  const res = await fetch(`${up.url}${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  return { status: res.status, headers: res.headers, bytes, body: text.startsWith('{') ? JSON.parse(text) : undefined };
}
const keyed = (p: string, body: unknown, method = 'POST') =>
  send(method, p, body, { authorization: `Bearer ${apiKey}` });

/** A request signed with SigV4 as AWS SDKs sign it (`secret`: another secret; `sent`: another body than signed). */
async function signed(p: string, body: unknown, secret = credentials.secretAccessKey, sent?: unknown): Promise<Sent> {
  const text = JSON.stringify(body);
  const url = new URL(`${up.url}${p}`);
  const signer = new SignatureV4({
    service: 'bedrock',
    region,
    credentials: { ...credentials, secretAccessKey: secret },
    sha256: Sha256,
  });
  const request = await signer.sign({
    method: 'POST',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    headers: { host: url.host, 'content-type': 'application/json' },
    body: text,
  });
  const { host: _host, ...headers } = request.headers;
  return send('POST', p, sent === undefined ? text : JSON.stringify(sent), headers);
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);
/** The frames of an event stream: `type` is the event or exception type, `data` the payload. */
function frames(bytes: Buffer): Array<{ type: string; data: any }> {
  const out: Array<{ type: string; data: any }> = [];
  for (let at = 0; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const m = codec.decode(bytes.subarray(at, at + length));
    const type = String(m.headers[':event-type']?.value ?? `exception:${String(m.headers[':exception-type']?.value)}`);
    out.push({ type, data: JSON.parse(toUtf8(m.body)) });
    at += length;
  }
  return out;
}

const HELLO = { messages: [{ role: 'user', content: [{ text: 'hello there' }] }] };
const WEATHER = {
  toolSpec: {
    name: 'get_weather',
    inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  },
};

describe('credentials', () => {
  it('the Bedrock API key as a bearer token: the echo, recorded as a bedrock chat call', async () => {
    const r = await keyed(path('converse'), HELLO);
    expect(r.status).toBe(200);
    expect(r.body.output).toEqual({ message: { role: 'assistant', content: [{ text: 'echo: hello there' }] } });
    expect(r.body.stopReason).toBe('end_turn');
    expect(r.headers.get('x-amzn-requestid')).toBe('req_fake_1');
    const call = up.last(path('converse'))!;
    expect(call).toMatchObject({ format: 'bedrock', endpoint: 'chat', status: 200, body: HELLO });
  });

  it('a SigV4 signature recomputed from the account passes; another secret, a changed body, none: 403', async () => {
    expect((await signed(path('converse'), HELLO)).status).toBe(200);
    const wrong = await signed(path('converse'), HELLO, 'not-the-secret');
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get('x-amzn-errortype')).toMatch(/^InvalidSignatureException:/);
    expect(wrong.body).toEqual({
      message: 'The request signature we calculated does not match the signature you provided.',
    });
    const changed = await signed(path('converse'), HELLO, undefined, { messages: [] });
    expect(changed.headers.get('x-amzn-errortype')).toMatch(/^InvalidSignatureException:/);
    const none = await send('POST', path('converse'), HELLO, {});
    expect(none.headers.get('x-amzn-errortype')).toMatch(/^MissingAuthenticationTokenException:/);
    const badKey = await send('POST', path('converse'), HELLO, { authorization: 'Bearer nope' });
    expect([badKey.status, badKey.headers.get('x-amzn-errortype')?.split(':')[0]]).toEqual([
      403,
      'AccessDeniedException',
    ]);
    expect(up.rejected.map((c) => c.status)).toEqual([403, 403, 403, 403]);
  });
});

describe('answers from Content', () => {
  it('JSON: reasoning with its signature, text, a tool use; usage as Bedrock counts it', async () => {
    up.setHandler({
      thinking: 'Let me think.',
      text: 'Calling.',
      toolCalls: [{ name: 'get_weather', args: { city: 'Paris' }, id: 'tooluse_1' }],
      usage: { input: 20, output: 9, cacheRead: 5 },
    });
    const r = await keyed(path('converse'), { ...HELLO, toolConfig: { tools: [WEATHER] } });
    const [reasoning, text, tool] = r.body.output.message.content;
    expect(reasoning.reasoningContent.reasoningText.text).toBe('Let me think.');
    expect(reasoning.reasoningContent.reasoningText.signature).toMatch(/^sig_/);
    expect(text).toEqual({ text: 'Calling.' });
    expect(tool).toEqual({ toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } });
    expect(r.body.stopReason).toBe('tool_use');
    expect(r.body.usage).toEqual({ inputTokens: 20, outputTokens: 9, totalTokens: 34, cacheReadInputTokens: 5 });
  });

  it('ConverseStream: event-stream frames with valid CRCs, text word by word, tool input in pieces', async () => {
    up.setHandler({ thinking: 'Hmm.', text: 'One two', toolCalls: [{ name: 'get_weather', args: { city: 'Rome' } }] });
    const r = await keyed(path('converse-stream'), { ...HELLO, toolConfig: { tools: [WEATHER] } });
    expect(r.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
    const f = frames(r.bytes);
    expect(f.map((x) => x.type)).toEqual([
      'messageStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'contentBlockStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
    expect(f[1]!.data).toEqual({ contentBlockIndex: 0, delta: { reasoningContent: { text: 'Hmm.' } } });
    expect(f[2]!.data.delta.reasoningContent.signature).toMatch(/^sig_/);
    expect([f[4]!.data.delta.text, f[5]!.data.delta.text]).toEqual(['One ', 'two']);
    expect(f[7]!.data).toEqual({
      contentBlockIndex: 2,
      start: { toolUse: { toolUseId: 'tooluse_fake1_0', name: 'get_weather' } },
    });
    expect(f[8]!.data.delta.toolUse.input + f[9]!.data.delta.toolUse.input).toBe('{"city":"Rome"}');
    expect(f[11]!.data).toEqual({ stopReason: 'tool_use' });
    expect(f[12]!.data.usage.outputTokens).toBeGreaterThan(0);
  });

  it('the strict default: a forced tool is called with sampled input; finish length is max_tokens', async () => {
    const forced = await keyed(path('converse'), {
      ...HELLO,
      toolConfig: { tools: [WEATHER], toolChoice: { tool: { name: 'get_weather' } } },
    });
    expect(forced.body.output.message.content).toEqual([
      { toolUse: { toolUseId: 'tooluse_fake1_0', name: 'get_weather', input: { city: 'sample' } } },
    ]);
    up.setHandler({ text: 'cut short', finish: 'length' });
    expect((await keyed(path('converse'), HELLO)).body.stopReason).toBe('max_tokens');
  });

  it('up.usage.bedrock is the usage of every answer that sets none', async () => {
    up.usage.bedrock = { input: 3, cacheRead: 0, cacheWrite: 4, output: 2 };
    const r = await keyed(path('converse'), HELLO);
    expect(r.body.usage).toEqual({ inputTokens: 3, outputTokens: 2, totalTokens: 9, cacheWriteInputTokens: 4 });
  });
});

describe('replies', () => {
  it('an error: its status, the exception in x-amzn-errortype (from the status, or as given), {message}', async () => {
    up.script({ kind: 'error', status: 429, message: 'Too many requests', headers: { 'retry-after': '3' } }, 503);
    const throttled = await keyed(path('converse'), HELLO);
    expect([throttled.status, throttled.body, throttled.headers.get('retry-after')]).toEqual([
      429,
      { message: 'Too many requests' },
      '3',
    ]);
    expect(throttled.headers.get('x-amzn-errortype')).toMatch(/^ThrottlingException:/);
    const unavailable = await keyed(path('converse'), HELLO);
    expect(unavailable.headers.get('x-amzn-errortype')).toMatch(/^ServiceUnavailableException:/);
  });

  it('inStream: 200, the first frames, then an exception frame; drop: the frames, then a cut', async () => {
    up.script({ kind: 'error', inStream: true, after: 2, type: 'throttlingException', message: 'slow down' });
    const r = await keyed(path('converse-stream'), HELLO);
    expect(r.status).toBe(200);
    expect(frames(r.bytes).map((x) => [x.type, x.data])).toEqual([
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'echo: ' } }],
      ['exception:throttlingException', { message: 'slow down' }],
    ]);
    up.script({ kind: 'drop', after: 'body' });
    const cut = await keyed(path('converse-stream'), HELLO).catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(Error);
    expect(frames(Buffer.from(up.last()!.responseText, 'latin1')).map((x) => x.type)).toEqual([
      'messageStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
    ]);
  });

  it('SCRIPTED reads a Converse body: weather → a tool use, a tool result → its text, cut → an exception', async () => {
    const scripted = await startFakeUpstream(SCRIPTED);
    try {
      const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const ask = {
        messages: [{ role: 'user', content: [{ text: 'weather please' }] }],
        toolConfig: { tools: [WEATHER] },
      };
      const res = await fetch(`${scripted.url}${path('converse')}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(ask),
      });
      const body = await res.json();
      const use = body.output.message.content[0].toolUse;
      expect([use.name, use.input]).toEqual(['get_weather', { city: 'Paris' }]);
      const messages = [
        ...ask.messages,
        { role: 'assistant', content: [{ toolUse: use }] },
        {
          role: 'user',
          content: [{ toolResult: { toolUseId: use.toolUseId, content: [{ text: '18C' }], status: 'success' } }],
        },
      ];
      const next = await fetch(`${scripted.url}${path('converse')}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...ask, messages }),
      });
      expect((await next.json()).output.message.content).toEqual([{ text: 'tool said: 18C' }]);
      const cut = await fetch(`${scripted.url}${path('converse-stream')}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'cut me' }] }] }),
      });
      expect(frames(Buffer.from(await cut.arrayBuffer())).map((f) => [f.type, f.data])).toEqual([
        ['messageStart', { role: 'assistant' }],
        ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'echo:' } }],
        ['exception:internalServerException', { message: 'boom' }],
      ]);
    } finally {
      await scripted.close();
    }
  });
});

describe('the Converse rules (400 ValidationException)', () => {
  const turn = (role: string, ...content: unknown[]) => ({ role, content });
  const use = { toolUse: { toolUseId: 't1', name: 'get_weather', input: { city: 'Paris' } } };
  const result = (id: string) => ({ toolResult: { toolUseId: id, content: [{ text: 'ok' }], status: 'success' } });
  it.each([
    ['an unknown field', { ...HELLO, temperature: 1 }, 'Unknown field: temperature'],
    [
      'an unknown inferenceConfig field',
      { ...HELLO, inferenceConfig: { max_tokens: 5 } },
      'inferenceConfig.max_tokens',
    ],
    [
      'roles that do not alternate',
      { messages: [turn('user', { text: 'a' }), turn('user', { text: 'b' })] },
      'alternate',
    ],
    ['a blank text', { messages: [turn('user', { text: ' ' })] }, 'is blank'],
    ['an unknown block', { messages: [turn('user', { type: 'text', text: 'a' })] }, 'Unknown content block'],
    [
      'a toolResult no toolUse asked for',
      {
        messages: [turn('user', { text: 'a' }), turn('assistant', use), turn('user', result('t2'))],
        toolConfig: { tools: [WEATHER] },
      },
      'does not match a toolUse',
    ],
    [
      'a toolUse left unanswered',
      {
        messages: [turn('user', { text: 'a' }), turn('assistant', use), turn('user', { text: 'b' })],
        toolConfig: { tools: [WEATHER] },
      },
      'has no toolResult',
    ],
    [
      'tool blocks without toolConfig',
      { messages: [turn('user', { text: 'a' }), turn('assistant', use), turn('user', result('t1'))] },
      'toolConfig is required',
    ],
    [
      'reasoning without a signature',
      {
        messages: [
          turn('user', { text: 'a' }),
          turn('assistant', { reasoningContent: { reasoningText: { text: 'x' } } }),
        ],
      },
      'needs a signature',
    ],
    [
      'a toolChoice naming an absent tool',
      { ...HELLO, toolConfig: { tools: [WEATHER], toolChoice: { tool: { name: 'x' } } } },
      'not in tools',
    ],
    [
      'adaptive thinking on a Claude before 4.6',
      { ...HELLO, additionalModelRequestFields: { thinking: { type: 'adaptive' } } },
      'does not support adaptive thinking',
    ],
  ])('%s', async (_, body, message) => {
    const r = await keyed(path('converse'), body);
    expect(r.status).toBe(400);
    expect(r.headers.get('x-amzn-errortype')).toMatch(/^ValidationException:/);
    expect(r.body.message).toContain(message);
  });

  it('adaptive thinking on Claude 4.6 and later is taken; a budget on an older Claude too', async () => {
    const adaptive = { ...HELLO, additionalModelRequestFields: { thinking: { type: 'adaptive' } } };
    const budget = { ...HELLO, additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } } };
    const took = [
      await keyed(path('converse', 'us.anthropic.claude-opus-4-6-v1'), adaptive),
      await keyed(path('converse', 'anthropic.claude-sonnet-4-5-20250929-v1:0'), budget),
    ];
    expect(took.map((r) => r.status)).toEqual([200, 200]);
  });

  it('not JSON: 400 SerializationException; an unknown path: 404 UnknownOperationException', async () => {
    const bad = await keyed(path('converse'), '{not json');
    expect([bad.status, bad.headers.get('x-amzn-errortype')?.split(':')[0]]).toEqual([400, 'SerializationException']);
    const unknown = await keyed(path('converse-async'), HELLO);
    expect([unknown.status, unknown.headers.get('x-amzn-errortype')?.split(':')[0]]).toEqual([
      404,
      'UnknownOperationException',
    ]);
  });
});

describe('CountTokens and ListAsyncInvokes', () => {
  it('counts input.converse (countTokens gets it); the Converse rules apply to it', async () => {
    const counting = await startFakeUpstream({ countTokens: (converse) => 100 + converse.messages.length });
    try {
      const ask = {
        input: { converse: { ...HELLO, system: [{ text: 'be brief' }], toolConfig: { tools: [WEATHER] } } },
      };
      const res = await fetch(`${counting.url}${path('count-tokens')}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
        body: JSON.stringify(ask),
      });
      expect([res.status, await res.json()]).toEqual([200, { inputTokens: 101 }]);
      expect(counting.received[0]).toMatchObject({ format: 'bedrock', endpoint: 'count_tokens', body: ask });
    } finally {
      await counting.close();
    }
    const generation = await keyed(path('count-tokens'), { input: { converse: { ...HELLO, inferenceConfig: {} } } });
    expect([generation.status, generation.body.message]).toEqual([
      400,
      'Unknown field: input.converse.inferenceConfig',
    ]);
    const bare = await keyed(path('count-tokens'), HELLO);
    expect([bare.status, bare.body.message]).toEqual([400, 'Unknown field: messages']);
  });

  it('a model CountTokens does not support (an inference profile here): 400 with AWS message', async () => {
    const r = await keyed(path('count-tokens', PROFILE), { input: { converse: HELLO } });
    expect([r.status, r.body, r.headers.get('x-amzn-errortype')?.split(':')[0]]).toEqual([
      400,
      { message: COUNT_TOKENS_UNSUPPORTED },
      'ValidationException',
    ]);
  });

  it('GET /async-invoke: an empty list, endpoint models', async () => {
    const r = await keyed('/async-invoke?maxResults=1', undefined, 'GET');
    expect([r.status, r.body]).toEqual([200, { asyncInvokeSummaries: [] }]);
    expect(up.last('/async-invoke')).toMatchObject({ format: 'bedrock', endpoint: 'models' });
  });
});
