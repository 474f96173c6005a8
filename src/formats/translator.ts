/**
 * A translator carries one attempt across one pair of wire formats (the caller's, the
 * upstream's): the request body that goes up, and the upstream's answer turned into the reply.
 * Pass-through is one more translator (pass-through-translator.ts): the caller's bytes go up with
 * only documented edits and the upstream's bytes come back as they are, every event watched on
 * the side. Between different formats the hub is the canonical model (canonical-translator.ts).
 */

import type { GatewayError } from '../core/errors.js';
import type { Reply } from '../core/reply.js';
import { canonicalTranslator } from './canonical-translator.js';
import type { ReplyOptions } from './canonical-reply.js';
import { passThroughTranslator } from './pass-through-translator.js';
import type { BodyEdits, CallerRequest, EncodeTarget, UpstreamFormat, WireFormat } from './types.js';

export interface AnswerOptions extends ReplyOptions {
  /** Names the provider in errors about its answer. */
  providerId: string;
  /** A failure reading the upstream body (reset, timeout) as the catalogue error naming the provider. */
  transportError(err: unknown): GatewayError;
}

export interface Translator {
  /** The upstream body; `edits` receives the names of what was left out or rewritten on the way. */
  requestBody(req: CallerRequest, target: EncodeTarget, edits: BodyEdits): Buffer;
  /** The upstream's complete JSON answer (its bytes; answer-body.ts reads them) → the reply. */
  response(raw: Buffer, status: number, o: AnswerOptions): Reply;
  /** The upstream's SSE body (as read from the socket) → the reply; resolves once its first event has arrived. */
  stream(body: AsyncIterable<Buffer>, o: AnswerOptions): Promise<Reply>;
}

/**
 * `canonicalReply`: the reply must come back in canonical form (output guardrails read it), so
 * even a same-format answer is decoded; the request still goes up as the caller's bytes.
 */
export function translatorFor(caller: WireFormat, upstream: UpstreamFormat, canonicalReply: boolean): Translator {
  // Translators hold no per-request state: one per pair, made once (nothing allocated per attempt),
  // found by the format objects themselves (no key string built and hashed per attempt).
  let byUpstream = made.get(caller);
  if (!byUpstream) made.set(caller, (byUpstream = new Map()));
  let pair = byUpstream.get(upstream);
  if (!pair) byUpstream.set(upstream, (pair = []));
  const same = caller.id === upstream.id;
  const i = same && canonicalReply ? 1 : 0;
  let t = pair[i];
  if (!t) {
    t = same ? passThroughTranslator(caller, canonicalReply) : canonicalTranslator(upstream);
    pair[i] = t;
  }
  return t;
}

/** Per caller format, per upstream format: [plain, canonical reply] (the second only for a same-format pair). */
const made = new Map<WireFormat, Map<UpstreamFormat, Translator[]>>();
