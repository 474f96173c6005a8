/**
 * Servers on 127.0.0.1 for the guardrail tests.
 *
 * `startGuardUpstream`: plays both providers (OpenAI `/v1/chat/completions`, Anthropic
 * `/v1/messages`) and answers every call with the reply the test scripts: text pieces and an
 * optional tool call whose argument JSON comes in fragments. A stream sends one event per text
 * piece / argument fragment (each its own write, a short pause between), so a test decides exactly
 * where a secret is split. `hang: true` sends everything but the end of the stream and keeps the
 * connection open (the gateway must stop on its own). POST /v1/messages/count_tokens answers
 * `{input_tokens: COUNTED_TOKENS}`. Every call is recorded with its raw body.
 *
 * `startGuardWebhook`: a guardrail webhook whose verdict each test scripts (optionally late, to
 * test timeouts); it records every call.
 */

import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GuardCall {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any;
}

export interface GuardReply {
  /** Text pieces: one stream delta each; joined for a JSON answer. Empty/absent: no text part. */
  text?: string[];
  /** One tool call; `args` are the argument JSON fragments (joined, they must be valid JSON). */
  tool?: { name: string; args: string[] };
  /** Streams only: send everything except the end (finish/stop events), then keep the connection open. */
  hang?: boolean;
}

export interface GuardUpstream {
  url: string;
  calls: GuardCall[];
  /** The reply for every call from now on (a function may look at the call). */
  setReply(r: GuardReply | ((call: GuardCall) => GuardReply)): void;
  /** Responses still open (hanging streams). */
  readonly open: number;
  close(): Promise<void>;
}

const PAUSE_MS = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const UPSTREAM_USAGE = { input: 21, output: 9 };
/** What POST /v1/messages/count_tokens answers. */
export const COUNTED_TOKENS = 42;

export async function startGuardUpstream(): Promise<GuardUpstream> {
  const calls: GuardCall[] = [];
  let reply: GuardReply | ((call: GuardCall) => GuardReply) = { text: ['ok'] };
  const open = new Set<ServerResponse>();
  const server: Server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const rawBody = Buffer.concat(parts).toString('utf8');
    let body: any;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    const call: GuardCall = { path: req.url ?? '', headers: req.headers, rawBody, body };
    calls.push(call);
    const r = typeof reply === 'function' ? reply(call) : reply;
    if (call.path.startsWith('/v1/messages/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: COUNTED_TOKENS }));
      return;
    }
    const anthropic = call.path.startsWith('/v1/messages');
    const model = typeof body?.model === 'string' ? body.model : 'unknown';
    if (body?.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(anthropic ? anthropicJson(r, model) : openaiJson(r, model)));
      return;
    }
    open.add(res);
    res.on('close', () => open.delete(res));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const events = anthropic
      ? anthropicSse(r, model)
      : openaiSse(r, model, body?.stream_options?.include_usage === true);
    const body_ = r.hang ? events.body : [...events.body, ...events.end];
    for (const e of body_) {
      if (res.destroyed) return;
      res.write(e);
      await sleep(PAUSE_MS);
    }
    if (!r.hang) res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    setReply: (r) => {
      reply = r;
    },
    get open() {
      return open.size;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

// ---------------------------------------------------------------- OpenAI

const TOOL_ID = 'call_guard_1';

function openaiJson(r: GuardReply, model: string) {
  const text = (r.text ?? []).join('');
  const message: Record<string, unknown> = { role: 'assistant', content: text.length > 0 ? text : null, refusal: null };
  if (r.tool)
    message.tool_calls = [
      { id: TOOL_ID, type: 'function', function: { name: r.tool.name, arguments: r.tool.args.join('') } },
    ];
  return {
    id: 'chatcmpl-guard-1',
    object: 'chat.completion',
    created: 1700000000,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: r.tool ? 'tool_calls' : 'stop' }],
    usage: {
      prompt_tokens: UPSTREAM_USAGE.input,
      completion_tokens: UPSTREAM_USAGE.output,
      total_tokens: UPSTREAM_USAGE.input + UPSTREAM_USAGE.output,
    },
  };
}

