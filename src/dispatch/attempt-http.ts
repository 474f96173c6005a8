/**
 * One attempt against an HTTP provider. Same wire format on both sides: the caller's bytes go up
 * with only `model` rewritten (plus the usage request for streams), and the upstream's bytes come
 * back unchanged while usage is tapped on the way. Different formats: through the canonical
 * model, request encoded for the upstream, response or stream decoded and re-encoded.
 */

import { GatewayError } from '../core/errors.js';
import { WIRE_FORMATS } from '../formats/registry.js';
import { unwrapOutputToolEvents, unwrapOutputToolResponse } from '../formats/structured-output.js';
import type { WireFormat } from '../formats/types.js';
import type { Reply, RequestContext } from '../pipeline/context.js';
import type { HttpProviderKind } from '../providers/types.js';
import type { Candidate } from '../routing/resolve-model.js';
import { decodeSse, SseDecoder, type SseMessage } from '../sse/decode.js';
import { SseEventSplitter } from '../sse/split.js';
import { encodeSse } from '../sse/encode.js';
import { upstreamFailure, type UpstreamResponse } from '../upstream/client.js';
import { upstreamHttpError } from '../upstream/http-error.js';
import { primeStream } from './prime.js';
import { replyFromEvents, replyFromResponse } from './reply-from-events.js';
import { callerModel, renameModelIn, StreamModelRenamer } from './response-model.js';

/** `apiKey`: the provider key for this attempt (the configured one, or the caller's own). */
export async function attemptHttp(
  ctx: RequestContext,
  c: Candidate,
  kind: HttpProviderKind,
  apiKey: string | undefined,
): Promise<Reply> {
  const upstreamFormat = WIRE_FORMATS[kind.speaks];
  if (!upstreamFormat) throw new GatewayError('internal_error', `No wire format "${kind.speaks}" is registered.`);
  const chat = ctx.chat!;
  // Byte pass-through only when the caller's bytes are what goes up and what comes back needs no look inside.
  const same = upstreamFormat.id === ctx.format.id && !ctx.outputGuarded;
  const target = {
    model: c.model.upstreamName,
    maxOutputTokens: c.model.maxOutputTokens,
    reasoning: c.model.reasoning,
  };
  const dropped: string[] = [];
  const body =
    upstreamFormat.id === ctx.format.id
      ? ctx.format.passThrough.prepareBody(ctx.rawBody!, ctx.body, target, chat)
      : Buffer.from(JSON.stringify(upstreamFormat.encodeRequest(chat, target, dropped)));
  noteDropped(ctx, upstreamFormat.id === ctx.format.id ? [] : [...dropped, ...droppedBetas(ctx)]);
  const headers: Record<string, string> = {
    ...c.provider.headers,
    ...kind.forwardHeaders?.(ctx.req.headers, ctx.format.id),
    'content-type': 'application/json',
    accept: chat.stream ? 'text/event-stream' : 'application/json',
    'x-correlation-id': ctx.id,
    ...kind.authHeaders(apiKey),
  };
  const up = await ctx.runtime.upstream.send({
    provider: c.provider,
    path: kind.chatPath,
    headers,
    body,
    timeouts: c.model.timeouts,
    signal: ctx.signal,
  });
  ctx.firstByteAt = performance.now();
  const upstreamId = header(up, 'x-request-id') ?? header(up, 'request-id');
  if (upstreamId) ctx.responseHeaders['x-upstream-request-id'] = upstreamId;

  if (up.status >= 400) {
    const text = await up.body.text().catch(() => '');
    let message: string | undefined;
    try {
      message = upstreamFormat.passThrough.errorMessage(JSON.parse(text));
    } catch {
      message = undefined;
    }
    throw upstreamHttpError(c.provider, up.status, text, message, {
      retryAfter: header(up, 'retry-after'),
      retryAfterMs: header(up, 'retry-after-ms'),
      secrets: [apiKey],
    });
  }

  const isSse = (header(up, 'content-type') ?? '').includes('text/event-stream');
  if (chat.stream && isSse) {
    if (same) return { kind: 'sse', chunks: await primeStream(relaySse(ctx, c, up, upstreamFormat)) };
    const events = upstreamFormat.decodeStream(decodeSse(guardBody(up, c)));
    return replyFromEvents(ctx, chat.responseFormat ? unwrapOutputToolEvents(events) : events, callerModel(ctx));
  }
  if (chat.stream) {
    await up.body.dump().catch(() => undefined);
    throw new GatewayError(
      'upstream_error',
      `Provider "${c.provider.id}" answered a streaming request without an event stream.`,
    );
  }
  const raw = Buffer.from(
    await up.body.arrayBuffer().catch((err: unknown) => {
      throw upstreamFailure(err, c.provider, c.model.timeouts);
    }),
  );
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new GatewayError('upstream_error', `Provider "${c.provider.id}" sent a response that is not JSON.`);
  }
  if (!same) {
    const res = upstreamFormat.decodeResponse(parsed);
    return replyFromResponse(ctx, chat.responseFormat ? unwrapOutputToolResponse(res) : res, callerModel(ctx));
  }
  ctx.usage = upstreamFormat.passThrough.usageFromBody(parsed);
  const hasModel = typeof (parsed as { model?: unknown } | null)?.model === 'string';
  return {
    kind: 'json',
    status: up.status,
    body: hasModel ? Buffer.from(renameModelIn(raw.toString('utf8'), callerModel(ctx))) : raw,
  };
}

