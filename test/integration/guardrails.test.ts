/**
 * Guardrails end to end, over real sockets: the gateway in-process, one upstream on 127.0.0.1 that
 * plays both providers (OpenAI `oai/m`, Anthropic `ant/m`) and answers what each test scripts
 * (fake-upstream.ts, set up as GUARD), and a webhook server (guard-webhook.ts). Both caller endpoints
 * (/v1/chat/completions,
 * /v1/messages) and, where the path differs, both upstream formats (pass-through vs translated).
 *
 * Invariants checked after every test: no secret (nor a telling fragment of one) is in the
 * gateway's logs, and an error the caller got never echoes the matched text.
 * No upper bound on time is asserted; every wait is bounded.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertAnthropicStreamOrder } from '../helpers/anthropic-order.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GUARD, startGuardWebhook, type GuardWebhook } from '../helpers/guard-webhook.js';
import { loadTestConfig, startGateway, type RunningGateway } from '../helpers/start-gateway.js';
import { SseDecoder, type SseMessage } from '../../src/sse/decode.js';

// ---------------------------------------------------------------- secrets (all detector-valid)

const EMAIL = 'john.doe@example.com';
const AWS = 'AKIAIOSFODNN7EXAMPLE';
const CARD = '4111 1111 1111 1111';
const IBAN = 'DE89 3704 0044 0532 0130 00';
const PHONE = '+44 20 7946 0958';
const BEARER_TOKEN = 'abcDEF123ghiJKL456mnoPQR789';
const PEM_BODY = 'MIIEowIBAAKCAQEAx4bL7v0wTr9KqL2Yf0Z3cT1kqPz9Hn2W';
const PRIVATE_KEY =
  `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}\nq1w2e3r4t5y6u7i8o9p0asdfghjklZXCV\n-----END RSA ` + `PRIVATE KEY-----`;
const CODENAME = 'Project Nightingale';

/** Strings that must never show up in logs or in a blocked/redacted reply (parts of the secrets too). */
const NEVER_LOGGED = [
  EMAIL,
  'john.doe',
  'doe@exam',
  AWS,
  'AKIAIOSF',
  'ODNN7EXAMPLE',
  CARD,
  '4111 1111',
  IBAN,
  'DE89 3704',
  PHONE,
  '7946 0958',
  BEARER_TOKEN,
  PEM_BODY,
  'Nightingale',
  'nightingale',
];

// ---------------------------------------------------------------- setup

const KEY_DEV1 = 'guard-test-key-dev-0001';
const KEY_DEV2 = 'guard-test-key-dev-0002';
const KEY_INTERN = 'guard-test-key-intern-0001';
const OAI_SECRET = 'sk-guard-oai-provider-secret-0001';
const ANT_SECRET = 'sk-ant-guard-provider-secret-0001';

let upstream: FakeUpstream;
let hook: GuardWebhook;
let gw: RunningGateway | undefined;

beforeAll(async () => {
  upstream = await startFakeUpstream(GUARD);
  hook = await startGuardWebhook();
});
afterAll(async () => {
  await upstream.close();
  await hook.close();
});

afterEach(async () => {
  try {
    if (gw) {
      const logs = gw.logs.join('\n');
      for (const s of [...NEVER_LOGGED, KEY_DEV1, KEY_DEV2, KEY_INTERN, OAI_SECRET, ANT_SECRET])
        expect(logs, `logs contain ${JSON.stringify(s)}`).not.toContain(s);
    }
  } finally {
    await gw?.close();
    gw = undefined;
    upstream.calls.length = 0;
    upstream.setHandler({ text: ['ok'] });
    hook.calls.length = 0;
    hook.setAnswer(() => ({ body: { action: 'allow' } }));
  }
});

/** `guardrails`: YAML list items (indented two spaces), appended under `guardrails:`. */
async function start(guardrails: string, extra = ''): Promise<RunningGateway> {
  const yaml = `
server: { host: 127.0.0.1, port: 0, body_limit: 1mb, shutdown_grace_ms: 1000 }
routing: { retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 } }
providers:
  oai:
    api: openai
    base_url: ${upstream.url}/v1
    api_key: ${OAI_SECRET}
    timeouts: { connect_ms: 2000, first_byte_ms: 5000, total_ms: 20000 }
    models:
      m: { context_window: 100000, max_output_tokens: 1000 }
  ant:
    api: anthropic
    base_url: ${upstream.url}
    api_key: ${ANT_SECRET}
    timeouts: { connect_ms: 2000, first_byte_ms: 5000, total_ms: 20000 }
    models:
      m: { context_window: 100000, max_output_tokens: 1000 }
aliases:
  team/claude: { strategy: ordered, targets: [ant/m] }
roles:
  dev: { models: ["*"] }
  intern: { models: ["*"] }
keys:
  - { id: dev1, key: ${KEY_DEV1}, role: dev }
  - { id: dev2, key: ${KEY_DEV2}, role: dev }
  - { id: intern1, key: ${KEY_INTERN}, role: intern }
guardrails:
${guardrails}
${extra}`;
  gw = await startGateway(loadTestConfig(yaml));
  return gw;
}

// ---------------------------------------------------------------- client side

type Endpoint = 'openai' | 'anthropic';
const ENDPOINTS: Endpoint[] = ['openai', 'anthropic'];
type Up = 'oai' | 'ant';
/** Caller format × upstream format: the same format is the pass-through path, the other translation. */
const COMBOS: Array<[Endpoint, Up]> = [
  ['openai', 'oai'],
  ['openai', 'ant'],
  ['anthropic', 'ant'],
  ['anthropic', 'oai'],
];
const modelOf = (up: Up) => `${up}/m`;

interface SendOpts {
  /** The last user message (default "hello"). */
  content?: string;
  system?: string;
  /** Canonical-ish history before the last user message: a tool call and its result. */
  toolTurn?: { args: string; result: string };
  stream?: boolean;
  key?: string;
  includeUsage?: boolean;
}

function send(ep: Endpoint, model: string, o: SendOpts = {}): Promise<Response> {
  const key = o.key ?? KEY_DEV1;
  const content = o.content ?? 'hello';
  if (ep === 'openai') {
    const messages: unknown[] = [];
    if (o.system !== undefined) messages.push({ role: 'system', content: o.system });
    if (o.toolTurn) {
      messages.push({ role: 'user', content: 'look it up' });
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: o.toolTurn.args } }],
      });
      messages.push({ role: 'tool', tool_call_id: 'call_1', content: o.toolTurn.result });
    }
    messages.push({ role: 'user', content });
    return fetch(`${gw!.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        messages,
        temperature: 0.3,
        max_tokens: 77,
        ...(o.toolTurn ? { tools: [LOOKUP_TOOL_OPENAI] } : {}),
        ...(o.stream ? { stream: true } : {}),
        ...(o.includeUsage ? { stream_options: { include_usage: true } } : {}),
      }),
    });
  }
  const messages: unknown[] = [];
  if (o.toolTurn) {
    messages.push({ role: 'user', content: 'look it up' });
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: JSON.parse(o.toolTurn.args) }],
    });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: o.toolTurn.result },
        { type: 'text', text: content },
      ],
    });
  } else messages.push({ role: 'user', content });
  return fetch(`${gw!.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      max_tokens: 77,
      temperature: 0.3,
      messages,
      ...(o.system !== undefined ? { system: o.system } : {}),
      ...(o.toolTurn ? { tools: [LOOKUP_TOOL_ANTHROPIC] } : {}),
      ...(o.stream ? { stream: true } : {}),
    }),
  });
}

