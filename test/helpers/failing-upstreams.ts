/**
 * Several programmable upstreams for routing tests, one per provider, so the order of attempts
 * across providers is visible. Each answers in the wire format of the path it is called on
 * (`/v1/chat/completions`: OpenAI, `/v1/messages`: Anthropic), successes saying "served by <name>",
 * and fails as scripted: an HTTP error status (with headers), a connection reset before or after
 * the first events, a hang before headers, a stall after the first events, or a held reply.
 * Every call is recorded with its arrival time, in the upstream and in one shared sequence.
 */

import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { openaiCompletion, openaiSseChunks } from './mock-upstream.js';

export type Step =
  /** A normal answer (JSON or stream, as asked). */
  | { kind: 'ok'; text?: string }
  /** An HTTP error in the path's format. */
  | { kind: 'status'; status: number; headers?: Record<string, string>; message?: string | ((call: Call) => string) }
  /** Destroys the socket before any response byte. */
  | { kind: 'reset' }
  /** Never answers (until closed). */
  | { kind: 'hang' }
  /**
   * 200 and the first `events` events of a stream (0: only a keep-alive comment), then the socket
   * is destroyed (non-stream requests get half a JSON body instead).
   */
  | { kind: 'drop'; events: number }
  /** Like drop, but the connection then stays open and silent (until closed). */
  | { kind: 'stall'; events: number }
  /** 200 with an event stream whose first event is an error in the path's format. */
  | { kind: 'stream_error'; message: string | ((call: Call) => string) }
  /** Waits for `until`, then answers with `then`. */
  | { kind: 'hold'; until: Promise<unknown>; then: Step };

/** Shorthands: a number is an HTTP error with that status. */
export type StepLike = Step | number;

export interface Call {
  upstream: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  /** performance.now() when the request body had arrived. */
  at: number;
}

export interface FakeUpstream {
  name: string;
  /** Origin, e.g. http://127.0.0.1:1234 (OpenAI providers add /v1). */
  url: string;
  calls: Call[];
  /** Steps for the next calls, in order; after them, `always` (default ok). */
  script(...steps: StepLike[]): void;
  always(step: StepLike): void;
}

export interface Fleet {
  up: Record<string, FakeUpstream>;
  /** Upstream names in call order, across the whole fleet. */
  sequence: string[];
  calls: Call[];
  close(): Promise<void>;
}

const toStep = (s: StepLike): Step => (typeof s === 'number' ? { kind: 'status', status: s } : s);

export async function startFleet(names: string[]): Promise<Fleet> {
  const sequence: string[] = [];
  const all: Call[] = [];
  const up: Record<string, FakeUpstream> = {};
  const servers: Array<{ server: Server; sockets: Set<Socket> }> = [];
  for (const name of names) {
    const calls: Call[] = [];
    let queue: Step[] = [];
    let fallback: Step = { kind: 'ok' };
    const sockets = new Set<Socket>();
    const server = createServer(async (req, res) => {
      const parts: Buffer[] = [];
      for await (const c of req) parts.push(c as Buffer);
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        body = undefined;
      }
      const call: Call = { upstream: name, path: req.url ?? '', headers: req.headers, body, at: performance.now() };
      calls.push(call);
      all.push(call);
      sequence.push(name);
      const step = queue.shift() ?? fallback;
      await answer(res, step, call, name);
    });
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    servers.push({ server, sockets });
    up[name] = {
      name,
      url: `http://127.0.0.1:${port}`,
      calls,
      script: (...steps) => {
        queue = steps.map(toStep);
      },
      always: (s) => {
        fallback = toStep(s);
      },
    };
  }
  return {
    up,
    sequence,
    calls: all,
    close: async () => {
      await Promise.all(
        servers.map(
          ({ server, sockets }) =>
            new Promise<void>((r) => {
              for (const s of sockets) s.destroy();
              server.closeAllConnections();
              server.close(() => r());
            }),
        ),
      );
    },
  };
}

/** A base URL on 127.0.0.1 where nothing listens (connection refused). */
export async function closedPortUrl(): Promise<string> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

const isAnthropic = (call: Call) => call.path.split('?')[0].endsWith('/v1/messages');

