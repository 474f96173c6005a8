/**
 * Most of a Responses stream is output text deltas, which OpenAI writes in one shape:
 * `{"type":"response.output_text.delta","sequence_number":N,"item_id":"…","output_index":N,
 * "content_index":N,"delta":"…","logprobs":[][,"obfuscation":"…"]}`. The relay's watch reads such
 * an event, and the stream decoder translates it, without JSON.parse when its delta needs no
 * decoding.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming/response/output_text/delta
 */

import { JSON_COUNT as COUNT, PLAIN_STRING as PLAIN } from '../plain-json.js';

const TEXT_DELTA_EVENT = new RegExp(
  String.raw`^\{"type":"response\.output_text\.delta","sequence_number":(${COUNT}),"item_id":"${PLAIN}",` +
    String.raw`"output_index":(${COUNT}),"content_index":(${COUNT}),"delta":"(${PLAIN})","logprobs":\[\]` +
    String.raw`(?:,"obfuscation":"${PLAIN}")?\}$`,
);

export interface TextDeltaEvent {
  sequenceNumber: number;
  outputIndex: number;
  contentIndex: number;
  delta: string;
}

/**
 * The delta and sequence number of an output text delta in that shape: what JSON.parse would
 * give (such a JSON string is the text itself; a count of at most 15 digits is a safe integer).
 * Anything else, another member order, spacing or member included, is undefined: the caller
 * parses it in full. Linear in the event: no part of the pattern can match the same text twice.
 */
export function plainTextDeltaEvent(data: string): TextDeltaEvent | undefined {
  const m = TEXT_DELTA_EVENT.exec(data);
  return m
    ? { sequenceNumber: Number(m[1]), outputIndex: Number(m[2]), contentIndex: Number(m[3]), delta: m[4] }
    : undefined;
}
