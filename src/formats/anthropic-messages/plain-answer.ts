/**
 * A complete Anthropic message of text blocks, in the shape Anthropic writes it: `{"id",
 * "type":"message","role":"assistant","model","content":[{"type":"text","text"}…],"stop_reason",
 * "stop_sequence","usage":{…}}`. A relayed answer is read only for its usage, so one in this shape
 * is checked by one anchored pattern of JSON's own grammar instead of JSON.parse building all of
 * it (and one with a single text block that a guard or a translation reads is decoded from the
 * pattern's captures); any other answer (thinking, tool use, citations, another order or member)
 * is parsed in full.
 * @see https://docs.anthropic.com/en/api/messages
 */

import type { ChatResponse, Usage } from '../../core/canonical.js';
import {
  JSON_COUNT,
  JSON_STRING,
  JSON_STRING_OR_NULL,
  JSON_USAGE_OBJECT,
  JSON_WS as W,
  jsonArrayOf,
  jsonMember,
  jsonNext,
  jsonObjectOf,
  jsonStringOrNull,
} from '../plain-json.js';
import { anthropicResponseOf } from './response.js';
import { usageFromAnthropic } from './usage.js';

/**
 * The message's pattern: any number of text blocks, only the usage captured; or, for decoding, one
 * text block and captures, in order, of id, model, the text, stop_reason, stop_sequence, usage
 * (captures cost the usage reader time per match).
 */
function plainAnswerPattern(decode: boolean): RegExp {
  const c = (p: string) => (decode ? `(${p})` : p);
  const textBlock = `\\{${W}${jsonMember('type', '"text"')}${jsonNext('text', c(JSON_STRING))}${W}\\}`;
  const content = decode ? `\\[${W}${textBlock}${W}\\]` : jsonArrayOf(textBlock, '\\{');
  return new RegExp(
    `^${W}\\{${W}${jsonMember('id', c(JSON_STRING))}${jsonNext('type', '"message"')}` +
      `${jsonNext('role', '"assistant"')}${jsonNext('model', c(JSON_STRING))}${jsonNext('content', content)}` +
      `${jsonNext('stop_reason', c(JSON_STRING_OR_NULL))}${jsonNext('stop_sequence', c(JSON_STRING_OR_NULL))}` +
      `${jsonNext('usage', `(${JSON_USAGE_OBJECT})`)}${W}\\}${W}$`,
  );
}

const PLAIN_ANSWER_USAGE = plainAnswerPattern(false);
const PLAIN_ANSWER = plainAnswerPattern(true);

/**
 * The `usage` member's JSON text of a message in that shape; undefined for any other text. A match
 * is valid JSON throughout (the pattern is JSON's grammar), names each top-level member once and
 * has a string `model`: the caller may relay it and parse only the usage.
 */
export function plainAnswerUsage(text: string): string | undefined {
  return PLAIN_ANSWER_USAGE.exec(text)?.[1];
}

/**
 * A message with one text block in that shape decoded as decodeAnthropicResponse decodes its JSON,
 * from the pattern's captures (strings unescaped only when they hold an escape, the usage read by
 * plainUsage when it can be); undefined for any other text (several blocks included).
 */
export function plainAnswer(text: string): ChatResponse | undefined {
  const m = PLAIN_ANSWER.exec(text);
  if (!m) return undefined;
  const usage = plainUsage(m[6]) ?? usageFromAnthropic(JSON.parse(m[6]));
  const top = {
    id: jsonStringOrNull(m[1]),
    model: jsonStringOrNull(m[2]),
    stop_reason: jsonStringOrNull(m[4]),
    stop_sequence: jsonStringOrNull(m[5]),
  };
  return anthropicResponseOf(top, [{ type: 'text', text: jsonStringOrNull(m[3]) as string }], usage);
}

/**
 * The usage Anthropic usually writes: input, cache writes and reads, optionally the cache writes
 * by TTL, output, optionally the service tier, in that order (server tool counts: another shape).
 * Each count read is captured once, so the captures are what JSON.parse would give.
 */
const COMMON_USAGE = new RegExp(
  `^\\{${W}${jsonMember('input_tokens', `(${JSON_COUNT})`)}` +
    `${jsonNext('cache_creation_input_tokens', `(${JSON_COUNT})`)}` +
    `${jsonNext('cache_read_input_tokens', `(${JSON_COUNT})`)}` +
    `(?:${jsonNext('cache_creation', jsonObjectOf(JSON_COUNT))})?${jsonNext('output_tokens', `(${JSON_COUNT})`)}` +
    `(?:${jsonNext('service_tier', JSON_STRING)})?${W}\\}$`,
);

/**
 * The usage a matched message's `usage` text gives, read from its common shape without JSON.parse
 * (whose fixed cost per call is most of reading a small object); undefined for another shape.
 */
export function plainUsage(usage: string): Usage | undefined {
  const m = COMMON_USAGE.exec(usage);
  if (!m) return undefined;
  return usageFromAnthropic({
    input_tokens: Number(m[1]),
    cache_creation_input_tokens: Number(m[2]),
    cache_read_input_tokens: Number(m[3]),
    output_tokens: Number(m[4]),
  });
}
