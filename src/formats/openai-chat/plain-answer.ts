/**
 * A complete OpenAI chat answer with one text choice, in the shape OpenAI writes it (compact or
 * indented): `{"id","object":"chat.completion","created","model","choices":[{"index":0,
 * "message":{"role":"assistant","content","refusal"?,"annotations":[]?},"logprobs":null?,
 * "finish_reason"}],"usage":{…},"service_tier"?,"system_fingerprint"?}`. A relayed answer is read
 * only for its usage, so one in this shape is checked by one anchored pattern of JSON's own
 * grammar instead of JSON.parse building all of it (and one that a guard or a translation reads
 * is decoded from the pattern's captures); any other answer (tool calls, several choices, logprobs, another order
 * or member) is parsed in full.
 * @see https://platform.openai.com/docs/api-reference/chat/object
 */

import type { ChatResponse, Usage } from '../../core/canonical.js';
import {
  JSON_COUNT,
  JSON_NUMBER,
  JSON_STRING,
  JSON_STRING_OR_NULL,
  JSON_USAGE_OBJECT,
  JSON_WS as W,
  jsonMember,
  jsonNext,
  jsonObjectOf,
  jsonStringOrNull,
} from '../plain-json.js';
import { openaiResponseOf } from './response.js';
import { usageFromOpenai } from './usage.js';

/**
 * The answer's pattern: only the usage captured; or, for decoding, captures, in order, of id,
 * created, model, content, refusal (when present), finish_reason, usage (each capture costs the
 * usage reader ~20 % more time per match).
 */
function plainAnswerPattern(decode: boolean): RegExp {
  const c = (p: string) => (decode ? `(${p})` : p);
  const message =
    `\\{${W}${jsonMember('role', '"assistant"')}${jsonNext('content', c(JSON_STRING_OR_NULL))}` +
    `(?:${jsonNext('refusal', c(JSON_STRING_OR_NULL))})?(?:${jsonNext('annotations', `\\[${W}\\]`)})?${W}\\}`;
  const choice =
    `\\{${W}${jsonMember('index', '0')}${jsonNext('message', message)}` +
    `(?:${jsonNext('logprobs', 'null')})?${jsonNext('finish_reason', c(JSON_STRING_OR_NULL))}${W}\\}`;
  return new RegExp(
    `^${W}\\{${W}${jsonMember('id', c(JSON_STRING))}${jsonNext('object', '"chat\\.completion"')}` +
      `${jsonNext('created', c(JSON_NUMBER))}${jsonNext('model', c(JSON_STRING))}` +
      `${jsonNext('choices', `\\[${W}${choice}${W}\\]`)}${jsonNext('usage', `(${JSON_USAGE_OBJECT})`)}` +
      `(?:${jsonNext('service_tier', JSON_STRING_OR_NULL)})?` +
      `(?:${jsonNext('system_fingerprint', JSON_STRING_OR_NULL)})?${W}\\}${W}$`,
  );
}

const PLAIN_ANSWER_USAGE = plainAnswerPattern(false);
const PLAIN_ANSWER = plainAnswerPattern(true);

/**
 * The `usage` member's JSON text of an answer in that shape; undefined for any other text. A match
 * is valid JSON throughout (the pattern is JSON's grammar), names each top-level member once and
 * has a string `model`: the caller may relay it and parse only the usage.
 */
export function plainAnswerUsage(text: string): string | undefined {
  return PLAIN_ANSWER_USAGE.exec(text)?.[1];
}

/**
 * An answer in that shape decoded as decodeOpenaiResponse decodes its JSON, from the pattern's
 * captures (strings unescaped only when they hold an escape, the usage read by plainUsage when
 * it can be); undefined for any other text. For an output guard or a translation, which read the
 * text: parsing the whole answer was the largest item of a guarded request's own work.
 */
export function plainAnswer(text: string): ChatResponse | undefined {
  const m = PLAIN_ANSWER.exec(text);
  if (!m) return undefined;
  const usage = plainUsage(m[7]) ?? usageFromOpenai(JSON.parse(m[7]));
  const message = { content: jsonStringOrNull(m[4]), refusal: m[5] === undefined ? undefined : jsonStringOrNull(m[5]) };
  return openaiResponseOf(
    { id: jsonStringOrNull(m[1]), created: Number(m[2]), model: jsonStringOrNull(m[3]) },
    { message, finish_reason: jsonStringOrNull(m[6]) },
    usage,
  );
}

/**
 * The usage OpenAI usually writes: the three counts, then optionally the prompt's cached (and
 * audio) tokens and the completion's detail counts, in that order. Each count read is captured
 * once, so the captures are what JSON.parse would give (no duplicate can stand in this shape).
 */
const COMMON_USAGE = new RegExp(
  `^\\{${W}${jsonMember('prompt_tokens', `(${JSON_COUNT})`)}${jsonNext('completion_tokens', `(${JSON_COUNT})`)}` +
    `${jsonNext('total_tokens', JSON_COUNT)}(?:${jsonNext(
      'prompt_tokens_details',
      `\\{${W}${jsonMember('cached_tokens', `(${JSON_COUNT})`)}(?:${jsonNext('audio_tokens', JSON_COUNT)})?${W}\\}`,
    )})?(?:${jsonNext('completion_tokens_details', jsonObjectOf(JSON_COUNT))})?${W}\\}$`,
);

/**
 * The usage a matched answer's `usage` text gives, read from its common shape without JSON.parse
 * (whose fixed cost per call is most of reading a small object); undefined for another shape.
 */
export function plainUsage(usage: string): Usage | undefined {
  const m = COMMON_USAGE.exec(usage);
  if (!m) return undefined;
  return usageFromOpenai({
    prompt_tokens: Number(m[1]),
    completion_tokens: Number(m[2]),
    prompt_tokens_details: m[3] === undefined ? undefined : { cached_tokens: Number(m[3]) },
  });
}
