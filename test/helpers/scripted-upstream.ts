/**
 * A real HTTP server on 127.0.0.1 that plays BOTH providers, OpenAI Chat Completions and Anthropic
 * Messages, with hand-written renderers that share no code with the gateway (src/formats is not
 * imported). What it answers is scripted by the text of the LAST user message, so one scenario
 * list works whichever format the gateway speaks upstream:
 *
 *   default              → text `echo: <last user text>`, prefixed `[sys:<system>] ` when a system prompt was sent
 *   contains `weather`   → one tool call get_weather {"city":"Paris"}, no text
 *   contains `parallel`  → two tool calls get_weather {"city":"Paris"}, {"city":"Rome"}
 *                          (OpenAI SSE interleaves their argument fragments by index; Anthropic SSE has sequential blocks)
 *   last message is a tool result → text `tool said: <result text>`
 *   max_tokens < words   → the first max_tokens words, finish `length` / stop_reason `max_tokens`
 *   contains `fail NNN`  → HTTP NNN (429/500/529/400…) with the format's error body, before any stream
 *   contains `cut`       → a stream that starts (first text delta) then sends an in-stream error and ends
 *
 * Usage is fixed, with cache counters, and the same on both sides once translated:
 *   OpenAI    prompt_tokens 20 (prompt_tokens_details.cached_tokens 4), completion_tokens = output units
 *   Anthropic input_tokens 16, cache_read_input_tokens 4, output_tokens = output units
 * (output units: one per word of text, plus TOOL_CALL_TOKENS per tool call).
 *
 * POST /v1/messages/count_tokens answers `{input_tokens: 1000 + messages.length}`.
 * Every request is recorded (path, headers, raw and parsed body) with the exact bytes answered.
 */

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any;
  /** The exact bytes the upstream answered with (the body; JSON or SSE text). */
  responseText: string;
  status: number;
}

export interface ScriptedUpstream {
  url: string;
  received: ScriptedRequest[];
  /** Requests received on one path, oldest first. */
  on(path: string): ScriptedRequest[];
  last(path?: string): ScriptedRequest | undefined;
  reset(): void;
  close(): Promise<void>;
}

/** Prompt-side usage both formats report (the same tokens, counted each format's way). */
export const USAGE = {
  openai: { prompt_tokens: 20, cached_tokens: 4 },
  anthropic: { input_tokens: 16, cache_read_input_tokens: 4, cache_creation_input_tokens: 0 },
} as const;
export const TOOL_CALL_TOKENS = 10;
export const COUNT_TOKENS_BASE = 1000;

export interface ToolCallPlan {
  name: string;
  args: Record<string, unknown>;
}

export type Plan =
  | { kind: 'reply'; words: string[]; toolCalls: ToolCallPlan[]; finish: 'stop' | 'length' | 'tool_calls' }
  | { kind: 'error'; status: number }
  | { kind: 'cut'; words: string[] };

type Format = 'openai' | 'anthropic';

/** What the request looks like, independent of its wire format. */
interface Conversation {
  system: string;
  lastUserText: string;
  /** Set when the last message is a tool result: its text. */
  toolResult?: string;
  /** Set when a tool result names a call the previous assistant turn did not make. */
  danglingToolResult?: string;
  maxTokens?: number;
  stream: boolean;
  includeUsage: boolean;
  messageCount: number;
}

// ---------------------------------------------------------------- reading requests

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: any) =>
      p?.type === 'text' && typeof p.text === 'string' ? p.text : p?.type === 'tool_result' ? textOf(p.content) : '',
    )
    .join('');
}

