import type { StreamEvent } from '../core/canonical.js';
import { toGatewayError, type GatewayError } from '../core/errors.js';
import { withoutSecrets } from '../request/secrets.js';
import { SSE_HEADERS, waitForDrain, writeJson } from '../http/write.js';
import type { StreamEncoder } from '../formats/types.js';
import type { Stage } from './compose.js';
import type { RequestContext } from '../request/context.js';

/**
 * ↩ Writes whatever the inner stages produced: ctx.reply as JSON or SSE (a canonical reply
 * encoded in the caller's wire format here, after the output guard), or the error they threw
 * rendered in the caller's wire format. Once an SSE stream has been committed (headers sent), a
 * later failure becomes an in-stream error event in the caller's format.
 */
export const render: Stage = async (ctx, next) => {
  try {
    await next();
  } catch (err) {
    ctx.error = toGatewayError(err);
  }
  if (ctx.res.headersSent) return;
  const reply = ctx.reply;
  if (ctx.error || !reply) {
    writeError(ctx, ctx.error ?? toGatewayError(new Error('no reply produced')));
    return;
  }
  if (reply.kind === 'json' || reply.kind === 'response') {
    const status = reply.kind === 'json' ? reply.status : 200;
    const body =
      reply.kind === 'json'
        ? reply.body
        : (reply.raw ?? (ctx.format.encodeResponse(reply.response, ctx.chat!) as object));
    ctx.status = status;
    writeJson(
      ctx.res,
      status,
      body,
      // The request's own header object, written once (writeJson takes it over).
      reply.kind === 'json' && reply.headers ? Object.assign(ctx.responseHeaders, reply.headers) : ctx.responseHeaders,
    );
    return;
  }
  if (reply.kind === 'events')
    await writeSse(ctx, failureAsEvent(ctx, reply.events), ctx.format.streamEncoder(ctx.chat!));
  else await writeSse(ctx, reply.chunks, undefined, reply.headers);
};

/**
 * A canonical stream whose source fails (cut, malformed, ended early) ends with an `error` event
 * instead of an exception, so the caller's encoder writes the in-stream error in its place in the
 * stream (a Responses stream numbers it after the events before it). While the caller is there:
 * once it has gone, the failure is left to writeSse. A plain iterator, not an async generator: no
 * extra await and resume per event on every translated stream.
 */
function failureAsEvent(ctx: RequestContext, events: AsyncIterable<StreamEvent>): AsyncIterable<StreamEvent> {
  return {
    [Symbol.asyncIterator]() {
      const it = events[Symbol.asyncIterator]();
      let failed = false;
      const asEvent = (err: unknown): IteratorResult<StreamEvent> => {
        if (ctx.signal.aborted) throw err;
        failed = true;
        const e = withoutSecrets(ctx, toGatewayError(err));
        ctx.error = e;
        return { done: false, value: { type: 'error', error: e } };
      };
      return {
        next: () => (failed ? Promise.resolve({ done: true, value: undefined }) : it.next().catch(asEvent)),
        return: (v?: unknown) => it.return?.(v) ?? Promise.resolve({ done: true, value: undefined }),
      };
    },
  };
}

export function writeError(ctx: RequestContext, original: GatewayError): void {
  const err = withoutSecrets(ctx, original);
  ctx.error = err;
  ctx.status = err.status;
  const headers: Record<string, string> = {
    ...ctx.responseHeaders,
    'x-should-retry': String(err.retryable),
    ...err.headers,
  };
  writeJson(ctx.res, err.status, ctx.format.renderError(err) as object, headers);
}

/**
 * Writes an SSE reply: relayed chunks as they are, or canonical events through the caller's
 * encoder (synchronous: each event's text is written as it is pulled, no async layer between).
 */
async function writeSse(
  ctx: RequestContext,
  source: AsyncIterable<string | Uint8Array> | AsyncIterable<StreamEvent>,
  encoder?: StreamEncoder,
  headers: Record<string, string> = {},
): Promise<void> {
  const { res } = ctx;
  ctx.status = 200;
  res.writeHead(200, { ...SSE_HEADERS, ...ctx.responseHeaders, ...headers });
  const it = (source as AsyncIterable<string | Uint8Array | StreamEvent>)[Symbol.asyncIterator]();
  /** The source needs no closing: it ended, failed, or the encoder ended the stream. */
  let finished = false;
  // The events made from one upstream read arrive together (one microtask chain): joined until
  // the turn's I/O is done, they leave as one write (one chunk of the response, one write(2))
  // instead of one per event: each res.write of a chunked response costs its own framing and
  // stream bookkeeping. The first event is not held back.
  let held = '';
  let flushing = false;
  /** The socket was full at the last write: the loop waits for it to drain before reading on. */
  let full = false;
  const flush = () => {
    flushing = false;
    if (held.length === 0) return;
    const out = held;
    held = '';
    if (!res.destroyed && !res.write(out)) full = true;
  };
  /** False when the caller's socket is full: wait for it to drain. */
  const write = (out: string | Uint8Array): boolean => {
    if (ctx.firstByteSentAt === undefined) {
      ctx.firstByteSentAt = performance.now(); // the first event goes out at once (time to first byte)
      return res.write(out);
    }
    if (typeof out !== 'string') {
      flush();
      return res.write(out) && !full;
    }
    held += out;
    if (!flushing) {
      flushing = true;
      setImmediate(flush);
    }
    return !full;
  };
  try {
    for (;;) {
      if (ctx.signal.aborted) break;
      const { value, done } = await it.next();
      if (done) {
        finished = true;
        const tail = encoder?.endedEarly();
        if (tail) write(tail);
        break;
      }
      const out = encoder ? encoder.push(value as StreamEvent) : (value as string | Uint8Array);
      if (out.length > 0 && !write(out)) {
        flush();
        full = false;
        if (res.writableNeedDrain) await waitForDrain(res);
      }
      // The caller's stream is complete: stop reading (closing the source releases the upstream).
      if (encoder?.done) break;
    }
  } catch (err) {
    finished = true;
    const e = withoutSecrets(ctx, toGatewayError(err));
    ctx.error = e;
    flush();
    if (!res.destroyed) res.write(ctx.format.streamError(e, ctx.relayed));
  } finally {
    flush();
    // Client gone, or the encoder done before the source: close the source so the upstream call
    // is released and its finally blocks run.
    if (!finished) await it.return?.(undefined);
  }
  res.end();
}
