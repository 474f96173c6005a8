import { attachListeners } from '../http/attach-listeners.js';
import { GatewayError } from '../core/errors.js';
import { parseJsonStrictMembers } from '../core/parse-json-strict.js';
import { decodeEmbeddingsRequest } from '../formats/openai-embeddings/request-decode.js';
import type { Stage } from './compose.js';
import type { RequestContext } from '../request/context.js';
import { BODY_REFUSED, leaveBodyUnread, oversizedDiscard, REFUSED_DISCARD, sendContinue } from '../http/unread-body.js';

/** Size limit, JSON.parse once, then the canonical view in the caller's format. */
export const parseBody: Stage = async (ctx, next) => {
  await readJson(ctx);
  ctx.chat = ctx.format.decodeRequest(ctx.body);
  await next();
};

/** The same for token counting, where the request has no `max_tokens`. */
export const parseCountBody: Stage = async (ctx, next) => {
  await readJson(ctx);
  ctx.chat = ctx.format.decodeRequest(ctx.body, { forCounting: true });
  await next();
};

/** The same for an embeddings request (the OpenAI embeddings format: formats/openai-embeddings/). */
export const parseEmbeddingsBody: Stage = async (ctx, next) => {
  await readJson(ctx);
  ctx.embeddings = decodeEmbeddingsRequest(ctx.body);
  await next();
};

async function readJson(ctx: RequestContext): Promise<void> {
  ctx.rawBody = await readBody(ctx);
  // Duplicate keys and too deep a nesting are refused before parsing.
  const { value, members } = parseJsonStrictMembers(ctx.rawBody);
  ctx.body = value;
  ctx.rawMembers = members;
}

/**
 * The whole body, bounded by the limit and by `server.body_read_timeout_ms`. Plain 'data'/'end'
 * listeners: an async iterator over the request costs several objects per request on the hot path.
 * A body over the limit is not read further (the 413 goes out while the rest is dropped, see
 * http/unread-body.ts); a client that leaves mid-upload is a caller event (499), not a failure.
 */
function readBody(ctx: RequestContext): Promise<Buffer> {
  const { req, res } = ctx;
  const { bodyLimitBytes: limit, bodyReadTimeoutMs } = ctx.config.server;
  const tooLarge = () => {
    leaveBodyUnread(req, oversizedDiscard(limit));
    return new GatewayError('body_too_large', `The request body exceeds the limit of ${limit} bytes.`);
  };
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  sendContinue(res);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onCut = () => {
      cleanup();
      // Always this error, whichever of the request's or the response's 'close' came first (the
      // response's aborts the signal with a plain Error, which would render as a 500).
      const gone = new GatewayError('client_disconnected', 'The client closed the connection during the upload.');
      ctx.signal.abort(gone);
      reject(gone);
    };
    const onClose = () => {
      if (!req.complete) onCut();
    };
    // The HTTP parser refused the rest of the body (bad chunked framing): answered here, in the
    // caller's format and with the request's own id, and the connection is not reused.
    const onRefused = (err: GatewayError) => {
      cleanup();
      ctx.responseHeaders.connection = 'close';
      reject(err);
    };
    const onTimeout = () => {
      cleanup();
      req.pause();
      leaveBodyUnread(req, REFUSED_DISCARD);
      reject(new GatewayError('request_timeout', `The request body did not arrive within ${bodyReadTimeoutMs} ms.`));
    };
    const cleanup = attachListeners(
      req,
      { data: onData, end: onEnd, error: onCut, close: onClose, [BODY_REFUSED]: onRefused },
      { ms: bodyReadTimeoutMs, run: onTimeout },
    );
    // Gone before its body was read at all: no 'close' is coming any more.
    if (req.destroyed && !req.complete) onCut();
  });
}