function readOpenAI(body: any): Conversation {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const system = msgs
    .filter((m) => m?.role === 'system' || m?.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n');
  const lastUser = [...msgs].reverse().find((m) => m?.role === 'user');
  const last = msgs.at(-1);
  const conv: Conversation = {
    system,
    lastUserText: textOf(lastUser?.content),
    maxTokens:
      typeof body?.max_completion_tokens === 'number'
        ? body.max_completion_tokens
        : typeof body?.max_tokens === 'number'
          ? body.max_tokens
          : undefined,
    stream: body?.stream === true,
    includeUsage: body?.stream_options?.include_usage === true,
    messageCount: msgs.length,
  };
  if (last?.role === 'tool') {
    // The tool messages at the end answer the calls the assistant message before them made.
    let i = msgs.length - 1;
    while (i >= 0 && msgs[i]?.role === 'tool') i--;
    const results = msgs.slice(i + 1);
    conv.toolResult = results.map((m) => textOf(m.content)).join('\n');
    const calls = new Set<string>((msgs[i]?.tool_calls ?? []).map((c: any) => c?.id));
    for (const r of results) if (!calls.has(r.tool_call_id)) conv.danglingToolResult = String(r.tool_call_id);
  }
  return conv;
}

function readAnthropic(body: any): Conversation {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const system = textOf(body?.system);
  const lastUser = [...msgs].reverse().find((m) => m?.role === 'user');
  const last = msgs.at(-1);
  const conv: Conversation = {
    system,
    lastUserText: Array.isArray(lastUser?.content)
      ? lastUser.content
          .filter((b: any) => b?.type === 'text')
          .map((b: any) => b.text)
          .join('')
      : textOf(lastUser?.content),
    maxTokens: typeof body?.max_tokens === 'number' ? body.max_tokens : undefined,
    stream: body?.stream === true,
    includeUsage: true,
    messageCount: msgs.length,
  };
  const results =
    last?.role === 'user' && Array.isArray(last.content)
      ? last.content.filter((b: any) => b?.type === 'tool_result')
      : [];
  if (results.length > 0) {
    conv.toolResult = results.map((b: any) => textOf(b.content)).join('\n');
    const prev = msgs.at(-2);
    const calls = new Set<string>(
      Array.isArray(prev?.content) ? prev.content.filter((b: any) => b?.type === 'tool_use').map((b: any) => b.id) : [],
    );
    for (const r of results) if (!calls.has(r.tool_use_id)) conv.danglingToolResult = String(r.tool_use_id);
  }
  return conv;
}

/** The scenario, from the conversation alone (format-independent). */
export function planFor(conv: Pick<Conversation, 'system' | 'lastUserText' | 'toolResult' | 'maxTokens'>): Plan {
  if (conv.toolResult !== undefined) return withLimit(`tool said: ${conv.toolResult}`, conv.maxTokens);
  const text = conv.lastUserText;
  const fail = /fail (\d{3})/.exec(text);
  if (fail) return { kind: 'error', status: Number(fail[1]) };
  if (text.includes('parallel')) {
    return {
      kind: 'reply',
      words: [],
      finish: 'tool_calls',
      toolCalls: [
        { name: 'get_weather', args: { city: 'Paris' } },
        { name: 'get_weather', args: { city: 'Rome' } },
      ],
    };
  }
  if (text.includes('weather'))
    return {
      kind: 'reply',
      words: [],
      finish: 'tool_calls',
      toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }],
    };
  const reply = `${conv.system ? `[sys:${conv.system}] ` : ''}echo: ${text}`;
  if (text.includes('cut')) return { kind: 'cut', words: reply.split(' ') };
  return withLimit(reply, conv.maxTokens);
}

function withLimit(text: string, maxTokens: number | undefined): Plan {
  const words = text.split(' ');
  if (maxTokens !== undefined && maxTokens < words.length)
    return { kind: 'reply', words: words.slice(0, maxTokens), toolCalls: [], finish: 'length' };
  return { kind: 'reply', words, toolCalls: [], finish: 'stop' };
}

/** Stream pieces: each word, with the space before it. */
function pieces(words: string[]): string[] {
  return words.map((w, i) => (i === 0 ? w : ` ${w}`));
}

function outputTokens(plan: Extract<Plan, { kind: 'reply' }>): number {
  return plan.words.length + TOOL_CALL_TOKENS * plan.toolCalls.length;
}

/** A JSON text cut into three fragments, as providers stream arguments. */
function fragments(json: string): string[] {
  const a = Math.floor(json.length / 3);
  const b = Math.floor((2 * json.length) / 3);
  return [json.slice(0, a), json.slice(a, b), json.slice(b)];
}

