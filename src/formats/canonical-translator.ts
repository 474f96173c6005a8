/**
 * Between two different wire formats, through the canonical model: the canonical request
 * encoded for the upstream, its answer decoded to canonical events or a response (structured
 * output carried as a tool is unwrapped), to be encoded for the caller by render.
 */

import { decodeSse } from '../sse/decode.js';
import { decodeAnswer } from './answer-body.js';
import { replyFromEvents, replyFromResponse, withTransportErrors } from './canonical-reply.js';
import { unwrapOutputToolEvents, unwrapOutputToolResponse } from './structured-output.js';
import type { Translator } from './translator.js';
import type { UpstreamFormat } from './types.js';

export function canonicalTranslator(upstream: UpstreamFormat): Translator {
  return {
    requestBody: (req, target, edits) =>
      Buffer.from(JSON.stringify(upstream.encodeRequest(req.chat, target, edits.dropped))),
    response(raw, _status, o) {
      const res = decodeAnswer(raw, o.providerId, upstream);
      return replyFromResponse(o.chat.responseFormat ? unwrapOutputToolResponse(res) : res, o);
    },
    stream(body, o) {
      const chunks = withTransportErrors(body, o.transportError);
      const messages = upstream.streamFraming ? upstream.streamFraming.decode(chunks) : decodeSse(chunks);
      const events = upstream.decodeStream(messages);
      return replyFromEvents(o.chat.responseFormat ? unwrapOutputToolEvents(events) : events, o);
    },
  };
}
