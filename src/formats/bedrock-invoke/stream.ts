/**
 * InvokeModelWithResponseStream's body → Anthropic's SSE. Each AWS event-stream frame of type
 * `chunk` carries `{"bytes": "<base64>"}` (other members, such as padding, are ignored), whose
 * bytes are one Anthropic stream event as JSON; it becomes `event: <type>\ndata: <json>\n\n`, so
 * the anthropic-messages format relays or translates it as it would Anthropic's own stream. An
 * exception frame ends the stream with the catalogue error its type means (a 429 for
 * throttlingException; before the first event it is a plain HTTP error).
 * Bedrock adds `amazon-bedrock-invocationMetrics` to the last event (message_stop); it is removed:
 * the usage it repeats is already in message_start and message_delta, Anthropic's stream has no
 * such member, and a JSON answer carries no metrics either (AWS sends them as headers there).
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html
 */

import { GatewayError } from '../../core/errors.js';
import { isObject } from '../../core/json.js';
import { bedrockStreamError, decodeEventStream } from '../bedrock-converse/index.js';

const METRICS = 'amazon-bedrock-invocationMetrics';

export async function* invokeStreamToSse(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
  for await (const frame of decodeEventStream(chunks)) {
    const type = frame.event ?? '';
    if (type.startsWith('exception:')) throw bedrockStreamError(type.slice(10), parsed(frame.data));
    // Only `chunk` carries a model event; a frame type AWS may add later has none to relay.
    if (type !== 'chunk') continue;
    yield Buffer.from(sseOf(frame.data));
  }
}

/** One chunk frame's payload → one SSE event. */
function sseOf(payload: string): string {
  const bytes = parsed(payload)?.bytes;
  if (typeof bytes !== 'string') throw malformed('a chunk without bytes');
  let text = Buffer.from(bytes, 'base64').toString('utf8');
  const event = parsed(text);
  if (!event || typeof event.type !== 'string') throw malformed('a chunk that is not an Anthropic event');
  // A line break inside the JSON would end the SSE data line early: such an event is written compact.
  if (METRICS in event || /[\r\n]/.test(text)) {
    delete event[METRICS];
    text = JSON.stringify(event);
  }
  return `event: ${event.type}\ndata: ${text}\n\n`;
}

function parsed(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function malformed(what: string): GatewayError {
  return new GatewayError('upstream_error', `The upstream sent ${what} in its response stream.`);
}