/**
 * What a translated request left out (README, "Translation between the two formats"): in the
 * `x-gateway-dropped-fields` header and the log line. Set per attempt (a fallback to a model of
 * the caller's own format drops nothing).
 */
function noteDropped(ctx: RequestContext, dropped: string[]): void {
  const names = [...new Set(dropped)];
  ctx.droppedFields = names.length > 0 ? names : undefined;
  if (names.length > 0) ctx.responseHeaders['x-gateway-dropped-fields'] = names.join(', ');
  else delete ctx.responseHeaders['x-gateway-dropped-fields'];
}

/**
 * `anthropic-beta` values only opt into features; what a feature adds to the body (a field, tool
 * or block) is classified itself. Translated, no beta header goes up: each value is listed.
 */
function droppedBetas(ctx: RequestContext): string[] {
  const v = ctx.req.headers['anthropic-beta'];
  if (ctx.format.id !== 'anthropic-messages' || v === undefined) return [];
  // The caller's text goes back in a header: bounded in number and length.
  const values = (Array.isArray(v) ? v.join(',') : v)
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0 && b.length <= 100);
  return values.slice(0, 32).map((b) => `anthropic-beta:${b}`);
}

/** The upstream body, with transport failures turned into catalogue errors naming the provider. */
async function* guardBody(up: UpstreamResponse, c: Candidate): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of up.body as AsyncIterable<Buffer>) yield chunk;
  } catch (err) {
    throw upstreamFailure(err, c.provider, c.model.timeouts);
  }
}

/**
 * Relays the upstream's SSE as runs of whole events, forwarded as they came. Every event is
 * looked at on the side (the format's StreamWatch): usage is tapped, an event the caller must not
 * see (the usage chunk it did not ask for) is cut by re-encoding that run without it, and a
 * malformed event, the upstream's own error event or an end before the format's terminator ends
 * the caller's stream with the gateway's in-stream error instead of a clean-looking end. Nothing
 * is yielded before the first complete event, so the stream commits only once the upstream has
 * really started answering (comments and keep-alives before it do not count), and an upstream
 * whose first event is an error can still be moved on from.
 */
async function* relaySse(
  ctx: RequestContext,
  c: Candidate,
  up: UpstreamResponse,
  format: WireFormat,
): AsyncGenerator<string | Uint8Array> {
  const watch = format.passThrough.watchStream(ctx.chat!);
  ctx.relayed = watch;
  const rename = new StreamModelRenamer(callerModel(ctx), format.id === 'openai-chat');
  const splitter = new SseEventSplitter();
  const decoder = new SseDecoder();
  let pending = '';
  let started = false;
  /** What of the run the caller sees, and the error that ends the stream there, if any. */
  const visit = (run: string, last: boolean): { out: string; err?: unknown } => {
    const msgs = decoder.push(run);
    if (last) msgs.push(...decoder.end());
    let keep: SseMessage[] | undefined;
    for (let i = 0; i < msgs.length; i++) {
      let seen: ReturnType<typeof watch.see>;
      try {
        seen = watch.see(msgs[i]);
      } catch (err) {
        if (!started && i === 0) throw err; // not started answering: a plain error (fallback possible)
        started = true;
        if (watch.usage) ctx.usage = watch.usage;
        return { out: (keep ?? msgs.slice(0, i)).map(encodeSse).join(''), err };
      }
      if (seen?.drop) keep ??= msgs.slice(0, i);
      else keep?.push(msgs[i]);
    }
    if (msgs.length > 0) started = true;
    if (watch.usage) ctx.usage = watch.usage;
    return { out: keep ? keep.map(encodeSse).join('') : run };
  };
  let failure: unknown;
  try {
    for await (const chunk of up.body as AsyncIterable<Buffer>) {
      const run = splitter.push(chunk);
      if (!run) continue;
      const { out: seen, err } = visit(run, false);
      const out = rename.run(seen);
      if (!started) {
        pending += out;
        continue;
      }
      if (pending || out) yield pending + out;
      pending = '';
      if (err) {
        failure = err;
        break;
      }
    }
  } catch (err) {
    throw upstreamFailure(err, c.provider, c.model.timeouts);
  }
  if (failure) throw failure;
  const { out: seen, err } = visit(splitter.end(), true);
  const out = rename.run(seen);
  if (pending || out) yield pending + out;
  if (err) throw err;
  if (!watch.complete)
    throw new GatewayError(
      'upstream_unavailable',
      `Provider "${c.provider.id}" ended the stream early (before its end marker).`,
    );
}

function header(up: UpstreamResponse, name: string): string | undefined {
  const v = up.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