// ---------------------------------------------------------------- OpenAI renderers

const OPENAI_ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: 'invalid_value', message: 'Invalid value requested by the script.' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests.' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request.' },
  529: { type: 'server_error', code: 'overloaded', message: 'The engine is currently overloaded.' },
};

function openaiError(status: number, message?: string) {
  const e = OPENAI_ERRORS[status] ?? {
    type: status >= 500 ? 'server_error' : 'invalid_request_error',
    code: null,
    message: `HTTP ${status}`,
  };
  return { error: { message: message ?? e.message, type: e.type, param: null, code: e.code } };
}

function openaiUsage(plan: Extract<Plan, { kind: 'reply' }> | { words: string[] }) {
  const completion = 'toolCalls' in plan ? outputTokens(plan) : plan.words.length;
  return {
    prompt_tokens: USAGE.openai.prompt_tokens,
    completion_tokens: completion,
    total_tokens: USAGE.openai.prompt_tokens + completion,
    prompt_tokens_details: { cached_tokens: USAGE.openai.cached_tokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

const OPENAI_HEAD = (model: string) => ({
  id: 'chatcmpl-scripted-1',
  created: 1700000000,
  model,
  system_fingerprint: 'fp_scripted',
});
const callId = (i: number) => `call_scripted_${i}`;

function openaiJson(plan: Extract<Plan, { kind: 'reply' }>, model: string) {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: plan.words.length > 0 ? plan.words.join(' ') : null,
    refusal: null,
  };
  if (plan.toolCalls.length > 0) {
    message.tool_calls = plan.toolCalls.map((t, i) => ({
      id: callId(i),
      type: 'function',
      function: { name: t.name, arguments: JSON.stringify(t.args) },
    }));
  }
  return {
    ...OPENAI_HEAD(model),
    object: 'chat.completion',
    choices: [{ index: 0, message, logprobs: null, finish_reason: plan.finish }],
    usage: openaiUsage(plan),
  };
}

function openaiSse(plan: Extract<Plan, { kind: 'reply' | 'cut' }>, model: string, includeUsage: boolean): string[] {
  const head = { ...OPENAI_HEAD(model), object: 'chat.completion.chunk' };
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) })}\n\n`;
  const out: string[] = [];
  const calls = plan.kind === 'reply' ? plan.toolCalls : [];
  out.push(chunk({ role: 'assistant', content: calls.length > 0 ? null : '', refusal: null }, null));
  if (plan.kind === 'cut') {
    out.push(chunk({ content: plan.words[0] }, null));
    out.push(
      `data: ${JSON.stringify({ error: { message: 'boom', type: 'server_error', param: null, code: null } })}\n\n`,
    );
    return out;
  }
  for (const p of pieces(plan.words)) out.push(chunk({ content: p }, null));
  // Each call opens with id + name, then its argument fragments; with several calls the
  // fragments of different indices interleave.
  calls.forEach((t, i) => {
    out.push(
      chunk(
        { tool_calls: [{ index: i, id: callId(i), type: 'function', function: { name: t.name, arguments: '' } }] },
        null,
      ),
    );
  });
  const frags = calls.map((t) => fragments(JSON.stringify(t.args)));
  for (let k = 0; k < 3; k++) {
    frags.forEach((f, i) => {
      out.push(chunk({ tool_calls: [{ index: i, function: { arguments: f[k] } }] }, null));
    });
  }
  out.push(chunk({}, plan.finish));
  if (includeUsage) out.push(`data: ${JSON.stringify({ ...head, choices: [], usage: openaiUsage(plan) })}\n\n`);
  out.push('data: [DONE]\n\n');
  return out;
}

// ---------------------------------------------------------------- Anthropic renderers

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function anthropicError(status: number, message?: string) {
  const type = ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message: message ?? `Scripted ${type}.` } };
}

const STOP_REASON = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use' } as const;
const toolUseId = (i: number) => `toolu_scripted_${i}`;

function anthropicUsage(output: number) {
  return { ...USAGE.anthropic, output_tokens: output };
}

function anthropicJson(plan: Extract<Plan, { kind: 'reply' }>, model: string) {
  const content: unknown[] = [];
  if (plan.words.length > 0) content.push({ type: 'text', text: plan.words.join(' ') });
  plan.toolCalls.forEach((t, i) => {
    content.push({ type: 'tool_use', id: toolUseId(i), name: t.name, input: t.args });
  });
  return {
    id: 'msg_scripted_1',
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: STOP_REASON[plan.finish],
    stop_sequence: null,
    usage: anthropicUsage(outputTokens(plan)),
  };
}

function anthropicSse(plan: Extract<Plan, { kind: 'reply' | 'cut' }>, model: string): string[] {
  const ev = (data: { type: string } & Record<string, unknown>) =>
    `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const out: string[] = [];
  out.push(
    ev({
      type: 'message_start',
      message: {
        id: 'msg_scripted_1',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: anthropicUsage(1),
      },
    }),
  );
  out.push(ev({ type: 'ping' }));
  let index = 0;
  if (plan.words.length > 0) {
    out.push(ev({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
    if (plan.kind === 'cut') {
      out.push(ev({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: plan.words[0] } }));
      out.push(ev({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } as never));
      return out;
    }
    for (const p of pieces(plan.words))
      out.push(ev({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: p } }));
    out.push(ev({ type: 'content_block_stop', index }));
    index++;
  }
  if (plan.kind === 'cut') return out;
  plan.toolCalls.forEach((t, i) => {
    out.push(
      ev({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: toolUseId(i), name: t.name, input: {} },
      }),
    );
    for (const f of fragments(JSON.stringify(t.args)))
      out.push(ev({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: f } }));
    out.push(ev({ type: 'content_block_stop', index }));
    index++;
  });
  out.push(
    ev({
      type: 'message_delta',
      delta: { stop_reason: STOP_REASON[plan.finish], stop_sequence: null },
      usage: { output_tokens: outputTokens(plan) },
    }),
  );
  out.push(ev({ type: 'message_stop' }));
  return out;
}

