/**
 * Answering a request whose body the gateway chose not to read (no or unknown key, over the size
 * limit, unknown route). Closing at once would reset the connection under a client that is still
 * sending (Node's http client then reports EPIPE instead of the answer), and reading to the end
 * would let anyone keep a socket busy. So: the answer goes out with `Connection: close`, then the
 * rest of the body is read and dropped — never buffered — up to a bound in bytes and time, and
 * the connection closes.
 */

import { attachListeners } from './attach-listeners.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface DiscardBound {
  /** Body bytes read and dropped after the answer, at most. */
  bytes: number;
  /** How long the connection stays open for them, at most. */
  ms: number;
}

/**
 * A request refused for who sent it or where (no or unknown key, unknown route) or for a stalled
 * upload: little, but enough for an ordinary request body to finish arriving.
 */
export const REFUSED_DISCARD: DiscardBound = { bytes: 1024 * 1024, ms: 2000 };

/** An over-limit body: enough for a client that sends a few times the limit to read its 413. */
export function oversizedDiscard(limitBytes: number): DiscardBound {
  return { bytes: Math.max(16 * 1024 * 1024, 2 * limitBytes), ms: 5000 };
}

/**
 * Emitted on a request (with a GatewayError) when the HTTP parser refuses the rest of its body
 * while the body is being read (protocol-errors.ts): the reader answers in the caller's format.
 */
export const BODY_REFUSED = 'gateway:body-refused';

const unread = new WeakMap<IncomingMessage, DiscardBound>();
const continued = new WeakSet<IncomingMessage>();

/**
 * `Expect: 100-continue`: the client sends its body only once told to, which the gateway does
 * when it starts reading it (after authentication), so a refused client never sends it at all.
 */
export function sendContinue(res: ServerResponse): void {
  if (!expectsContinue(res.req) || continued.has(res.req) || res.headersSent) return;
  continued.add(res.req);
  res.writeContinue();
}

function expectsContinue(req: IncomingMessage): boolean {
  const expect = req.headers.expect;
  return typeof expect === 'string' && expect.toLowerCase() === '100-continue';
}

/** Marks the request's body as not going to be read (when some of it is still to come). */
export function leaveBodyUnread(req: IncomingMessage, bound: DiscardBound): void {
  if (!req.complete && hasBody(req)) unread.set(req, bound);
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** How the answer to this request must end: undefined when its body was read (or fully arrived). */
export function unreadBodyBound(req: IncomingMessage): DiscardBound | undefined {
  const bound = unread.get(req);
  return bound !== undefined && !req.complete ? bound : undefined;
}

/**
 * Writes the last of the answer (headers already written, with Connection: close), drops the
 * rest of the body within `bound`, then ends the response, which closes the connection. Beyond
 * the bound the socket is destroyed.
 */
export function endDiscardingBody(res: ServerResponse, payload: Buffer | string, bound: DiscardBound): void {
  const req = res.req;
  // Nothing more is coming: the client is gone, or waits for a 100 Continue it will never get.
  if (req.destroyed || (expectsContinue(req) && !continued.has(req))) {
    res.end(payload);
    return;
  }
  // The client has the whole answer now (Content-Length), whatever happens to the socket later.
  res.write(payload);
  let seen = 0;
  const onEnd = () => {
    cleanup();
    res.end();
  };
  const onCut = () => {
    cleanup();
    res.end();
    res.socket?.destroy();
  };
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > bound.bytes) onCut();
  };
  const cleanup = attachListeners(
    req,
    { data: onData, end: onEnd, error: onCut, close: onCut },
    { ms: bound.ms, run: onCut, unref: true },
  );
  req.resume();
}
