/**
 * AWS event-stream frames as Bedrock's ConverseStream sends them (headers, JSON payload, both
 * CRCs), encoded with @smithy/eventstream-codec: for the fake Bedrock upstream and the decoder tests.
 */

import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function frame(headers: Record<string, string>, payload: unknown): Buffer {
  const encoded = codec.encode({
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, { type: 'string', value: v }])),
    body: fromUtf8(JSON.stringify(payload)),
  });
  return Buffer.from(encoded);
}

/** An event frame: `eventType` is messageStart, contentBlockDelta, metadata… */
export function eventFrame(eventType: string, payload: unknown): Buffer {
  return frame({ ':message-type': 'event', ':event-type': eventType, ':content-type': 'application/json' }, payload);
}

/** An exception frame (throttlingException, validationException…) with its `{message}` payload. */
export function exceptionFrame(exceptionType: string, message: string): Buffer {
  return frame(
    { ':message-type': 'exception', ':exception-type': exceptionType, ':content-type': 'application/json' },
    { message },
  );
}
