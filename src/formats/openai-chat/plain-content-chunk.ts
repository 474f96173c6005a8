/**
 * Most of an OpenAI chat stream is content deltas, which OpenAI writes in one shape:
 * `{"id":…,"object":"chat.completion.chunk","created":…,"model":…,["service_tier":…,]
 * "system_fingerprint":…,"choices":[{"index":0,"delta":{"content":"…"},"logprobs":null,
 * "finish_reason":null}][,"usage":null][,"obfuscation":"…"]}`. The stream decoder and the relay's
 * watch read such a chunk without JSON.parse when its text needs no decoding. Only members that
 * neither reader uses after the first chunk may stand around the choice (the id, model and
 * creation time are read from the first chunk, which always goes through JSON.parse); anything
 * else (usage, an error, a finish, a second choice, a role, a refusal, tool calls) takes the
 * full parse.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */

import { JSON_COUNT, PLAIN_STRING } from '../plain-json.js';

/** A JSON string with nothing to decode, or null. */
const PLAIN_OR_NULL = `(?:"${PLAIN_STRING}"|null)`;
/** A member the readers ignore after the first chunk. Each alternative starts with its own key: no backtracking. */
const IGNORED_HEAD =
  String.raw`"(?:id|model|service_tier|system_fingerprint)":${PLAIN_OR_NULL}` +
  String.raw`|"object":"chat\.completion\.chunk"|"created":${JSON_COUNT}`;
const IGNORED_TAIL = `"usage":null|"obfuscation":"${PLAIN_STRING}"`;
/** The only choice: index 0, a delta of content alone (captured), no finish. */
const CONTENT_CHOICE =
  String.raw`"choices":\[\{"index":0,"delta":\{"content":"(${PLAIN_STRING})"\}` +
  String.raw`(?:,"logprobs":null)?,"finish_reason":null\}\]`;
const PLAIN_CONTENT_CHUNK = new RegExp(
  String.raw`^\{(?:(?:${IGNORED_HEAD}),)*${CONTENT_CHOICE}(?:,(?:${IGNORED_TAIL}))*\}$`,
);

/**
 * The content of a chunk in that shape whose text has no escape, quote or control character:
 * the same text JSON.parse would give (such a JSON string is the text itself). Anything else,
 * another member order, spacing or member included, is undefined: the caller parses it in full.
 * Linear in the chunk: every repeated part of the pattern starts with a literal of its own.
 */
export function plainContentChunk(data: string): string | undefined {
  // The common prefix first: most chunks that are not content deltas fail here.
  if (data.charCodeAt(0) !== 0x7b || data.charCodeAt(data.length - 1) !== 0x7d) return undefined;
  return PLAIN_CONTENT_CHUNK.exec(data)?.[1];
}
