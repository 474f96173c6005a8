/**
 * For the guardrail tests: the fake upstream's setup (GUARD: answers `ok`, streams with a short
 * pause between events so a test decides exactly where a secret is split, fixed usage and token
 * count), and a guardrail webhook whose verdict each test scripts (optionally late, to test
 * timeouts); it records every call.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeUpstreamOptions } from './fake-upstream.js';

export const UPSTREAM_USAGE = { input: 21, output: 9 };
/** What POST /v1/messages/count_tokens answers. */
export const COUNTED_TOKENS = 42;

export const GUARD: FakeUpstreamOptions = {
  answer: () => ({ text: ['ok'] }),
  usage: {
    openai: { prompt: UPSTREAM_USAGE.input, cached: 0, completion: UPSTREAM_USAGE.output },
    anthropic: { input: UPSTREAM_USAGE.input, cacheRead: 0, cacheWrite: 0, output: UPSTREAM_USAGE.output },
  },
  countTokens: () => COUNTED_TOKENS,
  streamDelayMs: 3,
};

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