const LOOKUP_TOOL_OPENAI = {
  type: 'function',
  function: {
    name: 'lookup',
    description: 'Look a thing up',
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
  },
};
const LOOKUP_TOOL_ANTHROPIC = {
  name: 'lookup',
  description: 'Look a thing up',
  input_schema: { type: 'object', properties: { q: { type: 'string' } } },
};

interface Read {
  status: number;
  raw: string;
  /** Assistant text (streams: the deltas concatenated). */
  text: string;
  /** Tool-call argument JSON text (streams: fragments concatenated); undefined when no tool call. */
  toolArgs?: string;
  /** JSON body (non-stream). */
  body?: any;
  /** Stream: the decoded messages, the in-stream error payload, whether it ended with [DONE]. */
  messages?: SseMessage[];
  streamError?: any;
  done?: boolean;
  /** OpenAI stream: the usage chunk, if any. */
  usageChunk?: any;
  /** Stream: how many text deltas the caller got. */
  textDeltas?: number;
}

async function read(ep: Endpoint, res: Response): Promise<Read> {
  const raw = await res.text();
  const isSse = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  if (!isSse) {
    const body = JSON.parse(raw);
    if (res.status !== 200) return { status: res.status, raw, text: '', body };
    if (ep === 'openai') {
      const msg = body.choices[0].message;
      return {
        status: res.status,
        raw,
        body,
        text: msg.content ?? '',
        toolArgs: msg.tool_calls?.[0]?.function.arguments,
      };
    }
    const tool = body.content.find((b: any) => b.type === 'tool_use');
    return {
      status: res.status,
      raw,
      body,
      text: body.content
        .filter((b: any) => b.type === 'text')
        .map((b: any) => b.text)
        .join(''),
      toolArgs: tool ? JSON.stringify(tool.input) : undefined,
    };
  }
  const d = new SseDecoder();
  const messages = [...d.push(raw), ...d.end()];
  const r: Read = { status: res.status, raw, text: '', messages, done: false, textDeltas: 0 };
  for (const m of messages) {
    if (m.data === '[DONE]') {
      r.done = true;
      continue;
    }
    if (m.data === '') continue;
    const x = JSON.parse(m.data);
    if (ep === 'openai') {
      if (x.error) r.streamError = x;
      else if (x.choices?.length === 0 && x.usage) r.usageChunk = x;
      else {
        const delta = x.choices?.[0]?.delta ?? {};
        if (typeof delta.content === 'string' && delta.content.length > 0) {
          r.text += delta.content;
          r.textDeltas!++;
        }
        for (const tc of delta.tool_calls ?? []) r.toolArgs = (r.toolArgs ?? '') + (tc.function?.arguments ?? '');
      }
    } else if (x.type === 'error') r.streamError = x;
    else if (x.type === 'content_block_start' && x.content_block?.type === 'tool_use') r.toolArgs ??= '';
    else if (x.type === 'content_block_delta' && x.delta?.type === 'text_delta') {
      r.text += x.delta.text;
      r.textDeltas!++;
    } else if (x.type === 'content_block_delta' && x.delta?.type === 'input_json_delta')
      r.toolArgs = (r.toolArgs ?? '') + x.delta.partial_json;
  }
  return r;
}

/** The stream is well-formed in the caller's format and ends normally. */
function expectCompleteStream(ep: Endpoint, r: Read): void {
  expect(r.streamError).toBeUndefined();
  if (ep === 'openai') {
    expect(r.done, 'ends with [DONE]').toBe(true);
    expect(r.messages!.at(-1)!.data).toBe('[DONE]');
    const chunks = r.messages!.filter((m) => m.data !== '[DONE]').map((m) => JSON.parse(m.data));
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks.filter((c) => c.choices?.[0]?.finish_reason)).toHaveLength(1);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  } else assertAnthropicStreamOrder(r.messages!);
}

/** A stream that a guardrail ended: the in-stream error in the caller's format, naming the rule. */
function expectStreamBlocked(ep: Endpoint, r: Read, rule: string): void {
  expect(r.status).toBe(200);
  expect(r.streamError, 'an in-stream error').toBeDefined();
  if (ep === 'openai') {
    expect(r.done, 'no [DONE] after the error').toBe(false);
    expect(JSON.parse(r.messages!.at(-1)!.data)).toEqual({
      error: {
        message: `The response was blocked by guardrail "${rule}".`,
        type: 'invalid_request_error',
        param: `guardrail:${rule}`,
        code: 'guardrail_blocked',
      },
    });
    expect(
      r.messages!.filter(
        (m) => m.data.includes('finish_reason":"stop') || m.data.includes('"finish_reason":"tool_calls'),
      ),
    ).toHaveLength(0);
  } else {
    assertAnthropicStreamOrder(r.messages!);
    const last = r.messages!.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: `The response was blocked by guardrail "${rule}".` },
    });
    expect(r.messages!.some((m) => m.event === 'message_stop' || m.event === 'message_delta')).toBe(false);
  }
}

/** A plain (non-stream) 400 in the caller's format naming the rule. */
async function expectBlocked(
  ep: Endpoint,
  res: Response,
  rule: string,
  direction: 'request' | 'response' = 'request',
): Promise<string> {
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(res.headers.get('x-should-retry')).toBe('false');
  const raw = await res.text();
  const message = `The ${direction} was blocked by guardrail "${rule}".`;
  if (ep === 'openai')
    expect(JSON.parse(raw)).toEqual({
      error: { message, type: 'invalid_request_error', param: `guardrail:${rule}`, code: 'guardrail_blocked' },
    });
  else expect(JSON.parse(raw)).toEqual({ type: 'error', error: { type: 'invalid_request_error', message } });
  expectNoSecret(raw);
  return raw;
}