// ---------------------------------------------------------------- server

interface Answer {
  status: number;
  headers: Record<string, string>;
  /** One write per chunk. */
  chunks: string[];
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  chunks: [JSON.stringify(body)],
});
const sse = (chunks: string[], headers: Record<string, string> = {}): Answer => ({
  status: 200,
  headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers },
  chunks,
});

function answerChat(format: Format, body: any): Answer {
  const conv = format === 'openai' ? readOpenAI(body) : readAnthropic(body);
  const model = typeof body?.model === 'string' ? body.model : 'unknown';
  const err = format === 'openai' ? openaiError : anthropicError;
  const reqId: Record<string, string> =
    format === 'openai' ? { 'x-request-id': 'req_scripted_oai' } : { 'request-id': 'req_scripted_ant' };
  if (format === 'anthropic' && conv.maxTokens === undefined)
    return json(400, err(400, 'max_tokens: Field required'), reqId);
  if (conv.messageCount === 0) return json(400, err(400, 'messages: at least one message is required'), reqId);
  if (conv.danglingToolResult !== undefined) {
    return json(
      400,
      err(400, `tool result ${conv.danglingToolResult} does not answer a tool call of the previous assistant turn`),
      reqId,
    );
  }
  const plan = planFor(conv);
  if (plan.kind === 'error')
    return json(plan.status, err(plan.status), { ...reqId, ...(plan.status === 429 ? { 'retry-after': '7' } : {}) });
  if (conv.stream)
    return sse(format === 'openai' ? openaiSse(plan, model, conv.includeUsage) : anthropicSse(plan, model), reqId);
  // A non-streaming request cannot fail half-way: `cut` becomes a plain server error.
  if (plan.kind === 'cut') return json(500, err(500), reqId);
  return json(200, format === 'openai' ? openaiJson(plan, model) : anthropicJson(plan, model), reqId);
}

