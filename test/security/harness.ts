/**
 * A gateway with one OpenAI-format and one Anthropic-format provider on the same programmable
 * upstream (test/helpers/mock-upstream.ts), so every endpoint × provider pair (pass-through and
 * translated) can be driven with raw upstream bytes: cut streams, malformed events, echoed keys.
 */

import { request } from 'node:http';
import { startMockUpstream, type MockHandler, type MockUpstream } from '../helpers/mock-upstream.js';
import { loadTestConfig, startGateway, type RunningGateway } from '../helpers/start-gateway.js';

export const GW_KEY = 'sec-gateway-key-0001';
export const OAI_KEY = 'team-openai-key-01';
export const ANT_KEY = 'team-anthropic-key-01';

export type Endpoint = 'openai' | 'anthropic';
export const ENDPOINTS: Endpoint[] = ['openai', 'anthropic'];
export const PROVIDERS = ['oa', 'an'] as const;
export type Provider = (typeof PROVIDERS)[number];
/** The four caller × provider pairs: two pass-through, two translated. */
export const PAIRS: Array<[Endpoint, Provider]> = [
  ['openai', 'oa'],
  ['openai', 'an'],
  ['anthropic', 'oa'],
  ['anthropic', 'an'],
];

export function securityConfigYaml(upstreamUrl: string, extra = '', failures = 3): string {
  return `
server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 1000 }
routing: { retry: { max_retries: 0 }, cooldown: { failures: ${failures}, window_ms: 30000, cooldown_ms: 30000 } }
providers:
  oa:
    api: openai
    base_url: ${upstreamUrl}/v1
    api_key: ${OAI_KEY}
    byok: optional
    models:
      m: { context_window: 128000, max_output_tokens: 4096, upstream_name: gpt-4o-mini, price: { input: 1, output: 2 } }
  an:
    api: anthropic
    base_url: ${upstreamUrl}
    api_key: ${ANT_KEY}
    byok: optional
    models:
      m: { context_window: 200000, max_output_tokens: 4096, upstream_name: claude-test, price: { input: 1, output: 2 } }
roles:
  dev: { models: ["*"] }
keys:
  - { id: dev, key: ${GW_KEY}, role: dev }
${extra}`;
}

export interface SecurityRig {
  gw: RunningGateway;
  up: MockUpstream;
  close(): Promise<void>;
}

/** `failures`: provider failures that open a model's circuit (high where tests fail streams on purpose). */
export async function startRig(
  handler: MockHandler,
  o: { extra?: string; failures?: number } = {},
): Promise<SecurityRig> {
  const up = await startMockUpstream(handler);
  const gw = await startGateway(loadTestConfig(securityConfigYaml(up.url, o.extra, o.failures)));
  return {
    gw,
    up,
    close: async () => {
      await gw.close();
      await up.close();
    },
  };
}

export function pathOf(ep: Endpoint): string {
  return ep === 'openai' ? '/v1/chat/completions' : '/v1/messages';
}

export function headersFor(ep: Endpoint, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    authorization: `Bearer ${GW_KEY}`,
    ...(ep === 'anthropic' ? { 'anthropic-version': '2023-06-01' } : {}),
    ...extra,
  };
}

export function bodyFor(_ep: Endpoint, provider: Provider, o: { stream?: boolean; text?: string } = {}): string {
  return JSON.stringify({
    model: `${provider}/m`,
    max_tokens: 200,
    ...(o.stream ? { stream: true } : {}),
    messages: [{ role: 'user', content: o.text ?? 'hello' }],
  });
}

export function post(base: string, ep: Endpoint, body: string, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(base + pathOf(ep), { method: 'POST', headers: headersFor(ep, extra), body });
}

/**
 * Starts a streaming request over a raw socket, reads until `marker` has arrived (or the first
 * bytes when no marker), then destroys the connection: a user pressing Esc mid-stream.
 */
export function abandonStream(
  base: string,
  ep: Endpoint,
  body: string,
  marker?: string,
  correlationId?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = new URL(base + pathOf(ep));
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: headersFor(ep, correlationId ? { 'x-correlation-id': correlationId } : {}),
        agent: false,
      },
      (res) => {
        let got = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          got += c;
          if (!marker || got.includes(marker)) {
            req.destroy();
            resolve(got);
          }
        });
        res.on('end', () => reject(new Error(`stream ended before the marker ${marker}: ${got.slice(0, 300)}`)));
      },
    );
    req.on('error', (e) => {
      if (!req.destroyed) reject(e);
    });
    req.end(body);
  });
}

/** Sends a request and destroys the connection after `ms`, before any response. */
export function abandonBeforeResponse(
  base: string,
  ep: Endpoint,
  body: string,
  ms: number,
  correlationId?: string,
): Promise<void> {
  return new Promise((resolve) => {
    const url = new URL(base + pathOf(ep));
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: headersFor(ep, correlationId ? { 'x-correlation-id': correlationId } : {}),
      agent: false,
    });
    req.on('error', () => undefined);
    req.end(body);
    setTimeout(() => {
      req.destroy();
      resolve();
    }, ms);
  });
}

export function requestLines(logs: string[]): any[] {
  return logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
}

export async function eventually<T>(get: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Upstream stream bodies in each format, word by word. */
export function openaiStream(words: string[], o: { usage?: boolean; done?: boolean; finish?: boolean } = {}): string[] {
  const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o-mini' };
  const out = [
    `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })}\n\n`,
  ];
  for (const w of words)
    out.push(
      `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta: { content: w }, finish_reason: null }] })}\n\n`,
    );
  if (o.finish !== false)
    out.push(`data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
  if (o.usage !== false && o.finish !== false) {
    out.push(
      `data: ${JSON.stringify({ ...head, choices: [], usage: { prompt_tokens: 10, completion_tokens: words.length, total_tokens: 10 + words.length } })}\n\n`,
    );
  }
  if (o.done !== false) out.push('data: [DONE]\n\n');
  return out;
}

export function anthropicStream(words: string[], o: { stop?: boolean } = {}): string[] {
  const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const out = [
    ev('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    }),
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  ];
  for (const w of words) out.push(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: w } }));
  if (o.stop !== false) {
    out.push(ev('content_block_stop', { index: 0 }));
    out.push(
      ev('message_delta', {
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: words.length },
      }),
    );
    out.push(ev('message_stop', {}));
  }
  return out;
}

/** A handler answering each upstream path with a stream in its format. */
export function streamingHandler(o: { words: string[]; delayMs?: number }): MockHandler {
  return (req) => {
    if (req.path.endsWith('/chat/completions'))
      return { kind: 'sse', chunks: openaiStream(o.words), delayMs: o.delayMs };
    return { kind: 'sse', chunks: anthropicStream(o.words), delayMs: o.delayMs };
  };
}

/** A complete non-stream reply in the upstream path's format. */
export function jsonReply(path: string, text: string) {
  if (path.endsWith('/chat/completions')) {
    return {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1700000000,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
    };
  }
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 2 },
  };
}