function expectNoSecret(text: string): void {
  for (const s of NEVER_LOGGED) expect(text, `contains ${JSON.stringify(s)}`).not.toContain(s);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The request's log line (written once the response is done; polled, bounded). */
async function logLine(res: Response): Promise<Record<string, any>> {
  const id = res.headers.get('x-correlation-id');
  expect(id).toBeTruthy();
  for (let i = 0; i < 100; i++) {
    for (const l of gw!.logs) {
      const o = JSON.parse(l);
      if (o.msg === 'request' && o.correlation_id === id) return o;
    }
    await sleep(10);
  }
  throw new Error(`no request log line for ${id}`);
}

/** The upstream's received chat calls' raw bodies, joined. */
const upstreamSaw = () => upstream.calls.map((c) => c.rawBody).join('\n');

/** Text split into pieces at the given cut offsets. */
function splitAt(text: string, ...cuts: number[]): string[] {
  const out: string[] = [];
  let pos = 0;
  for (const c of cuts) {
    out.push(text.slice(pos, c));
    pos = c;
  }
  out.push(text.slice(pos));
  return out;
}

// ---------------------------------------------------------------- rules used by several tests

const RULE = {
  noAwsIn:
    `  - { id: no-aws-keys, applies_to: input, check: { type: detectors, detectors: [aws_access_key] }, ` +
    `action: block }`,
  codename: `  - { id: codename, applies_to: input, check: { type: keywords, words: ["${CODENAME}"] }, action: block }`,
  piiIn: `  - { id: pii-in, applies_to: input, check: { type: detectors, detectors: [email] }, action: redact }`,
  allIn:
    `  - { id: all-in, applies_to: input, check: { type: detectors, detectors: [email, phone, credit_card, iban, ` +
    `` +
    `` +
    `` +
    `aws_access_key, private_key, bearer_token] }, action: redact }`,
  logIn: `  - { id: watch, applies_to: input, check: { type: detectors, detectors: [email] }, action: log }`,
  piiOut:
    `  - { id: pii-out, applies_to: output, check: { type: detectors, detectors: [email, credit_card] }, ` +
    `action: redact }`,
  allBoth:
    `  - { id: pii, applies_to: both, check: { type: detectors, detectors: [email, phone, credit_card, iban, ` +
    `aws_access_key, private_key, bearer_token] }, action: redact }`,
  noAwsOut:
    `  - { id: no-aws-out, applies_to: output, check: { type: detectors, detectors: [aws_access_key] }, ` +
    `action: block }`,
  awsRedactOut:
    `  - { id: aws-out, applies_to: output, check: { type: detectors, detectors: [aws_access_key] }, ` +
    `action: redact }`,
};

// ================================================================ input

describe('input: block', () => {
  it.each(ENDPOINTS)(
    'an AWS key in the prompt (%s caller): 400 guardrail_blocked naming the rule, nothing sent upstream, the hit ' +
      'logged',
    async (ep) => {
      await start(RULE.noAwsIn);
      const res = await send(ep, ep === 'openai' ? 'oai/m' : 'ant/m', { content: `deploy with ${AWS} please` });
      await expectBlocked(ep, res, 'no-aws-keys');
      expect(upstream.calls).toHaveLength(0);
      const line = await logLine(res);
      expect(line).toMatchObject({
        level: 'warn',
        status: 400,
        error_code: 'guardrail_blocked',
        fault: 'policy',
        key_id: 'dev1',
        attempts: 0,
      });
      expect(line.guardrails).toEqual([
        { guardrail: 'no-aws-keys', action: 'block', direction: 'input', label: 'aws_access_key' },
      ]);
      expect(JSON.stringify(line)).not.toContain('AKIA');
    },
  );

  it.each(ENDPOINTS)(
    'a keyword in the system prompt, any case (%s caller): blocked; the word inside a longer word is not',
    async (ep) => {
      await start(RULE.codename);
      const res = await send(ep, 'oai/m', { system: `You work on PROJECT nightingale.`, content: 'status?' });
      await expectBlocked(ep, res, 'codename');
      expect(upstream.calls).toHaveLength(0);
      expect((await logLine(res)).guardrails).toEqual([
        { guardrail: 'codename', action: 'block', direction: 'input', label: 'keyword' },
      ]);

      const ok = await send(ep, 'oai/m', { system: 'You work on project nightingales-2.', content: 'status?' });
      expect(ok.status).toBe(200);
      expect(upstream.calls).toHaveLength(1);
      expect((await logLine(ok)).guardrails).toBeUndefined();
    },
  );

  it('a block wins over a redaction, and the first blocking rule in config order is named', async () => {
    await start(
      [
        RULE.piiIn,
        `  - { id: first-block, applies_to: input, check: { type: regex, pattern: "deploy" }, action: block }`,
        RULE.noAwsIn,
      ].join('\n'),
    );
    const res = await send('openai', 'oai/m', { content: `deploy ${AWS} and mail ${EMAIL}` });
    await expectBlocked('openai', res, 'first-block');
    expect(upstream.calls).toHaveLength(0);
    const hits = (await logLine(res)).guardrails;
    expect(hits).toContainEqual({ guardrail: 'first-block', action: 'block', direction: 'input', label: 'regex' });
    expect(hits).toContainEqual({
      guardrail: 'no-aws-keys',
      action: 'block',
      direction: 'input',
      label: 'aws_access_key',
    });
  });

  it.each(ENDPOINTS)('an AWS key in an earlier tool call and a tool result (%s caller): blocked too', async (ep) => {
    await start(RULE.noAwsIn);
    const res = await send(ep, 'oai/m', {
      toolTurn: { args: JSON.stringify({ q: 'creds' }), result: `found ${AWS}` },
      content: 'thanks',
    });
    await expectBlocked(ep, res, 'no-aws-keys');
    const res2 = await send(ep, 'oai/m', {
      toolTurn: { args: JSON.stringify({ q: AWS }), result: 'nothing' },
      content: 'thanks',
    });
    await expectBlocked(ep, res2, 'no-aws-keys');
    expect(upstream.calls).toHaveLength(0);
  });
});

describe('input: redact', () => {
  it.each(COMBOS)(
    '%s caller → %s upstream: the upstream gets [REDACTED:email], the reply still works',
    async (ep, up) => {
      await start(RULE.piiIn);
      upstream.setHandler({ text: ['Noted, ', 'will do.'] });
      const res = await send(ep, modelOf(up), { content: `please write to ${EMAIL} today` });
      const r = await read(ep, res);
      expect(r.status).toBe(200);
      expect(r.text).toBe('Noted, will do.');
      expect(upstream.calls).toHaveLength(1);
      const call = upstream.calls[0];
      expect(call.path).toBe(up === 'oai' ? '/v1/chat/completions' : '/v1/messages');
      expect(call.rawBody).not.toContain(EMAIL);
      expect(call.rawBody).toContain('please write to [REDACTED:email] today');
      // Re-encoded from the canonical request: the rest of the request is intact.
      expect(call.body.model).toBe('m');
      expect(call.body.temperature).toBe(0.3);
      expect(call.body.max_tokens ?? call.body.max_completion_tokens).toBe(77);
      expect((await logLine(res)).guardrails).toEqual([
        { guardrail: 'pii-in', action: 'redact', direction: 'input', label: 'email' },
      ]);
    },
  );

  it.each(COMBOS)('%s caller → %s upstream, streaming: redacted upstream, well-formed stream back', async (ep, up) => {
    await start(RULE.piiIn);
    upstream.setHandler({ text: ['Sure', ', done.'] });
    const res = await send(ep, modelOf(up), { content: `cc ${EMAIL}`, stream: true });
    const r = await read(ep, res);
    expect(r.status).toBe(200);
    expectCompleteStream(ep, r);
    expect(r.text).toBe('Sure, done.');
    expect(upstream.calls[0].body.stream).toBe(true);
    expect(upstreamSaw()).not.toContain(EMAIL);
    expect(upstreamSaw()).toContain('cc [REDACTED:email]');
  });

  it('all seven detectors in one prompt: each replaced by its own placeholder', async () => {
    await start(RULE.allIn);
    const prompt = [
      `email ${EMAIL}`,
      `phone ${PHONE}`,
      `card ${CARD}`,
      `iban ${IBAN}`,
      `aws ${AWS}`,
      `auth: Authorization: Bearer ${BEARER_TOKEN}`,
      `key:\n${PRIVATE_KEY}\nend`,
    ].join('\n');
    const res = await send('openai', 'oai/m', { content: prompt });
    expect(res.status).toBe(200);
    const sent = upstream.calls[0].body.messages.at(-1).content as string;
    expect(sent).toBe(
      [
        'email [REDACTED:email]',
        'phone [REDACTED:phone]',
        'card [REDACTED:credit_card]',
        'iban [REDACTED:iban]',
        'aws [REDACTED:aws_access_key]',
        'auth: Authorization: Bearer [REDACTED:bearer_token]',
        'key:\n[REDACTED:private_key]\nend',
      ].join('\n'),
    );
    expectNoSecret(upstreamSaw());
    const labels = (await logLine(res)).guardrails.map((h: any) => h.label).sort();
    expect(labels).toEqual(['aws_access_key', 'bearer_token', 'credit_card', 'email', 'iban', 'phone', 'private_key']);
  });

  it.each(COMBOS)(
    '%s caller → %s upstream: tool-call arguments and tool results in the history are redacted, arguments stay valid ' +
      'JSON',
    async (ep, up) => {
      await start(RULE.allIn);
      const args = JSON.stringify({ q: `key ${AWS}`, owner: EMAIL });
      const res = await send(ep, modelOf(up), { toolTurn: { args, result: `owner is ${EMAIL}` }, content: 'thanks' });
      expect(res.status).toBe(200);
      await res.text();
      expectNoSecret(upstreamSaw());
      const body = upstream.calls[0].body;
      let sentArgs: unknown;
      let sentResult: string;
      if (up === 'oai') {
        const call = body.messages.find((m: any) => m.role === 'assistant').tool_calls[0];
        sentArgs = JSON.parse(call.function.arguments);
        const tool = body.messages.find((m: any) => m.role === 'tool');
        sentResult = typeof tool.content === 'string' ? tool.content : tool.content.map((p: any) => p.text).join('');
      } else {
        const use = body.messages
          .find((m: any) => m.role === 'assistant')
          .content.find((b: any) => b.type === 'tool_use');
        sentArgs = use.input;
        const result = body.messages
          .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
          .find((b: any) => b.type === 'tool_result');
        sentResult =
          typeof result.content === 'string' ? result.content : result.content.map((p: any) => p.text).join('');
      }
      expect(sentArgs).toEqual({ q: 'key [REDACTED:aws_access_key]', owner: '[REDACTED:email]' });
      expect(sentResult).toBe('owner is [REDACTED:email]');
    },
  );
});

describe('input: log', () => {
  it.each(COMBOS)('%s caller → %s upstream: served unchanged, the hit logged', async (ep, up) => {
    await start(RULE.logIn);
    const res = await send(ep, modelOf(up), { content: `reply to ${EMAIL}` });
    const r = await read(ep, res);
    expect(r.status).toBe(200);
    expect(r.text).toBe('ok');
    expect(upstream.calls[0].rawBody).toContain(`reply to ${EMAIL}`);
    const line = await logLine(res);
    expect(line.status).toBe(200);
    expect(line.guardrails).toEqual([{ guardrail: 'watch', action: 'log', direction: 'input', label: 'email' }]);
  });
});

describe('input: max_input_tokens', () => {
  const LONG = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');

  it.each(COMBOS)(
    '%s caller → %s model: a short prompt is served, one over the limit is blocked before any upstream call',
    async (ep, up) => {
      await start(
        `  - { id: small-prompts, applies_to: input, check: { type: max_input_tokens, limit: 60 }, action: block }`,
      );
      const ok = await send(ep, modelOf(up), { content: 'short question' });
      expect(ok.status).toBe(200);
      expect(upstream.calls).toHaveLength(1);
      expect((await logLine(ok)).guardrails).toBeUndefined();

      const res = await send(ep, modelOf(up), { content: LONG });
      await expectBlocked(ep, res, 'small-prompts');
      expect(upstream.calls).toHaveLength(1);
      expect((await logLine(res)).guardrails).toEqual([
        { guardrail: 'small-prompts', action: 'block', direction: 'input', label: 'max_input_tokens' },
      ]);
    },
  );

  it('with action log: served, and the hit logged', async () => {
    await start(
      `  - { id: big-prompts, applies_to: input, check: { type: max_input_tokens, limit: 60 }, action: log }`,
    );
    const res = await send('anthropic', 'oai/m', { content: LONG });
    expect(res.status).toBe(200);
    expect(upstream.calls).toHaveLength(1);
    expect((await logLine(res)).guardrails).toEqual([
      { guardrail: 'big-prompts', action: 'log', direction: 'input', label: 'max_input_tokens' },
    ]);
  });

  it('counts the prompt after redaction: a prompt only over the limit because of a long secret is served', async () => {
    // The private key is long; redacted, the prompt is small.
    await start(
      [
        RULE.allIn,
        `  - { id: small-prompts, applies_to: input, check: { type: max_input_tokens, limit: 40 }, action: block }`,
      ].join('\n'),
    );
    const big =
      `my key:\n-----BEGIN RSA PRIVATE ` +
      `KEY-----\n${Array.from({ length: 12 }, () => PEM_BODY).join('\n')}\n-----END RSA PRIVATE KEY-----`;
    const res = await send('openai', 'oai/m', { content: big });
    expect(res.status).toBe(200);
    expect(upstream.calls[0].body.messages.at(-1).content).toBe('my key:\n[REDACTED:private_key]');
  });
});

// ================================================================ output

describe('output: non-stream', () => {
  it.each(COMBOS)(
    '%s caller ← %s upstream: an email and a card number in the answer become placeholders',
    async (ep, up) => {
      await start(RULE.piiOut);
      upstream.setHandler({ text: [`Mail ${EMAIL} or pay with ${CARD}.`] });
      const res = await send(ep, modelOf(up), { content: 'contact?' });
      const r = await read(ep, res);
      expect(r.status).toBe(200);
      expect(r.text).toBe('Mail [REDACTED:email] or pay with [REDACTED:credit_card].');
      expectNoSecret(r.raw);
      if (ep === 'openai') expect(r.body.choices[0].finish_reason).toBe('stop');
      else expect(r.body.stop_reason).toBe('end_turn');
      const hits = (await logLine(res)).guardrails;
      expect(hits).toEqual([
        { guardrail: 'pii-out', action: 'redact', direction: 'output', label: 'email' },
        { guardrail: 'pii-out', action: 'redact', direction: 'output', label: 'credit_card' },
      ]);
    },
  );

  it.each(COMBOS)(
    '%s caller ← %s upstream: a blocking output rule → 400 guardrail_blocked, nothing of the answer',
    async (ep, up) => {
      await start(RULE.noAwsOut);
      upstream.setHandler({ text: [`Use ${AWS} for that.`] });
      const res = await send(ep, modelOf(up), { content: 'which key?' });
      await expectBlocked(ep, res, 'no-aws-out', 'response');
      expect(upstream.calls).toHaveLength(1);
      const line = await logLine(res);
      expect(line).toMatchObject({ status: 400, error_code: 'guardrail_blocked', fault: 'policy' });
      expect(line.guardrails).toEqual([
        { guardrail: 'no-aws-out', action: 'block', direction: 'output', label: 'aws_access_key' },
      ]);
    },
  );

  it('an input-only rule does not touch the answer, an output-only rule does not touch the prompt', async () => {
    await start(
      [
        RULE.piiIn.replace('pii-in', 'in-only'),
        '  - { id: out-only, applies_to: output, check: { type: detectors, detectors: [credit_card] }, ' +
          'action: redact }',
      ].join('\n'),
    );
    upstream.setHandler({ text: [`write to ${EMAIL}, card ${CARD}`] });
    const res = await send('openai', 'oai/m', { content: `my card ${CARD}, mail ${EMAIL}` });
    const r = await read('openai', res);
    expect(upstream.calls[0].rawBody).toContain(`my card ${CARD}, mail [REDACTED:email]`);
    expect(r.text).toBe(`write to ${EMAIL}, card [REDACTED:credit_card]`);
  });
});

describe('output: streams', () => {
  const TEXT = `Please contact ${EMAIL} now.`;
  const at = TEXT.indexOf(EMAIL);
  const SPLITS: Array<[string, string[]]> = [
    ['two chunks', splitAt(TEXT, at + 6)], // "...contact john.d" + "oe@example.com now."
    ['three chunks', splitAt(TEXT, at + 2, at + 13)], // "...contact jo" + "hn.doe@exam" + "ple.com now."
  ];
  const CASES = COMBOS.flatMap(([ep, up]) => SPLITS.map(([name, pieces]) => [ep, up, name, pieces] as const));

  it.each(CASES)(
    '%s caller ← %s upstream, email split over %s: the placeholder, never the secret, a well-formed stream',
    async (ep, up, _name, pieces) => {
      await start(RULE.piiOut);
      upstream.setHandler({ text: [...pieces] });
      const res = await send(ep, modelOf(up), { content: 'contact?', stream: true, includeUsage: true });
      const r = await read(ep, res);
      expect(r.status).toBe(200);
      expect(r.text).toBe('Please contact [REDACTED:email] now.');
      expectNoSecret(r.raw);
      expect(r.raw).not.toContain('example.com');
      expectCompleteStream(ep, r);
      if (ep === 'openai')
        expect(r.usageChunk?.usage).toMatchObject({
          prompt_tokens: expect.any(Number),
          completion_tokens: expect.any(Number),
        });
      expect((await logLine(res)).guardrails).toEqual([
        { guardrail: 'pii-out', action: 'redact', direction: 'output', label: 'email' },
      ]);
    },
  );

  it.each(COMBOS)(
    '%s caller ← %s upstream: a long answer streams before the secret arrives, secrets across pieces are redacted',
    async (ep, up) => {
      await start(RULE.allBoth);
      const filler = Array.from({ length: 80 }, (_, i) => `w${i}`).join(' ');
      const card = CARD.replace(/ /g, '-');
      const full = `${filler} reach ${EMAIL} or ${card} then ${filler}.`;
      // Pieces of 7 characters: every secret is cut several times.
      const pieces = full.match(/[\s\S]{1,7}/g)!;
      upstream.setHandler({ text: pieces });
      const res = await send(ep, modelOf(up), { content: 'go', stream: true });
      const r = await read(ep, res);
      expectCompleteStream(ep, r);
      expect(r.text).toBe(`${filler} reach [REDACTED:email] or [REDACTED:credit_card] then ${filler}.`);
      expect(r.raw).not.toContain('4111');
      expectNoSecret(r.raw);
      // Text was released as it came (not one delta at the end).
      expect(r.textDeltas).toBeGreaterThan(10);
    },
  );

  it.each(COMBOS)('%s caller ← %s upstream: a keyword split across chunks is redacted', async (ep, up) => {
    await start(
      `  - { id: codename-out, applies_to: output, check: { type: keywords, words: ["${CODENAME}"] }, action: redact }`,
    );
    upstream.setHandler({ text: ['Status of Proj', 'ect Night', 'ingale: green.'] });
    const r = await read(ep, await send(ep, modelOf(up), { content: 'status', stream: true }));
    expectCompleteStream(ep, r);
    expect(r.text).toBe('Status of [REDACTED:keyword]: green.');
  });

  it.each(ENDPOINTS)('%s caller: a regex rule matches across chunks (with its 256-character hold-back)', async (ep) => {
    await start(
      `  - { id: tickets, applies_to: output, check: { type: regex, pattern: "TCK-[0-9]{6}" }, action: redact }`,
    );
    upstream.setHandler({ text: ['See TC', 'K-12', '3456 and TCK-65432', '1.'] });
    const r = await read(ep, await send(ep, 'oai/m', { content: 'tickets', stream: true }));
    expectCompleteStream(ep, r);
    expect(r.text).toBe('See [REDACTED:regex] and [REDACTED:regex].');
  });

  it.each(COMBOS)(
    '%s caller ← %s upstream: a block mid-stream ends it with an in-stream error naming the rule, nothing of the key ' +
      'sent',
    async (ep, up) => {
      await start(RULE.noAwsOut);
      const filler = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
      upstream.setHandler({ text: [`${filler} the key is AKIAIOSF`, 'ODNN7EXAMPLE and', ' more after it.'] });
      const res = await send(ep, modelOf(up), { content: 'key?', stream: true });
      const r = await read(ep, res);
      expectStreamBlocked(ep, r, 'no-aws-out');
      // What came before the key was streamed; nothing of the key itself.
      expect(r.text.length).toBeGreaterThan(0);
      expect(`${filler} the key is `.startsWith(r.text)).toBe(true);
      expect(r.raw).not.toContain('AKIA');
      expect(r.raw).not.toContain('ODNN');
      expect(r.raw).not.toContain('more after');
      const line = await logLine(res);
      expect(line.guardrails).toEqual([
        { guardrail: 'no-aws-out', action: 'block', direction: 'output', label: 'aws_access_key' },
      ]);
    },
  );

  it.each(ENDPOINTS)(
    "%s caller: a block mid-stream while the upstream keeps its stream open still ends the caller's stream, and the " +
      'upstream call is closed',
    async (ep) => {
      await start(RULE.noAwsOut);
      upstream.setHandler({ text: ['here: ', AWS, ' and then some'], kind: 'hang', after: 'body' });
      const res = await send(ep, 'oai/m', { content: 'key?', stream: true });
      const r = await read(ep, res);
      expectStreamBlocked(ep, r, 'no-aws-out');
      expect(r.raw).not.toContain('AKIA');
      for (let i = 0; i < 200 && upstream.open > 0; i++) await sleep(10);
      expect(upstream.open).toBe(0);
    },
  );
});

describe('output: tool-call arguments', () => {
  const ARGS = ['{"access_key":"AKIAIOSF', 'ODNN7EXAMPLE","region":"eu-we', 'st-1"}'];

  it.each(
    COMBOS.flatMap(
      ([ep, up]) =>
        [
          [ep, up, false],
          [ep, up, true],
        ] as const,
    ),
  )(
    '%s caller ← %s upstream (stream %s): an AWS key in the arguments is redacted, JSON stays valid',
    async (ep, up, stream) => {
      await start(RULE.awsRedactOut);
      upstream.setHandler({ toolCalls: [{ name: 'configure', pieces: ARGS }] });
      const r = await read(ep, await send(ep, modelOf(up), { content: 'configure it', stream }));
      expect(r.status).toBe(200);
      if (stream) expectCompleteStream(ep, r);
      expect(r.toolArgs).toBeDefined();
      expect(JSON.parse(r.toolArgs!)).toEqual({ access_key: '[REDACTED:aws_access_key]', region: 'eu-west-1' });
      expect(r.raw).not.toContain('AKIA');
      expect(r.raw).not.toContain('ODNN');
    },
  );

  it.each(
    COMBOS.flatMap(
      ([ep, up]) =>
        [
          [ep, up, false],
          [ep, up, true],
        ] as const,
    ),
  )('%s caller ← %s upstream (stream %s): a blocking rule stops a tool call carrying a key', async (ep, up, stream) => {
    await start(RULE.noAwsOut);
    upstream.setHandler({ text: ['Calling the tool.'], toolCalls: [{ name: 'configure', pieces: ARGS }] });
    const res = await send(ep, modelOf(up), { content: 'configure it', stream });
    if (!stream) {
      await expectBlocked(ep, res, 'no-aws-out', 'response');
      return;
    }
    const r = await read(ep, res);
    expectStreamBlocked(ep, r, 'no-aws-out');
    expect(r.raw).not.toContain('AKIA');
    expect(r.raw).not.toContain('ODNN');
  });
});

// ================================================================ match filters

describe('match filters', () => {
  it.each(ENDPOINTS)('roles (%s caller): a rule for role intern blocks intern, not dev', async (ep) => {
    await start(
      `  - { id: intern-words, match: { roles: [intern] }, check: { type: keywords, words: ["${CODENAME}"] }, ` +
        `action: block }`,
    );
    const blocked = await send(ep, 'oai/m', { key: KEY_INTERN, content: `about ${CODENAME}` });
    await expectBlocked(ep, blocked, 'intern-words');
    const ok = await send(ep, 'oai/m', { key: KEY_DEV1, content: `about ${CODENAME}` });
    expect(ok.status).toBe(200);
    expect(upstream.calls).toHaveLength(1);
    expect((await logLine(ok)).guardrails).toBeUndefined();
  });

  it.each(ENDPOINTS)("keys (%s caller): a rule for key dev2 redacts dev2's prompt and answer only", async (ep) => {
    await start(
      `  - { id: dev2-pii, match: { keys: [dev2] }, check: { type: detectors, detectors: [email] }, action: redact }`,
    );
    upstream.setHandler({ text: [`ask ${EMAIL}`] });
    const r2 = await read(ep, await send(ep, 'ant/m', { key: KEY_DEV2, content: `from ${EMAIL}` }));
    expect(r2.text).toBe('ask [REDACTED:email]');
    expect(upstream.calls[0].rawBody).toContain('from [REDACTED:email]');
    const r1 = await read(ep, await send(ep, 'ant/m', { key: KEY_DEV1, content: `from ${EMAIL}` }));
    expect(r1.text).toBe(`ask ${EMAIL}`);
    expect(upstream.calls[1].rawBody).toContain(`from ${EMAIL}`);
  });

  it.each(ENDPOINTS)(
    'models (%s caller): a rule for ant/* applies to ant/m and to an alias that routes there, not to oai/m',
    async (ep) => {
      await start(
        `  - { id: claude-only, match: { models: ["ant/*"] }, check: { type: keywords, words: ["${CODENAME}"] }, ` +
          `action: block }`,
      );
      await expectBlocked(ep, await send(ep, 'ant/m', { content: CODENAME }), 'claude-only');
      await expectBlocked(ep, await send(ep, 'team/claude', { content: CODENAME }), 'claude-only');
      expect(upstream.calls).toHaveLength(0);
      const ok = await send(ep, 'oai/m', { content: CODENAME });
      expect(ok.status).toBe(200);
      expect(upstream.calls).toHaveLength(1);
    },
  );

  it('models, output: an output rule for oai/* redacts oai/m answers only', async () => {
    await start(
      `  - { id: oai-out, applies_to: output, match: { models: ["oai/*"] }, check: { type: detectors, detectors: ` +
        `[email] }, action: redact }`,
    );
    upstream.setHandler({ text: [`at ${EMAIL}`] });
    expect((await read('openai', await send('openai', 'oai/m', { stream: true }))).text).toBe('at [REDACTED:email]');
    expect((await read('openai', await send('openai', 'ant/m', { stream: true }))).text).toBe(`at ${EMAIL}`);
  });

  it('all filters together: every list must match', async () => {
    await start(
      `  - { id: narrow, match: { roles: [dev], keys: [dev2], models: ["oai/m"] }, check: { type: keywords, words: ` +
        `["${CODENAME}"] }, action: block }`,
    );
    await expectBlocked('openai', await send('openai', 'oai/m', { key: KEY_DEV2, content: CODENAME }), 'narrow');
    expect((await send('openai', 'ant/m', { key: KEY_DEV2, content: CODENAME })).status).toBe(200);
    expect((await send('openai', 'oai/m', { key: KEY_DEV1, content: CODENAME })).status).toBe(200);
    expect((await send('openai', 'oai/m', { key: KEY_INTERN, content: CODENAME })).status).toBe(200);
    expect(upstream.calls).toHaveLength(3);
  });
});

// ================================================================ webhooks

describe('webhook', () => {
  const rule = (id: string, path: string, extra = '', appliesTo = 'input') =>
    `  - { id: ${id}, applies_to: ${appliesTo}, check: { type: webhook, url: "${hook.url}/${path}"${extra} }, ` +
    `action: block }`;

  it.each(ENDPOINTS)('allow (%s caller): served; the webhook got {guardrail, direction, text, parts}', async (ep) => {
    await start(rule('hook', 'allow'));
    const res = await send(ep, 'oai/m', { system: 'Be brief.', content: 'hi there' });
    expect(res.status).toBe(200);
    expect(hook.calls).toHaveLength(1);
    expect(hook.calls[0]).toEqual({
      path: '/allow',
      guardrail: 'hook',
      direction: 'input',
      parts: ['Be brief.', 'hi there'],
      text: 'Be brief.\n\nhi there',
    });
    expect(upstream.calls).toHaveLength(1);
    expect((await logLine(res)).guardrails).toBeUndefined();
  });

  it.each(ENDPOINTS)('block (%s caller): 400 guardrail_blocked naming the rule, nothing upstream', async (ep) => {
    await start(rule('hook', 'block'));
    hook.setAnswer(() => ({ body: { action: 'block' } }));
    const res = await send(ep, 'ant/m', { content: 'forbidden thing' });
    await expectBlocked(ep, res, 'hook');
    expect(upstream.calls).toHaveLength(0);
    expect((await logLine(res)).guardrails).toEqual([
      { guardrail: 'hook', action: 'block', direction: 'input', label: 'webhook' },
    ]);
  });

  it.each(COMBOS)("redact (%s caller → %s upstream): the upstream gets the webhook's texts", async (ep, up) => {
    await start(rule('hook', 'redact'));
    hook.setAnswer((call) => ({
      body: { action: 'redact', parts: call.parts.map((p) => p.replace(/Alice/g, '[NAME]')) },
    }));
    const res = await send(ep, modelOf(up), { system: 'Alice is the user.', content: 'Hello, I am Alice.' });
    const r = await read(ep, res);
    expect(r.status).toBe(200);
    expect(upstreamSaw()).not.toContain('Alice');
    expect(upstreamSaw()).toContain('[NAME] is the user.');
    expect(upstreamSaw()).toContain('Hello, I am [NAME].');
    expect((await logLine(res)).guardrails).toEqual([
      { guardrail: 'hook', action: 'redact', direction: 'input', label: 'webhook' },
    ]);
  });

  it.each([
    ['fail_open', 200],
    ['fail_closed', 400],
  ] as const)('slower than its timeout, on_error %s: HTTP %i', async (onError, _status) => {
    await start(rule('slow-hook', 'slow', `, timeout_ms: 100, on_error: ${onError}`));
    hook.setAnswer(() => ({ body: { action: 'allow' }, delayMs: 1500 }));
    const t0 = performance.now();
    const res = await send('openai', 'oai/m', { content: 'hi' });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(95);
    expect(hook.calls).toHaveLength(1);
    if (onError === 'fail_open') {
      expect(res.status).toBe(200);
      expect(upstream.calls).toHaveLength(1);
    } else {
      await expectBlocked('openai', res, 'slow-hook');
      expect(upstream.calls).toHaveLength(0);
    }
    const action = onError === 'fail_open' ? 'log' : 'block';
    expect((await logLine(res)).guardrails).toEqual([
      { guardrail: 'slow-hook', action, direction: 'input', label: 'webhook_error' },
    ]);
  });

  it.each([
    ['HTTP 500', { status: 500, body: { error: 'boom' } }],
    ['no valid action', { body: { verdict: 'ok' } }],
    ['a redact without parts', { body: { action: 'redact' } }],
  ] as const)('an unusable answer (%s) with on_error fail_closed: blocked', async (_name, answer) => {
    await start(rule('hook', 'bad'));
    hook.setAnswer(() => answer);
    await expectBlocked('anthropic', await send('anthropic', 'oai/m', { content: 'a\u00e9b' }), 'hook');
    expect(upstream.calls).toHaveLength(0);
  });

  it.each(ENDPOINTS)(
    'output webhook on a stream (%s caller): the answer is checked whole, redacted, and streamed well-formed',
    async (ep) => {
      await start(rule('out-hook', 'out', '', 'output'));
      hook.setAnswer((call) => ({
        body: { action: 'redact', parts: call.parts.map((p) => p.replace('Alice', '[NAME]')) },
      }));
      upstream.setHandler({ text: ['Hi Al', 'ice, ', 'bye.'] });
      const res = await send(ep, 'oai/m', { content: 'greet', stream: true });
      const r = await read(ep, res);
      expectCompleteStream(ep, r);
      expect(r.text).toBe('Hi [NAME], bye.');
      expect(hook.calls).toEqual([
        { path: '/out', guardrail: 'out-hook', direction: 'output', parts: ['Hi Alice, bye.'], text: 'Hi Alice, bye.' },
      ]);
    },
  );

  it.each(ENDPOINTS)(
    'output webhook blocking a stream (%s caller): a plain 400 before anything is streamed',
    async (ep) => {
      await start(rule('out-hook', 'out', '', 'output'));
      hook.setAnswer(() => ({ body: { action: 'block' } }));
      upstream.setHandler({ text: ['secret ', 'plans'] });
      const res = await send(ep, 'ant/m', { content: 'plans?', stream: true });
      await expectBlocked(ep, res, 'out-hook', 'response');
      expect((await logLine(res)).guardrails).toEqual([
        { guardrail: 'out-hook', action: 'block', direction: 'output', label: 'webhook' },
      ]);
    },
  );

  it(
    'a rule with action log only records what the webhook said: ' + 'a block verdict is served, logged as log',
    async () => {
      await start(
        `  - { id: dry-run, applies_to: input, check: { type: webhook, url: "${hook.url}/dry" }, action: log }`,
      );
      hook.setAnswer(() => ({ body: { action: 'block' } }));
      const res = await send('openai', 'oai/m', { content: 'anything' });
      expect(res.status).toBe(200);
      expect(upstream.calls).toHaveLength(1);
      expect((await logLine(res)).guardrails).toEqual([
        { guardrail: 'dry-run', action: 'log', direction: 'input', label: 'webhook' },
      ]);
    },
  );

  it.each(ENDPOINTS)(
    'applies_to both, non-stream (%s caller): called for the prompt, then for the answer, and both redactions apply',
    async (ep) => {
      await start(rule('both-hook', 'both', '', 'both'));
      hook.setAnswer((call) => ({
        body: { action: 'redact', parts: call.parts.map((p) => p.replace(/Alice/g, '[NAME]')) },
      }));
      upstream.setHandler({ text: ['Hello Alice!'] });
      const res = await send(ep, 'ant/m', { content: 'I am Alice' });
      const r = await read(ep, res);
      expect(r.text).toBe('Hello [NAME]!');
      expect(upstreamSaw()).toContain('I am [NAME]');
      expect(hook.calls.map((c) => [c.direction, c.parts])).toEqual([
        ['input', ['I am Alice']],
        ['output', ['Hello Alice!']],
      ]);
      expect((await logLine(res)).guardrails).toEqual([
        { guardrail: 'both-hook', action: 'redact', direction: 'input', label: 'webhook' },
        { guardrail: 'both-hook', action: 'redact', direction: 'output', label: 'webhook' },
      ]);
    },
  );
});

// ================================================================ known bugs (it.fails: remove `.fails` once fixed)

describe('known bugs', () => {
  // BUG: POST /v1/messages/count_tokens does not run the input guardrails (src/server/routes.ts:37-42:
  // its stages are observe, render, parseCountBody, authenticate, authorise, countTokensReply — no
  // guardInput), and for an Anthropic-format model countTokensReply (src/pipeline/count-tokens-reply.ts:43-55)
  // forwards the prompt to the provider's count_tokens endpoint. A secret an input rule blocks or
  // redacts on /v1/messages therefore reaches the provider verbatim through count_tokens.
  // Expected: the same input rules as /v1/messages (block → 400 guardrail_blocked, redact → the
  // provider counts the redacted prompt); at least, the secret never leaves the gateway.
  it('count_tokens applies the input guardrails: a blocked or redacted secret never reaches the provider', async () => {
    await start([RULE.noAwsIn, RULE.piiIn].join('\n'));
    const count = (content: string) =>
      fetch(`${gw!.url}/v1/messages/count_tokens`, {
        method: 'POST',
        headers: { 'x-api-key': KEY_DEV1, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'ant/m', messages: [{ role: 'user', content }] }),
      });
    const blocked = await count(`key ${AWS}`);
    await blocked.text();
    const redacted = await count(`mail ${EMAIL}`);
    await redacted.text();
    expect(upstreamSaw()).not.toContain(AWS);
    expect(upstreamSaw()).not.toContain(EMAIL);
    expect(blocked.status).toBe(400);
  });

  // BUG: an input redaction on a same-format request re-encodes it from the canonical view
  // (src/formats/translator.ts, translatorFor), and encodeOpenaiRequest refuses any field the canonical
  // model does not carry (src/formats/openai-chat/request-encode.ts). So an OpenAI caller →
  // OpenAI upstream request with e.g. `seed` or `response_format: json_object` is served without PII
  // but fails with 400 invalid_request "The field(s) seed, response_format cannot be translated to
  // the OpenAI chat format" as soon as a redaction happens — no translation is involved, and the
  // caller cannot tell that a guardrail caused it. (Same for Anthropic `redacted_thinking` blocks.)
  // Expected: served, the upstream gets the redacted text and the caller's other fields.
  it('a redaction keeps fields without a canonical home (seed, response_format) on a same-format request', async () => {
    await start(RULE.piiIn);
    const res = await fetch(`${gw!.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY_DEV1}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'oai/m',
        seed: 7,
        response_format: { type: 'json_object' },
        messages: [{ role: 'user', content: `json for ${EMAIL}` }],
      }),
    });
    expect(res.status).toBe(200);
    expect(upstream.calls[0].body).toMatchObject({ seed: 7, response_format: { type: 'json_object' } });
    expect(upstream.calls[0].rawBody).toContain('json for [REDACTED:email]');
  });

  // FIXED: a redaction used to re-encode the request from the canonical view, which drops Anthropic
  // `cache_control` hints; input rules now redact the caller's body itself (guardrails/request-texts.ts).
  it('a redaction keeps cache_control on an Anthropic → Anthropic request', async () => {
    await start(RULE.piiIn);
    const res = await fetch(`${gw!.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': KEY_DEV1, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'ant/m',
        max_tokens: 10,
        system: [{ type: 'text', text: 'a long, cached system prompt', cache_control: { type: 'ephemeral' } }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: `mail ${EMAIL}`, cache_control: { type: 'ephemeral' } }] },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const body = upstream.calls[0].body;
    expect(body.messages[0].content[0]).toEqual({
      type: 'text',
      text: 'mail [REDACTED:email]',
      cache_control: { type: 'ephemeral' },
    });
    expect(body.system[0].cache_control).toEqual({ type: 'ephemeral' });
  });

  // BUG: with `observability.log.include_prompts: true` the request log carries the prompt
  // (src/pipeline/observe.ts:62, from ctx.chat). A request an input rule BLOCKS keeps its original
  // ctx.chat (src/pipeline/guard-input.ts throws before ctx.chat is replaced, and block matches are
  // never redacted anyway), so the very secret the guardrail blocked is written to the log —
  // against "Errors and logs name the guardrail, never the matched text" (README, Guardrails).
  // Redacted prompts are logged redacted (checked below as a control). Expected: the blocked
  // match is not in the log (prompt omitted, or logged with the match replaced).
  it('include_prompts: a blocked secret is not written to the log', async () => {
    await start([RULE.noAwsIn, RULE.piiIn].join('\n'), 'observability: { log: { include_prompts: true } }');
    const redacted = await send('openai', 'oai/m', { content: `mail ${EMAIL}` });
    expect((await logLine(redacted)).prompt.messages[0].content).toEqual([
      { type: 'text', text: 'mail [REDACTED:email]' },
    ]);
    const blocked = await send('openai', 'oai/m', { content: `key ${AWS}` });
    expect(blocked.status).toBe(400);
    const line = await logLine(blocked);
    try {
      expect(JSON.stringify(line)).not.toContain(AWS);
    } finally {
      // Keep the afterEach log invariant about the bug reported here, not a second failure.
      gw!.logs.length = 0;
    }
  });

  // BUG (detector bypass): tool-call argument JSON is scanned on a view where every escape
  // sequence is blanked (src/guardrails/json-text.ts:89 in lexJson; used by scan.ts:80 and stream.ts:153),
  // so one `\u0041` in place of the "A" of "AKIA…" hides the key, while the JSON still decodes to
  // the full key for the tool (and the model). Works for input (an OpenAI caller's tool_calls) and
  // output (an upstream tool call, streamed or not). Expected: `\uXXXX` escapes of letters/digits
  // are seen as the character they encode.
  it('an escaped character inside tool-call arguments does not hide a key (input)', async () => {
    await start(RULE.noAwsIn);
    const res = await send('openai', 'oai/m', {
      toolTurn: { args: '{"q":"\\u0041KIAIOSFODNN7EXAMPLE"}', result: 'none' },
      content: 'thanks',
    });
    await res.text();
    expect(res.status).toBe(400);
    expect(upstream.calls).toHaveLength(0);
  });

  it.fails('an escaped character inside tool-call arguments does not hide a key (output stream)', async () => {
    await start(RULE.awsRedactOut);
    upstream.setHandler({ toolCalls: [{ name: 'configure', pieces: ['{"k":"\\u0041KIAIOSF', 'ODNN7EXAMPLE"}'] }] });
    const r = await read('openai', await send('openai', 'oai/m', { content: 'configure', stream: true }));
    expect(JSON.parse(r.toolArgs!)).toEqual({ k: '[REDACTED:aws_access_key]' });
  });

  // BUG (minor): input webhooks get no cancellation — guardInput calls checkInput with only
  // { config } (src/pipeline/guard-input.ts; output: src/pipeline/guard-output.ts), though
  // WebhookDeps.signal exists for "an abandoned request stops waiting on the webhook"
  // (src/guardrails/webhook.ts:24-25, 43). A caller that goes away keeps its webhook call open until the
  // webhook answers or times out (default 2 s); the request then carries on into dispatch (logged
  // as a 502 upstream_unavailable with fault "provider" and attempts 1). ctx.signal is a
  // CancelSignal (EventEmitter), so it needs adapting to an AbortSignal. Expected: the webhook call
  // is aborted when the caller leaves.
  it('a caller that goes away while an input webhook is consulted aborts the webhook call', async () => {
    await start(
      `  - { id: slow, applies_to: input, check: { type: webhook, url: "${hook.url}/slow", timeout_ms: 5000, ` +
        `on_error: fail_closed }, action: block }`,
    );
    hook.setAnswer(() => ({ body: { action: 'allow' }, delayMs: 1500 }));
    const abandonedBefore = hook.abandoned; // earlier tests' timed-out webhook calls count too
    const ac = new AbortController();
    const pending = fetch(`${gw!.url}/v1/chat/completions`, {
      method: 'POST',
      signal: ac.signal,
      headers: { authorization: `Bearer ${KEY_DEV1}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'oai/m', messages: [{ role: 'user', content: 'then I leave' }] }),
    }).catch(() => undefined);
    for (let i = 0; i < 200 && hook.calls.length === 0; i++) await sleep(10);
    expect(hook.calls).toHaveLength(1);
    ac.abort();
    await pending;
    // Bounded: until the request's log line is written (or the webhook has answered and more).
    for (let i = 0; i < 400 && !gw!.logs.some((l) => l.includes('"msg":"request"')); i++) await sleep(10);
    for (let i = 0; i < 50 && hook.abandoned === abandonedBefore; i++) await sleep(10);
    expect(hook.abandoned).toBe(abandonedBefore + 1);
  });
});
