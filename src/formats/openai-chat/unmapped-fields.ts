import { type Json, isObject } from '../../core/json.js';
/**
 * Which top-level fields of an OpenAI chat request change the answer but have no canonical
 * representation. They are recorded in `ChatRequest.unmapped`: pass-through forwards them as they
 * are, while translation to another format refuses the request instead of dropping them.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */

/** Fields the canonical model carries (request.ts reads them). */
const MAPPED = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'stop',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'user',
  'reasoning_effort',
  'response_format',
]);

/**
 * Hints that change nothing about the generated text, so a translation drops them (and lists them
 * in `x-gateway-dropped-fields`): `store` (keep the completion for evals), `metadata` (dashboard
 * tags), `service_tier` (billing/latency tier), prompt-cache keys and retention, `safety_identifier`
 * (abuse monitoring), `prediction` (predicted output: speed only).
 */
const HINTS = new Set([
  'store',
  'metadata',
  'service_tier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'prompt_cache_options',
  'safety_identifier',
  'prediction',
]);

/** The hint fields `body` sends (with a value other than null). */
export function findHintFields(body: Json): string[] {
  return Object.keys(body).filter((f) => HINTS.has(f) && body[f] !== undefined && body[f] !== null);
}

/** Known fields without a canonical home: `true` when the value differs from the API default. */
const NON_DEFAULT: Record<string, (v: unknown) => boolean> = {
  n: (v) => v !== 1,
  logprobs: (v) => v === true,
  top_logprobs: (v) => v !== 0,
  logit_bias: (v) => !(isObject(v) && Object.keys(v).length === 0),
  presence_penalty: (v) => v !== 0,
  frequency_penalty: (v) => v !== 0,
  modalities: (v) => !(Array.isArray(v) && v.length === 1 && v[0] === 'text'),
  functions: (v) => !(Array.isArray(v) && v.length === 0),
};

/** Names of the top-level fields of `body` that carry a non-default, untranslatable value. */
export function findUnmappedFields(body: Json): string[] {
  const out: string[] = [];
  for (const field of Object.keys(body)) {
    const value = body[field];
    // An explicit null means "use the default" throughout the chat API.
    if (value === undefined || value === null || MAPPED.has(field) || HINTS.has(field)) continue;
    // Own properties only: a caller's `__proto__` or `hasOwnProperty` field is just an unknown field.
    const nonDefault = Object.hasOwn(NON_DEFAULT, field) ? NON_DEFAULT[field] : undefined;
    // `seed`, `audio`, `prediction`, `web_search_options`, `function_call` and any field we do
    // not know: present at all means it matters.
    if (nonDefault === undefined || nonDefault(value)) out.push(field);
  }
  return out;
}
