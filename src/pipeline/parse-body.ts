import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../core/errors.js';
import { parseJsonStrictMembers } from '../core/parse-json-strict.js';
import { turnBatch } from '../core/turn-batch.js';
import { decodeEmbeddingsRequest } from '../formats/openai-embeddings/request-decode.js';
import type { Stage } from './compose.js';
import type { RequestContext } from '../request/context.js';
import { BODY_REFUSED, leaveBodyUnread, oversizedDiscard, REFUSED_DISCARD, sendContinue } from '../http/unread-body.js';

/** Size limit, JSON.parse once, then the canonical view in the caller's format. */
export const parseBody: Stage = parsed((ctx) => {
  ctx.chat = ctx.format.decodeRequest(ctx.body);
});

/** The same for token counting, where the request has no `max_tokens`. */
export const parseCountBody: Stage = parsed((ctx) => {
  ctx.chat = ctx.format.decodeRequest(ctx.body, { forCounting: true });
});

/** The same for an embeddings request (the OpenAI embeddings format: formats/openai-embeddings/). */
export const parseEmbeddingsBody: Stage = parsed((ctx) => {
  ctx.embeddings = decodeEmbeddingsRequest(ctx.body);
});

/**
 * The stage: read, then parse and decode with the other bodies that arrived in the same turn
 * (core/turn-batch.ts: done back to back, at concurrency 32 a request's parse and decode took
 * 16 µs instead of 23, the Responses caller's 19 instead of 31), then next. Plain functions over
 * the read's promise: an async frame and two awaits per request cost more than the stage's own
 * bookkeeping.
 */
function parsed(decode: (ctx: RequestContext) => void): Stage {
  return (ctx, next) =>
    readBody(ctx)
      .then((raw) => parseInBatch(ctx, raw, decode))
      .then(next);
}

interface PendingParse {
  ctx: RequestContext;
  raw: Buffer;
  decode: (ctx: RequestContext) => void;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const parses = turnBatch<PendingParse>((p) => {
  try {
    setJson(p.ctx, p.raw);
    p.decode(p.ctx);
    p.resolve();
  } catch (err) {
    p.reject(err);
  }
});

function parseInBatch(ctx: RequestContext, raw: Buffer, decode: (ctx: RequestContext) => void): Promise<void> {
  return new Promise((resolve, reject) => parses.add({ ctx, raw, decode, resolve, reject }));
}

function setJson(ctx: RequestContext, raw: Buffer): void {
  ctx.rawBody = raw;
  // Duplicate keys and too deep a nesting are refused before parsing.
  const { value, members } = parseJsonStrictMembers(raw);
  ctx.body = value;
  ctx.rawMembers = members;
}

/**
 * The whole body, bounded by the limit and by `server.body_read_timeout_ms`. A body over the limit
 * is not read further (the 413 goes out while the rest is dropped, see http/unread-body.ts); a
 * client that leaves mid-upload is a caller event (499), not a failure.
 */
function readBody(ctx: RequestContext): Promise<Buffer> {
  const { req, res } = ctx;
  const limit = ctx.config.server.bodyLimitBytes;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(req, limit));
  sendContinue(res);
  return new Promise((resolve, reject) => {
    const reader = new BodyReader(ctx, resolve, reject);
    // Gone before its body was read at all: no 'close' is coming any more.
    if (req.destroyed && !req.complete) reader.cut();
  });
}

function tooLarge(req: IncomingMessage, limit: number): GatewayError {
  leaveBodyUnread(req, oversizedDiscard(limit));
  return new GatewayError('body_too_large', `The request body exceeds the limit of ${limit} bytes.`);
}

/**
 * One body being read. Its listeners are the same five functions for every request, finding their
 * reader on the request itself: a request allocates this object, not a closure per event and a
 * listener table (an async iterator over the request would cost more still).
 */
class BodyReader {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly ctx: RequestContext,
    private readonly resolve: (body: Buffer) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    const req = ctx.req as ReadingRequest;
    req[READER] = this;
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onCut);
    req.on('close', onClose);
    req.on(BODY_REFUSED, onRefused);
    this.timer = setTimeout(onTimeout, ctx.config.server.bodyReadTimeoutMs, this);
  }

  private detach(): void {
    const req = this.ctx.req as ReadingRequest;
    clearTimeout(this.timer);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onCut);
    req.off('close', onClose);
    req.off(BODY_REFUSED, onRefused);
    req[READER] = undefined;
  }

  data(chunk: Buffer): void {
    const limit = this.ctx.config.server.bodyLimitBytes;
    this.size += chunk.length;
    if (this.size > limit) {
      this.detach();
      this.ctx.req.pause();
      this.reject(tooLarge(this.ctx.req, limit));
      return;
    }
    this.chunks.push(chunk);
  }

  end(): void {
    this.detach();
    this.resolve(this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size));
  }

  cut(): void {
    this.detach();
    // Always this error, whichever of the request's or the response's 'close' came first (the
    // response's aborts the signal with a plain Error, which would render as a 500).
    const gone = new GatewayError('client_disconnected', 'The client closed the connection during the upload.');
    this.ctx.signal.abort(gone);
    this.reject(gone);
  }

  /** The HTTP parser refused the rest of the body (bad chunked framing): answered in the caller format, not reused. */
  refused(err: GatewayError): void {
    this.detach();
    this.ctx.responseHeaders.connection = 'close';
    this.reject(err);
  }

  timedOut(): void {
    this.detach();
    const req = this.ctx.req;
    req.pause();
    leaveBodyUnread(req, REFUSED_DISCARD);
    const ms = this.ctx.config.server.bodyReadTimeoutMs;
    this.reject(new GatewayError('request_timeout', `The request body did not arrive within ${ms} ms.`));
  }
}

const READER = Symbol('gateway.bodyReader');
type ReadingRequest = IncomingMessage & { [READER]?: BodyReader };

function onData(this: ReadingRequest, chunk: Buffer): void {
  this[READER]?.data(chunk);
}
function onEnd(this: ReadingRequest): void {
  this[READER]?.end();
}
function onCut(this: ReadingRequest): void {
  this[READER]?.cut();
}
function onClose(this: ReadingRequest): void {
  if (!this.complete) this[READER]?.cut();
}
function onRefused(this: ReadingRequest, err: GatewayError): void {
  this[READER]?.refused(err);
}
function onTimeout(reader: BodyReader): void {
  reader.timedOut();
}
