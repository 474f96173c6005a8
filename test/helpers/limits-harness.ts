/**
 * Shared pieces of the budget and rate-limit tests: the fake upstream's setup, the keys the
 * scopes name, exact reservation and cost arithmetic (the same
 * documented rules, written out independently of src/budget), HTTP helpers that can read
 * trailers or cut a stream, and guards against minute-window boundaries.
 */

import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

import type { FakeUpstreamOptions } from './fake-upstream.js';
import { LIMIT_KEYS, LIMITS_ANT_SECRET, LIMITS_OAI_SECRET, PRICE } from './gateway-config.js';

/** The priced models' config is pricedGateway (gateway-config.ts); its keys and prices: */
export { PRICE };
export const KEYS = LIMIT_KEYS;
export type KeyName = keyof typeof KEYS;
export const OAI_SECRET = LIMITS_OAI_SECRET;
export const ANT_SECRET = LIMITS_ANT_SECRET;
/** USD per million tokens → nano-USD per token is ×1000. */
export const NANO = { input: 1000, output: 2000, cacheRead: 500, cacheWrite: 1250 };

/** The usage every answer reports until a test sets up.usage, in each format's own terms. */
export const DEFAULT_USAGE = {
  openai: { prompt: 12, cached: 0, completion: 5 },
  anthropic: { input: 12, cacheRead: 0, cacheWrite: 0, output: 5 },
};

/** The fake upstream of the limits tests: `ok` in two pieces, with exact usage (costs are exact). */
export const PRICED: FakeUpstreamOptions = { answer: () => ({ text: ['o', 'k'] }), usage: DEFAULT_USAGE };

export type Endpoint = 'openai' | 'anthropic';

export const PATH: Record<Endpoint, string> = { openai: '/v1/chat/completions', anthropic: '/v1/messages' };

export function headersFor(ep: Endpoint, key: KeyName): Record<string, string> {
  return ep === 'openai'
    ? { authorization: `Bearer ${KEYS[key]}`, 'content-type': 'application/json' }
    : { 'x-api-key': KEYS[key], 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
}

/** A request body; the same text for both endpoints (both carry max_tokens). */
export function bodyFor(model: string, o: { maxTokens?: number; stream?: boolean; content?: string } = {}): string {
  const b: Record<string, unknown> = {
    model,
    max_tokens: o.maxTokens ?? 10,
    messages: [{ role: 'user', content: o.content ?? 'hello' }],
  };
  if (o.stream) b.stream = true;
  return JSON.stringify(b);
}

/** What a request reserves (plan.ts): ceil(bytes / 3) input tokens plus max_tokens output. */
export function reservation(body: string, maxTokens: number): { nano: number; tokens: number } {
  const input = Math.ceil(Buffer.byteLength(body) / 3);
  return { nano: input * NANO.input + maxTokens * NANO.output, tokens: input + maxTokens };
}

/** Cost of OpenAI-reported usage (prompt includes cached). */
export function openaiCostNano(u: { prompt: number; cached: number; completion: number }): number {
  return (u.prompt - u.cached) * NANO.input + u.cached * NANO.cacheRead + u.completion * NANO.output;
}

/** Cost of Anthropic-reported usage (input excludes the cache counters). */
export function anthropicCostNano(u: { input: number; cacheRead: number; cacheWrite: number; output: number }): number {
  return u.input * NANO.input + u.cacheRead * NANO.cacheRead + u.cacheWrite * NANO.cacheWrite + u.output * NANO.output;
}

/** `limit_usd` for a limit of exactly `nano` nano-USD. */
export function usd(nano: number): string {
  return String(nano / 1e9);
}

export function send(base: string, ep: Endpoint, key: KeyName, body: string): Promise<Response> {
  return fetch(base + PATH[ep], { method: 'POST', headers: headersFor(ep, key), body });
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  trailers: NodeJS.Dict<string>;
}

/** A POST over node:http, read to the end, with the HTTP trailers (which fetch does not expose). */
export function rawPost(url: string, headers: Record<string, string>, body: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(parts).toString('utf8'),
            trailers: res.trailers,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Starts a streaming POST, waits until the body received so far contains `marker`, then
 * destroys the connection (the client going away mid-stream). Resolves with what was received.
 */
export function cutStreamAfter(
  url: string,
  headers: Record<string, string>,
  body: string,
  marker: string,
): Promise<{ status: number; received: string }> {
  return new Promise((resolve, reject) => {
    let received = '';
    const req = httpRequest(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        res.on('data', (c: Buffer) => {
          received += c.toString('utf8');
          if (received.includes(marker)) {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, received });
          }
        });
        res.on('end', () => reject(new Error(`stream ended before "${marker}" was seen: ${received}`)));
        res.on('error', () => undefined);
      },
    );
    req.on('error', () => undefined);
    req.end(body);
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns true (bounded); throws with `what` when it never does. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`timed out waiting for: ${what}`);
    await sleep(10);
  }
}

const MINUTE = 60_000;

/** Waits for the next minute (plus 1 s) when fewer than `marginMs` are left in this one. */
export async function awayFromMinuteEdge(marginMs = 5_000): Promise<void> {
  const into = Date.now() % MINUTE;
  if (MINUTE - into < marginMs) await sleep(MINUTE - into + 1_000);
}

/**
 * Runs `fn` inside one fixed minute window: first moves away from the window's edge, and if the
 * minute still changed while `fn` ran (a slow machine), runs it once more at the start of the
 * next window (fresh counters: the new window may already hold some of the first run's
 * requests). `fn` must set up everything it depends on (e.g. clear the upstream's call list).
 * Give such tests a timeout above 70 s.
 */
export async function withinOneMinute<T>(fn: () => Promise<T>): Promise<T> {
  await awayFromMinuteEdge();
  const minute = Math.floor(Date.now() / MINUTE);
  const first = await fn();
  if (Math.floor(Date.now() / MINUTE) === minute) return first;
  await sleep(MINUTE - (Date.now() % MINUTE) + 1_000);
  return fn();
}

/** The epoch ms at which the current minute window ends. */
export function minuteEnd(now = Date.now()): number {
  return Math.floor(now / MINUTE) * MINUTE + MINUTE;
}

/** Error body fields in either format. */
export function errorOf(ep: Endpoint, body: any): { type: string; code?: string; message: string } {
  if (ep === 'openai') return { type: body.error.type, code: body.error.code, message: body.error.message };
  expect_(body.type === 'error', `Anthropic error body has type "error": ${JSON.stringify(body)}`);
  return { type: body.error.type, message: body.error.message };
}

function expect_(cond: boolean, msg: string): void {
  if (!cond) throw new Error(msg);
}

/** The `request` log lines the gateway wrote (one per request it handled). */
export function requestLogs(logs: string[]): any[] {
  return logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' || l.message === 'request');
}
