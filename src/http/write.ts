/**
 * Writing responses. Every response already carries X-Correlation-ID (set when the request
 * arrived); these add the body. SSE writes respect backpressure.
 */

import type { ServerResponse } from 'node:http';
import { endDiscardingBody, unreadBodyBound } from './unread-body.js';

/**
 * `headers` is the response's own object (one per request, written once), taken over: the content
 * type and length are set on it rather than on a copy of every header.
 */
export function writeJson(
  res: ServerResponse,
  status: number,
  body: Buffer | string | object,
  headers: Record<string, string> = {},
): void {
  // Text is written as it is (node encodes it into the socket's buffer): no Buffer made of it first.
  const payload = Buffer.isBuffer(body) ? body : typeof body === 'string' ? body : JSON.stringify(body);
  // A request refused before its body was read: answer, drop the rest (bounded), close.
  const unread = unreadBodyBound(res.req);
  headers['content-type'] ??= 'application/json';
  headers['content-length'] = String(typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length);
  if (unread) headers.connection = 'close';
  res.writeHead(status, headers);
  if (unread) endDiscardingBody(res, payload, unread);
  else res.end(payload);
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

/** Resolves when the socket can take more, or when it has gone away. */
export function waitForDrain(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
