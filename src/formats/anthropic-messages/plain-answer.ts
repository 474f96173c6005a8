/**
 * A complete Anthropic message of text blocks, in the shape Anthropic writes it: `{"id",
 * "type":"message","role":"assistant","model","content":[{"type":"text","text"}…],"stop_reason",
 * "stop_sequence","usage":{…}}`. A relayed answer is read only for its usage, so one in this shape
 * is checked by one anchored pattern of JSON's own grammar instead of JSON.parse building all of
 * it; any other answer (thinking, tool use, citations, another order or member) is parsed in full.
 * @see https://docs.anthropic.com/en/api/messages
 */

import type { Usage } from '../../core/canonical.js';
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
} from '../plain-json.js';
import { usageFromAnthropic } from './usage.js';

const TEXT_BLOCK = `\\{${W}${jsonMember('type', '"text"')}${jsonNext('text', JSON_STRING)}${W}\\}`;
const PLAIN_ANSWER = new RegExp(
  `^${W}\\{${W}${jsonMember('id', JSON_STRING)}${jsonNext('type', '"message"')}` +
    `${jsonNext('role', '"assistant"')}${jsonNext('model', JSON_STRING)}` +
    `${jsonNext('content', jsonArrayOf(TEXT_BLOCK, '\\{'))}` +
    `${jsonNext('stop_reason', JSON_STRING_OR_NULL)}${jsonNext('stop_sequence', JSON_STRING_OR_NULL)}` +
    `${jsonNext('usage', `(${JSON_USAGE_OBJECT})`)}${W}\\}${W}$`,
);

/**
 * The `usage` member's JSON text of a message in that shape; undefined for any other text. A match
 * is valid JSON throughout (the pattern is JSON's grammar), names each top-level member once and
 * has a string `model`: the caller may relay it and parse only the usage.
 */
export function plainAnswerUsage(text: string): string | undefined {
  return PLAIN_ANSWER.exec(text)?.[1];
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
