import { GatewayError } from '../core/errors.js';
import { parseJsonStrict } from '../core/parse-json-strict.js';
import type { Stage } from './compose.js';
import type { RequestContext } from './context.js';

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

async function readJson(ctx: RequestContext): Promise<void> {
  ctx.rawBody = await readBody(ctx);
  // Duplicate keys and too deep a nesting are refused before parsing.
  ctx.body = parseJsonStrict(ctx.rawBody);
}

/**
 * The whole body, bounded by the limit. Plain 'data'/'end' listeners: an async iterator over the
 * request costs several objects per request on the hot path.
 */
function readBody(ctx: RequestContext): Promise<Buffer> {
  const limit = ctx.config.server.bodyLimitBytes;
  const tooLarge = () => {
    // The rest of the body is not read; the connection cannot be reused.
    ctx.responseHeaders.connection = 'close';
    return new GatewayError('body_too_large', `The request body exceeds the limit of ${limit} bytes.`);
  };
  const declared = Number(ctx.req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  const req = ctx.req;
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
    const onFail = (err?: Error) => {
      cleanup();
      reject(err ?? new GatewayError('invalid_request', 'The request body was cut off.'));
    };
    const onClose = () => {
      if (!req.complete) onFail();
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFail);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFail);
    req.on('close', onClose);
  });
}
