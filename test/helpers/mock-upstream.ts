/**
 * A real HTTP server on 127.0.0.1 that speaks the providers' wire formats, records every request
 * it receives, and answers each call as the test programs it (json | sse | error | hang | drop).
 */

import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any;
}

export type MockReply =
  | { kind: 'json'; status?: number; body: unknown; headers?: Record<string, string> }
  /** Each string is written as its own TCP write; `delayMs` between writes. */
  | { kind: 'sse'; chunks: string[]; delayMs?: number; headers?: Record<string, string> }
  | { kind: 'raw'; status: number; body: string; headers?: Record<string, string> }
  | { kind: 'hang' }
  /** Sends the chunks, then destroys the socket. */
  | { kind: 'drop'; chunks: string[] };

export type MockHandler = (req: ReceivedRequest, callNumber: number) => MockReply | Promise<MockReply>;

export interface MockUpstream {
  url: string;
  received: ReceivedRequest[];
  setHandler(h: MockHandler): void;
  close(): Promise<void>;
}

export async function startMockUpstream(handler: MockHandler = openaiEcho): Promise<MockUpstream> {
  let current = handler;
  const received: ReceivedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      body = undefined;
    }
    const rec: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody, body };
    received.push(rec);
    const reply = await current(rec, received.length);
    await send(res, reply, hanging);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    setHandler: (h) => {
      current = h;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function send(res: ServerResponse, reply: MockReply, hanging: Set<ServerResponse>): Promise<void> {
  switch (reply.kind) {
    case 'json':
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
      return;
    case 'raw':
      res.writeHead(reply.status, reply.headers);
      res.end(reply.body);
      return;
    case 'sse':
      res.writeHead(200, { 'content-type': 'text/event-stream', ...reply.headers });
      for (const c of reply.chunks) {
        res.write(c);
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      }
      res.end();
      return;
    case 'drop':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const c of reply.chunks) res.write(c);
      await new Promise((r) => setTimeout(r, 20));
      res.destroy();
      return;
    case 'hang':
      hanging.add(res);
      return;
  }
}

/** OpenAI chat-completion chunks as `data:` lines, with the usage chunk when asked. */
export function openaiSseChunks(
  text: string,
  opts: { model?: string; includeUsage?: boolean; pieces?: number } = {},
): string[] {
  const model = opts.model ?? 'gpt-test';
  const head = { id: 'chatcmpl-up-1', object: 'chat.completion.chunk', created: 1700000000, model };
  const words = text.match(/\S+\s*/g) ?? [text];
  const out: string[] = [];
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(opts.includeUsage ? { usage: null } : {}) })}\n\n`;
  out.push(chunk({ role: 'assistant', content: '' }, null));
  for (const w of words) out.push(chunk({ content: w }, null));
  out.push(chunk({}, 'stop'));
  if (opts.includeUsage) {
    out.push(
      `data: ${JSON.stringify({ ...head, choices: [], usage: { prompt_tokens: 11, completion_tokens: words.length, total_tokens: 11 + words.length, prompt_tokens_details: { cached_tokens: 3 } } })}\n\n`,
    );
  }
  out.push('data: [DONE]\n\n');
  return out;
}

export function openaiCompletion(text: string, model = 'gpt-test') {
  return {
    id: 'chatcmpl-up-1',
    object: 'chat.completion',
    created: 1700000000,
    model,
    choices: [
      { index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' },
    ],
    usage: { prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 },
    system_fingerprint: 'fp_test',
  };
}

/** Default: answers like OpenAI, echoing the last user message. */
export const openaiEcho: MockHandler = (req) => {
  const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const last = [...msgs].reverse().find((m) => m.role === 'user');
  const text = typeof last?.content === 'string' ? `you said: ${last.content}` : 'hello';
  if (req.body?.stream) {
    return {
      kind: 'sse',
      chunks: openaiSseChunks(text, {
        model: req.body.model,
        includeUsage: req.body.stream_options?.include_usage === true,
      }),
    };
  }
  return { kind: 'json', body: openaiCompletion(text, req.body?.model) };
};
