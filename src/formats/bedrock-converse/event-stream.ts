/**
 * AWS event-stream binary framing (ConverseStream's body) → one message per frame, in the shape
 * the stream decoders take: `event` is the frame's `:event-type`, or `exception:{type}` for an
 * exception frame; `data` is its JSON payload. Frames are split here by their length prelude;
 * @smithy/eventstream-codec checks both CRCs and parses the headers (loaded on first use, so a
 * gateway without Bedrock does not load it).
 * @see https://docs.aws.amazon.com/AmazonS3/latest/API/RESTSelectObjectAppendix.html
 */

import { GatewayError } from '../../core/errors.js';
import type { SseMessage } from '../../sse/decode.js';

/** A frame larger than this is refused (Bedrock's events are small; this bounds the buffer). */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** Total length, headers length, prelude CRC, message CRC: the smallest frame has no headers and no payload. */
const MIN_FRAME_BYTES = 16;

type Codec = { decode(frame: Uint8Array): { headers: Record<string, { value: unknown }>; body: Uint8Array } };
let codec: Promise<Codec> | undefined;

function loadCodec(): Promise<Codec> {
  codec ??= Promise.all([import('@smithy/eventstream-codec'), import('@smithy/util-utf8')]).then(
    ([{ EventStreamCodec }, { toUtf8, fromUtf8 }]) => new EventStreamCodec(toUtf8, fromUtf8) as Codec,
  );
  return codec;
}

export async function* decodeEventStream(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const c = await loadCodec();
  let buffer = Buffer.alloc(0);
  for await (const chunk of chunks) {
    buffer = buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([buffer, chunk]);
    while (buffer.length >= 4) {
      const length = buffer.readUInt32BE(0);
      if (length < MIN_FRAME_BYTES || length > MAX_FRAME_BYTES) throw malformed(`a frame of ${length} bytes`);
      if (buffer.length < length) break;
      yield toMessage(decodeFrame(c, buffer.subarray(0, length)));
      buffer = buffer.subarray(length);
    }
  }
  if (buffer.length > 0) throw new GatewayError('upstream_unavailable', 'The upstream stream ended inside a frame.');
}

function decodeFrame(c: Codec, frame: Uint8Array): ReturnType<Codec['decode']> {
  try {
    return c.decode(frame);
  } catch (err) {
    throw malformed(`a frame the codec refused (${(err as Error).message})`);
  }
}

function toMessage(frame: ReturnType<Codec['decode']>): SseMessage {
  const header = (name: string) => {
    const v = frame.headers[name]?.value;
    return typeof v === 'string' ? v : undefined;
  };
  const data = Buffer.from(frame.body).toString('utf8');
  const kind = header(':message-type');
  if (kind === 'exception' || kind === 'error') {
    const type = header(':exception-type') ?? header(':error-code') ?? 'unknown';
    return { event: `exception:${type}`, data };
  }
  return { event: header(':event-type') ?? '', data };
}

function malformed(what: string): GatewayError {
  return new GatewayError('upstream_error', `The upstream sent an event stream with ${what}.`);
}
