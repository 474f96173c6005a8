import { GatewayError } from '../core/errors.js';
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
  try {
    ctx.body = JSON.parse(ctx.rawBody.toString('utf8'));
  } catch {
    throw new GatewayError('invalid_json', 'The request body is not valid JSON.');
  }
}

async function readBody(ctx: RequestContext): Promise<Buffer> {
  const limit = ctx.config.server.bodyLimitBytes;
  const tooLarge = () => {
    // The rest of the body is not read; the connection cannot be reused.
    ctx.responseHeaders.connection = 'close';
    return new GatewayError('body_too_large', `The request body exceeds the limit of ${limit} bytes.`);
  };
  const declared = Number(ctx.req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}
