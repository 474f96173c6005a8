/**
 * One attempt against an HTTP provider. Same wire format on both sides: the caller's bytes go up
 * with only `model` rewritten (plus the usage request for streams), and the upstream's bytes come
 * back unchanged while usage is tapped on the way. Different formats: through the canonical
 * model, request encoded for the upstream, response or stream decoded and re-encoded.
 */

import { GatewayError } from '../core/errors.js';
import { WIRE_FORMATS } from '../formats/registry.js';
import type { WireFormat } from '../formats/types.js';
import type { Reply, RequestContext } from '../pipeline/context.js';
import type { HttpProviderKind } from '../providers/types.js';
import type { Candidate } from '../routing/resolve-model.js';
import { decodeSse, SseDecoder } from '../sse/decode.js';
import { encodeSse } from '../sse/encode.js';
import { upstreamFailure, type UpstreamResponse } from '../upstream/client.js';
import { upstreamHttpError } from '../upstream/http-error.js';
import { primeStream } from './prime.js';
import { mergeUsage, replyFromEvents, replyFromResponse } from './reply-from-events.js';

export async function attemptHttp(ctx: RequestContext, c: Candidate, kind: HttpProviderKind): Promise<Reply> {
  const upstreamFormat = WIRE_FORMATS[kind.speaks];
  if (!upstreamFormat) throw new GatewayError('internal_error', `No wire format "${kind.speaks}" is registered.`);
  const chat = ctx.chat!;
  const same = upstreamFormat.id === ctx.format.id;
  const body = same
    ? ctx.format.passThrough.prepareBody(ctx.rawBody!, ctx.body, c.model.upstreamName, chat)
    : Buffer.from(JSON.stringify(upstreamFormat.encodeRequest(chat, { model: c.model.upstreamName, maxOutputTokens: c.model.maxOutputTokens })));
  const headers: Record<string, string> = {
    ...c.provider.headers,
    ...kind.forwardHeaders?.(ctx.req.headers, ctx.format.id),
    'content-type': 'application/json',
    accept: chat.stream ? 'text/event-stream' : 'application/json',
    'x-correlation-id': ctx.id,
    ...kind.authHeaders(c.provider.apiKey),
  };
  const up = await ctx.runtime.upstream.send({ provider: c.provider, path: kind.chatPath, headers, body, signal: ctx.signal });
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
    throw upstreamHttpError(c.provider, up.status, text, message, header(up, 'retry-after'));
  }

  const isSse = (header(up, 'content-type') ?? '').includes('text/event-stream');
  if (chat.stream && isSse) {
    if (same) return { kind: 'sse', chunks: await primeStream(relaySse(ctx, c, up, upstreamFormat)) };
    return replyFromEvents(ctx, upstreamFormat.decodeStream(decodeSse(guardBody(up, c))));
  }
  if (chat.stream) {
    await up.body.dump().catch(() => undefined);
    throw new GatewayError('upstream_error', `Provider "${c.provider.id}" answered a streaming request without an event stream.`);
  }
  const raw = Buffer.from(await up.body.arrayBuffer().catch((err: unknown) => {
    throw upstreamFailure(err, c.provider);
  }));
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new GatewayError('upstream_error', `Provider "${c.provider.id}" sent a response that is not JSON.`);
  }
  if (!same) return replyFromResponse(ctx, upstreamFormat.decodeResponse(parsed));
  ctx.usage = upstreamFormat.passThrough.usageFromBody(parsed);
  return { kind: 'json', status: up.status, body: raw };
}

/** The upstream body, with transport failures turned into catalogue errors naming the provider. */
async function* guardBody(up: UpstreamResponse, c: Candidate): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of up.body as AsyncIterable<Buffer>) yield chunk;
  } catch (err) {
    throw upstreamFailure(err, c.provider);
  }
}

/**
 * Relays the upstream's SSE. When the caller sees every event, the upstream's chunks go through
 * untouched (usage tapped on the side); when some event must be hidden (the usage chunk it did
 * not ask for), complete events are re-encoded one by one. Nothing is yielded before the first
 * complete event, so the stream commits only once the upstream has really started answering.
 */
async function* relaySse(ctx: RequestContext, c: Candidate, up: UpstreamResponse, format: WireFormat): AsyncGenerator<string | Uint8Array> {
  const chat = ctx.chat!;
  const tap = format.passThrough;
  const reencode = tap.hidesEvents(chat);
  const decoder = new SseDecoder();
  let pending: Uint8Array[] = [];
  let started = false;
  const visit = (msgs: ReturnType<SseDecoder['push']>): string => {
    let out = '';
    for (const m of msgs) {
      const seen = tap.tapEvent(m, chat);
      if (seen?.usage) ctx.usage = mergeUsage(ctx.usage, seen.usage);
      if (reencode && !seen?.drop) out += encodeSse(m);
    }
    return out;
  };
  try {
    for await (const chunk of up.body as AsyncIterable<Buffer>) {
      const msgs = decoder.push(chunk);
      const out = visit(msgs);
      if (reencode) {
        if (out) yield out;
        continue;
      }
      if (!started) {
        pending.push(chunk);
        if (msgs.length === 0) continue;
        started = true;
        yield pending.length === 1 ? pending[0] : Buffer.concat(pending);
        pending = [];
        continue;
      }
      yield chunk;
    }
  } catch (err) {
    throw upstreamFailure(err, c.provider);
  }
  const tail = visit(decoder.end());
  if (reencode && tail) yield tail;
  else if (!started && pending.length > 0) yield Buffer.concat(pending);
}

function header(up: UpstreamResponse, name: string): string | undefined {
  const v = up.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
