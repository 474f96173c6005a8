/**
 * AWS event-stream frames as Bedrock's ConverseStream sends them (headers, JSON payload, both
 * CRCs), encoded with @smithy/eventstream-codec: for the fake Bedrock upstream and the decoder tests.
 */

import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function frame(headers: Record<string, string>, payload: unknown): Buffer {
  return textFrame(headers, JSON.stringify(payload));
}

function textFrame(headers: Record<string, string>, text: string): Buffer {
  const encoded = codec.encode({
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, { type: 'string', value: v }])),
    body: fromUtf8(text),
  });
  return Buffer.from(encoded);
}

const EVENT = (eventType: string) => ({
  ':message-type': 'event',
  ':event-type': eventType,
  ':content-type': 'application/json',
});

/** An event frame: `eventType` is messageStart, contentBlockDelta, metadata… */
export function eventFrame(eventType: string, payload: unknown): Buffer {
  return frame(EVENT(eventType), payload);
}

/** A well-formed event frame (CRCs right) whose payload is `text` as given: a malformed event for the tests. */
export function eventFrameOfText(eventType: string, text: string): Buffer {
  return textFrame(EVENT(eventType), text);
}

/** An exception frame (throttlingException, validationException…) with its `{message}` payload. */
export function exceptionFrame(exceptionType: string, message: string): Buffer {
  return frame(
    { ':message-type': 'exception', ':exception-type': exceptionType, ':content-type': 'application/json' },
    { message },
  );
}