async function answer(res: ServerResponse, step: Step, call: Call, name: string): Promise<void> {
  const anthropic = isAnthropic(call);
  const stream = call.body?.stream === true;
  const model = typeof call.body?.model === 'string' ? call.body.model : 'unknown';
  switch (step.kind) {
    case 'hold':
      await step.until;
      return answer(res, step.then, call, name);
    case 'ok': {
      const text = step.text ?? `served by ${name}`;
      if (stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunks = anthropic
          ? anthropicSseEvents(text, model)
          : openaiSseChunks(text, { model, includeUsage: call.body?.stream_options?.include_usage === true });
        res.end(chunks.join(''));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(anthropic ? anthropicMessage(text, model) : openaiCompletion(text, model)));
      }
      return;
    }
    case 'status': {
      const message =
        typeof step.message === 'function'
          ? step.message(call)
          : (step.message ?? `scripted ${step.status} from ${name}`);
      const body = anthropic
        ? { type: 'error', error: { type: anthropicErrorType(step.status), message } }
        : {
            error: {
              message,
              type: step.status >= 500 ? 'server_error' : 'invalid_request_error',
              param: null,
              code: null,
            },
          };
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      res.end(JSON.stringify(body));
      return;
    }
    case 'reset':
      res.socket?.destroy();
      return;
    case 'hang':
      return;
    case 'drop':
    case 'stall': {
      if (stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const events = anthropic
          ? anthropicSseEvents(`served by ${name} but cut`, model)
          : openaiSseChunks(`served by ${name} but cut`, { model });
        res.write(step.events === 0 ? ': keep-alive\n\n' : events.slice(0, step.events).join(''));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id": "half-a-body", "choi');
      }
      if (step.kind === 'drop') {
        await new Promise((r) => setTimeout(r, 20));
        res.socket?.destroy();
      }
      return;
    }
    case 'stream_error': {
      const message = typeof step.message === 'function' ? step.message(call) : step.message;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        anthropic
          ? `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message } })}\n\n`
          : `data: ${JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } })}\n\n`,
      );
      return;
    }
  }
}

function anthropicErrorType(status: number): string {
  const t: Record<number, string> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    403: 'permission_error',
    404: 'not_found_error',
    429: 'rate_limit_error',
    529: 'overloaded_error',
  };
  return t[status] ?? 'api_error';
}

export function anthropicMessage(text: string, model: string) {
  return {
    id: 'msg_fleet_1',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 3 },
  };
}

export function anthropicSseEvents(text: string, model: string): string[] {
  const ev = (data: { type: string } & Record<string, unknown>) =>
    `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const words = text.match(/\S+\s*/g) ?? [text];
  return [
    ev({
      type: 'message_start',
      message: {
        id: 'msg_fleet_1',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    }),
    ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ...words.map((w) => ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: w } })),
    ev({ type: 'content_block_stop', index: 0 }),
    ev({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: words.length },
    }),
    ev({ type: 'message_stop' }),
  ];
}

// ---------------------------------------------------------------- gateway config

export const GW_KEY = 'gw-routing-test-key-0001';

export interface ProviderSpec {
  id: string;
  /** Origin of its upstream (or a closed port). */
  url: string;
  api?: 'openai' | 'anthropic';
  /** The configured key; null for none. Default `sk-<id>-configured-secret-0001`. */
  apiKey?: string | null;
  byok?: 'never' | 'optional' | 'required';
  /** Inline YAML, e.g. `{ first_byte_ms: 300 }`. */
  timeouts?: string;
  /** Inline YAML timeouts for its model `m`. */
  modelTimeouts?: string;
  cooldown?: string;
  /** Model names (default ['m']). */
  models?: string[];
}

export const configuredKey = (id: string) => `sk-${id}-configured-secret-0001`;

/**
 * A gateway config: the given providers (each with its models), the routing section (inline YAML
 * body, e.g. `max_attempts: 3, retry: { max_retries: 0 }`), the aliases (YAML lines under
 * `aliases:`), one role that may use everything and one key (GW_KEY).
 */
export function fleetConfigYaml(o: { routing?: string; providers: ProviderSpec[]; aliases?: string }): string {
  const providers = o.providers
    .map((p) => {
      const api = p.api ?? 'openai';
      const key = p.apiKey === undefined ? configuredKey(p.id) : p.apiKey;
      const models = (p.models ?? ['m'])
        .map(
          (m) =>
            `      ${m}: { context_window: 100000${p.modelTimeouts && m === 'm' ? `, timeouts: ${p.modelTimeouts}` : ''} }`,
        )
        .join('\n');
      return [
        `  ${p.id}:`,
        `    api: ${api}`,
        `    base_url: ${api === 'openai' ? `${p.url}/v1` : p.url}`,
        ...(key !== null ? [`    api_key: ${key}`] : []),
        ...(p.byok ? [`    byok: ${p.byok}`] : []),
        `    timeouts: ${p.timeouts ?? '{ connect_ms: 2000, first_byte_ms: 10000, total_ms: 20000 }'}`,
        ...(p.cooldown ? [`    cooldown: ${p.cooldown}`] : []),
        `    models:`,
        models,
      ].join('\n');
    })
    .join('\n');
  return `
server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 1000 }
routing: { ${o.routing ?? ''} }
providers:
${providers}
aliases:
${o.aliases ?? '  {}'}
roles:
  all: { models: ["*"] }
keys:
  - { id: tester, key: ${GW_KEY}, role: all }
`;
}