function openaiSse(r: GuardReply, model: string, includeUsage: boolean): { body: string[]; end: string[] } {
  const head = { id: 'chatcmpl-guard-1', object: 'chat.completion.chunk', created: 1700000000, model };
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) })}\n\n`;
  const body = [chunk({ role: 'assistant', content: '' }, null)];
  for (const t of r.text ?? []) body.push(chunk({ content: t }, null));
  if (r.tool) {
    body.push(
      chunk(
        { tool_calls: [{ index: 0, id: TOOL_ID, type: 'function', function: { name: r.tool.name, arguments: '' } }] },
        null,
      ),
    );
    for (const f of r.tool.args) body.push(chunk({ tool_calls: [{ index: 0, function: { arguments: f } }] }, null));
  }
  const end = [chunk({}, r.tool ? 'tool_calls' : 'stop')];
  if (includeUsage) {
    end.push(
      `data: ${JSON.stringify({ ...head, choices: [], usage: { prompt_tokens: UPSTREAM_USAGE.input, completion_tokens: UPSTREAM_USAGE.output, total_tokens: UPSTREAM_USAGE.input + UPSTREAM_USAGE.output } })}\n\n`,
    );
  }
  end.push('data: [DONE]\n\n');
  return { body, end };
}

// ---------------------------------------------------------------- Anthropic

const TOOL_USE_ID = 'toolu_guard_1';

function anthropicJson(r: GuardReply, model: string) {
  const content: unknown[] = [];
  const text = (r.text ?? []).join('');
  if (text.length > 0) content.push({ type: 'text', text });
  if (r.tool)
    content.push({ type: 'tool_use', id: TOOL_USE_ID, name: r.tool.name, input: JSON.parse(r.tool.args.join('')) });
  return {
    id: 'msg_guard_1',
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: r.tool ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: UPSTREAM_USAGE.input, output_tokens: UPSTREAM_USAGE.output },
  };
}

function anthropicSse(r: GuardReply, model: string): { body: string[]; end: string[] } {
  const ev = (data: { type: string } & Record<string, unknown>) =>
    `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const body = [
    ev({
      type: 'message_start',
      message: {
        id: 'msg_guard_1',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: UPSTREAM_USAGE.input, output_tokens: 1 },
      },
    }),
  ];
  const end: string[] = [];
  let index = 0;
  // The last open block's stop belongs to the end (a hanging stream leaves it open).
  const blocks: Array<{ start: string; deltas: string[]; stop: string }> = [];
  if ((r.text ?? []).length > 0) {
    blocks.push({
      start: ev({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }),
      deltas: r.text!.map((t) => ev({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } })),
      stop: ev({ type: 'content_block_stop', index }),
    });
    index++;
  }
  if (r.tool) {
    blocks.push({
      start: ev({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: TOOL_USE_ID, name: r.tool.name, input: {} },
      }),
      deltas: r.tool.args.map((f) =>
        ev({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: f } }),
      ),
      stop: ev({ type: 'content_block_stop', index }),
    });
  }
  blocks.forEach((b, i) => {
    body.push(b.start, ...b.deltas);
    (i === blocks.length - 1 ? end : body).push(b.stop);
  });
  end.push(
    ev({
      type: 'message_delta',
      delta: { stop_reason: r.tool ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: UPSTREAM_USAGE.output },
    }),
  );
  end.push(ev({ type: 'message_stop' }));
  return { body, end };
}

// ---------------------------------------------------------------- webhook

export interface WebhookCall {
  guardrail: string;
  direction: string;
  text: string;
  parts: string[];
}

export interface WebhookAnswer {
  /** JSON body (default status 200). */
  body: unknown;
  status?: number;
  /** Answer this late (ms). */
  delayMs?: number;
}

export interface GuardWebhook {
  /** Base URL; the path names the scenario the test wants: `${url}/<anything>`. */
  url: string;
  calls: Array<WebhookCall & { path: string }>;
  /** Calls whose connection the gateway closed before the answer was sent. */
  readonly abandoned: number;
  /** How calls are answered from now on, by path. */
  setAnswer(fn: (call: WebhookCall, path: string) => WebhookAnswer): void;
  close(): Promise<void>;
}

export async function startGuardWebhook(): Promise<GuardWebhook> {
  const calls: Array<WebhookCall & { path: string }> = [];
  let answer: (call: WebhookCall, path: string) => WebhookAnswer = () => ({ body: { action: 'allow' } });
  const timers = new Set<NodeJS.Timeout>();
  let abandoned = 0;
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const call = JSON.parse(Buffer.concat(parts).toString('utf8')) as WebhookCall;
    const path = req.url ?? '';
    calls.push({ ...call, path });
    const a = answer(call, path);
    res.on('close', () => {
      if (!res.writableFinished) abandoned++;
    });
    const send = () => {
      if (res.destroyed) return;
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(a.body));
    };
    if (!a.delayMs) return send();
    const t = setTimeout(() => {
      timers.delete(t);
      send();
    }, a.delayMs);
    timers.add(t);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    get abandoned() {
      return abandoned;
    },
    setAnswer: (fn) => {
      answer = fn;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