function answer(method: string, path: string, body: any): Answer {
  const route = path.split('?')[0];
  if (method === 'POST' && route === '/v1/chat/completions') return answerChat('openai', body);
  if (method === 'POST' && route === '/v1/messages') return answerChat('anthropic', body);
  if (method === 'POST' && route === '/v1/messages/count_tokens') {
    const n = Array.isArray(body?.messages) ? body.messages.length : 0;
    if (n === 0) return json(400, anthropicError(400, 'messages: Field required'));
    return json(200, { input_tokens: COUNT_TOKENS_BASE + n });
  }
  return json(404, { type: 'error', error: { type: 'not_found_error', message: `No route ${method} ${route}` } });
}

export async function startScriptedUpstream(): Promise<ScriptedUpstream> {
  const received: ScriptedRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const rawBody = Buffer.concat(parts).toString('utf8');
    let body: unknown;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      body = undefined;
    }
    const path = req.url ?? '';
    const a =
      body === undefined && req.method === 'POST'
        ? json(
            400,
            path.startsWith('/v1/messages')
              ? anthropicError(400, 'body is not JSON')
              : openaiError(400, 'body is not JSON'),
          )
        : answer(req.method ?? '', path, body);
    received.push({
      method: req.method ?? '',
      path,
      headers: req.headers,
      rawBody,
      body,
      responseText: a.chunks.join(''),
      status: a.status,
    });
    res.writeHead(a.status, a.headers);
    for (const c of a.chunks) res.write(c);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    on: (p) => received.filter((r) => r.path.split('?')[0] === p),
    last: (p) => (p === undefined ? received.at(-1) : received.filter((r) => r.path.split('?')[0] === p).at(-1)),
    reset: () => {
      received.length = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

// ---------------------------------------------------------------- gateway config

export const SCRIPTED_KEY = 'scripted-gateway-key-0001';
export const SCRIPTED_LIMITED_KEY = 'scripted-gateway-key-0002';
export const OAI_SECRET = 'sk-oai-provider-secret-000111';
export const ANT_SECRET = 'sk-ant-provider-secret-000222';

/**
 * Two providers on the scripted upstream, one per wire format (`oai/m`, `ant/m`), plus the
 * built-in mock (`local/echo`). Role `all` may use everything; role `limited` only `local/*`.
 */
export function scriptedConfigYaml(upstreamUrl: string, opts: { bodyLimit?: string } = {}): string {
  return `
server: { host: 127.0.0.1, port: 0, body_limit: ${opts.bodyLimit ?? '1mb'}, shutdown_grace_ms: 2000 }
# Format tests: one upstream call per request, and no circuit opened by scripted failures.
routing: { retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 } }
providers:
  oai:
    api: openai
    base_url: ${upstreamUrl}/v1
    api_key: ${OAI_SECRET}
    timeouts: { connect_ms: 2000, first_byte_ms: 3000, total_ms: 10000 }
    models:
      m: { context_window: 100000, max_output_tokens: 1000 }
  ant:
    api: anthropic
    base_url: ${upstreamUrl}
    api_key: ${ANT_SECRET}
    timeouts: { connect_ms: 2000, first_byte_ms: 3000, total_ms: 10000 }
    models:
      m: { context_window: 100000, max_output_tokens: 1000 }
  local:
    api: mock
    models:
      echo: { context_window: 8192 }
roles:
  all: { models: ["*"] }
  limited: { models: ["local/*"] }
keys:
  - { id: all, key: ${SCRIPTED_KEY}, role: all }
  - { id: limited, key: ${SCRIPTED_LIMITED_KEY}, role: limited }
`;
}

// ---------------------------------------------------------------- client side

/**
 * A `fetch` for the SDK clients that keeps a copy of every event-stream body the gateway sends,
 * so the raw SSE behind an SDK call can be checked too. The body is read whole before the SDK
 * sees it (the gateway ends its streams itself), so an SDK that aborts on an `event: error`
 * cannot cut the copy short. `sentHeaders` (optional) receives the headers of every request sent.
 */
export function recordingFetch(streams: string[], sentHeaders?: Array<Record<string, string>>): typeof fetch {
  return async (input, init) => {
    sentHeaders?.push(Object.fromEntries(new Headers(init?.headers).entries()));
    const res = await fetch(input, init);
    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return res;
    const text = await res.text();
    streams.push(text);
    return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
