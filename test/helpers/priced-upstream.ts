/**
 * An upstream on 127.0.0.1 for budget and rate-limit tests: it plays both providers (OpenAI Chat
 * Completions on `/v1/chat/completions`, Anthropic Messages on `/v1/messages`) and reports the
 * usage the test sets, so costs are exact. Calls can be held (each waits until released), which
 * keeps reservations and in-flight slots taken for as long as a test needs; streams can stop
 * half-way and hang or reset. Every call is recorded when its body has arrived.
 */

import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** As OpenAI reports it: `prompt` INCLUDES `cached`. */
export interface OpenaiUsageSpec {
  prompt: number;
  cached: number;
  completion: number;
}

/** As Anthropic reports it: `input` EXCLUDES cache reads and writes. */
export interface AnthropicUsageSpec {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

export interface PricedCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export type PricedReply =
  /** A normal answer, JSON or stream as asked, with the upstream's current usage. */
  | { kind: 'ok' }
  /** An HTTP error in the path's format. */
  | { kind: 'status'; status: number }
  /** The socket is destroyed before any response byte. */
  | { kind: 'reset' }
  /** The first `events` events of the stream, then silence (`hang`) or a destroyed socket (`reset`). */
  | { kind: 'partial'; events: number; then: 'hang' | 'reset' };

export type PricedHandler = (call: PricedCall, n: number) => PricedReply | Promise<PricedReply>;

export interface PricedUpstream {
  url: string;
  calls: PricedCall[];
  usage: { openai: OpenaiUsageSpec; anthropic: AnthropicUsageSpec };
  /** How calls are answered from now on (default: ok). */
  setHandler(h: PricedHandler): void;
  /** Every call from now on waits, once recorded, until the function returned is called. */
  hold(): () => void;
  /** Resolves once at least `n` calls have arrived; rejects after `timeoutMs`. */
  waitForCalls(n: number, timeoutMs?: number): Promise<void>;
  /** Responses currently open (held, streaming or hanging). */
  readonly open: number;
  reset(): void;
  close(): Promise<void>;
}

export const DEFAULT_USAGE = {
  openai: { prompt: 12, cached: 0, completion: 5 },
  anthropic: { input: 12, cacheRead: 0, cacheWrite: 0, output: 5 },
};

const ok: PricedHandler = () => ({ kind: 'ok' });

export async function startPricedUpstream(): Promise<PricedUpstream> {
  const calls: PricedCall[] = [];
  let handler: PricedHandler = ok;
  let gate: Promise<void> | undefined;
  const usage = { openai: { ...DEFAULT_USAGE.openai }, anthropic: { ...DEFAULT_USAGE.anthropic } };
  const open = new Set<ServerResponse>();
  const sockets = new Set<Socket>();

  const server: Server = createServer(async (req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      body = undefined;
    }
    const call: PricedCall = { path: req.url ?? '', headers: req.headers, body };
    calls.push(call);
    const n = calls.length;
    if (gate) await gate;
    const reply = await handler(call, n);
    if (res.destroyed) return;
    const anthropic = call.path.startsWith('/v1/messages');
    switch (reply.kind) {
      case 'reset':
        res.socket?.destroy();
        return;
      case 'status': {
        const errBody = anthropic
          ? {
              type: 'error',
              error: {
                type: reply.status >= 500 ? 'api_error' : 'invalid_request_error',
                message: `scripted ${reply.status}`,
              },
            }
          : {
              error: {
                message: `scripted ${reply.status}`,
                type: reply.status >= 500 ? 'server_error' : 'invalid_request_error',
                param: null,
                code: null,
              },
            };
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(errBody));
        return;
      }
      case 'ok':
      case 'partial': {
        const stream = body?.stream === true;
        if (!stream) {
          if (reply.kind === 'partial') throw new Error('partial replies are for streams');
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(anthropic ? anthropicMessage(usage.anthropic) : openaiCompletion(usage.openai)));
          return;
        }
        const events = anthropic
          ? anthropicEvents(usage.anthropic)
          : openaiEvents(usage.openai, body?.stream_options?.include_usage === true);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (reply.kind === 'ok') {
          for (const e of events) res.write(e);
          res.end();
          return;
        }
        for (const e of events.slice(0, reply.events)) res.write(e);
        if (reply.then === 'reset') {
          await new Promise((r) => setTimeout(r, 20));
          res.socket?.destroy();
        }
        return; // hang: stays open until the gateway goes away or the server closes
      }
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    usage,
    setHandler(h) {
      handler = h;
    },
    hold() {
      let release!: () => void;
      gate = new Promise<void>((r) => (release = r));
      const mine = gate;
      return () => {
        if (gate === mine) gate = undefined;
        release();
      };
    },
    async waitForCalls(n, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (calls.length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} upstream calls, got ${calls.length}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    get open() {
      return open.size;
    },
    reset() {
      calls.length = 0;
      handler = ok;
      gate = undefined;
      Object.assign(usage.openai, DEFAULT_USAGE.openai);
      Object.assign(usage.anthropic, DEFAULT_USAGE.anthropic);
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

// ---------------------------------------------------------------- OpenAI

function openaiUsage(u: OpenaiUsageSpec) {
  return {
    prompt_tokens: u.prompt,
    completion_tokens: u.completion,
    total_tokens: u.prompt + u.completion,
    prompt_tokens_details: { cached_tokens: u.cached },
  };
}

function openaiCompletion(u: OpenaiUsageSpec) {
  return {
    id: 'chatcmpl-priced-1',
    object: 'chat.completion',
    created: 1700000000,
    model: 'm',
    choices: [
      { index: 0, message: { role: 'assistant', content: 'ok', refusal: null }, logprobs: null, finish_reason: 'stop' },
    ],
    usage: openaiUsage(u),
  };
}

/** Role chunk, two text chunks, finish chunk, the usage chunk (when asked), [DONE]. */
function openaiEvents(u: OpenaiUsageSpec, includeUsage: boolean): string[] {
  const head = { id: 'chatcmpl-priced-1', object: 'chat.completion.chunk', created: 1700000000, model: 'm' };
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  const out = [
    chunk({ role: 'assistant', content: '' }, null),
    chunk({ content: 'o' }, null),
    chunk({ content: 'k' }, null),
    chunk({}, 'stop'),
  ];
  if (includeUsage) out.push(`data: ${JSON.stringify({ ...head, choices: [], usage: openaiUsage(u) })}\n\n`);
  out.push('data: [DONE]\n\n');
  return out;
}

// ---------------------------------------------------------------- Anthropic

function anthropicUsage(u: AnthropicUsageSpec) {
  return {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cacheRead,
    output_tokens: u.output,
  };
}

function anthropicMessage(u: AnthropicUsageSpec) {
  return {
    id: 'msg_priced_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [{ type: 'text', text: 'ok' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: anthropicUsage(u),
  };
}

/**
 * message_start (input and cache counters, output_tokens 1), a text block in two deltas,
 * message_delta (the final output count), message_stop. Index 0 is message_start.
 */
function anthropicEvents(u: AnthropicUsageSpec): string[] {
  const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  return [
    ev('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_priced_1',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...anthropicUsage(u), output_tokens: 1 },
      },
    }),
    ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'o' } }),
    ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'k' } }),
    ev('content_block_stop', { type: 'content_block_stop', index: 0 }),
    ev('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: u.output },
    }),
    ev('message_stop', { type: 'message_stop' }),
  ];
}
