/**
 * Same wire format on both sides. The caller's bytes go up with only the documented edits
 * (`model`, an output cap, the usage request, Claude's thinking fitted to the model: the format's
 * PassThrough.prepareBody), and the upstream's bytes come back as they are with `model` renamed in
 * place. Every event of a relayed
 * stream is looked at on the side (the format's StreamWatch). When output guardrails apply, the
 * answer is decoded to canonical form instead (the guard stage reads it), and a complete response
 * keeps its bytes for when no rule changed it.
 */

import { GatewayError } from '../core/errors.js';
import { primeStream } from '../core/prime-stream.js';
import type { Reply } from '../core/reply.js';
import { decodeSse, SseDecoder, type SseMessage } from '../sse/decode.js';
import { encodeSse } from '../sse/encode.js';
import { SseEventSplitter } from '../sse/split.js';
import { relayAnswerDecoded, relayAnswerUsage } from './answer-body.js';
import { replyFromEvents, replyFromResponse, withTransportErrors } from './canonical-reply.js';
import { renameModeFor, StreamModelRenamer } from './response-model.js';
import type { AnswerOptions, Translator } from './translator.js';
import type { WireFormat } from './types.js';

export function passThroughTranslator(format: WireFormat, canonicalReply: boolean): Translator {
  return {
    requestBody: (req, target, edits) => format.passThrough.prepareBody(req, target, edits),
    response(raw, status, o): Reply {
      if (!canonicalReply) {
        const { body, usage } = relayAnswerUsage(raw, o.modelName, o.providerId, format.passThrough);
        o.sink.usage = usage;
        return { kind: 'json', status, body };
      }
      // Output guardrails read the answer: decoded whole, its bytes kept for when no rule changes it.
      const { body, response } = relayAnswerDecoded(raw, o.modelName, o.providerId, format);
      // The reply object is new: `raw` is set on it rather than spread into a copy (a spread costs
      // more here than decoding the response).
      const reply = replyFromResponse(response, o);
      reply.raw = body;
      return reply;
    },
    async stream(body, o): Promise<Reply> {
      if (canonicalReply) {
        return replyFromEvents(format.decodeStream(decodeSse(withTransportErrors(body, o.transportError))), o);
      }
      return { kind: 'sse', chunks: await primeStream(relaySse(format, body, o)) };
    },
  };
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
  format: WireFormat,
  body: AsyncIterable<Buffer>,
  o: AnswerOptions,
): AsyncGenerator<string | Uint8Array> {
  const watch = format.passThrough.watchStream(o.chat);
  const sink = o.sink;
  sink.relayed = watch;
  const rename = new StreamModelRenamer(o.modelName, renameModeFor(format.id));
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
        if (watch.usage) sink.usage = watch.usage;
        return { out: (keep ?? msgs.slice(0, i)).map(encodeSse).join(''), err };
      }
      if (seen?.drop) keep ??= msgs.slice(0, i);
      else keep?.push(msgs[i]);
    }
    if (msgs.length > 0) started = true;
    if (watch.usage) sink.usage = watch.usage;
    return { out: keep ? keep.map(encodeSse).join('') : run };
  };
  let failure: unknown;
  try {
    for await (const chunk of body) {
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
    // Read failures (and the watch's own errors, which pass as they are) name the provider.
    throw o.transportError(err);
  }
  if (failure) throw failure;
  const { out: seen, err } = visit(splitter.end(), true);
  const out = rename.run(seen);
  if (pending || out) yield pending + out;
  if (err) throw err;
  if (!watch.complete) {
    throw new GatewayError(
      'upstream_unavailable',
      `Provider "${o.providerId}" ended the stream early (before its end marker).`,
    );
  }
}
