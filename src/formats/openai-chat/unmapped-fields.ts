/**
 * Which top-level fields of an OpenAI chat request change the answer but have no canonical
 * representation. They are recorded in `ChatRequest.unmapped`: pass-through forwards them as they
 * are, while translation to another format refuses the request instead of dropping them.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */

type Json = Record<string, unknown>;

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
]);

/**
 * OpenAI-platform bookkeeping that changes nothing about the generated text, so dropping it when
 * translating is safe: `store` (keep the completion for evals/distillation), `metadata` (tags for
 * the dashboard), `service_tier` (billing/latency tier).
 */
const IGNORABLE = new Set(['store', 'metadata', 'service_tier']);

/** Known fields without a canonical home: `true` when the value differs from the API default. */
const NON_DEFAULT: Record<string, (v: unknown) => boolean> = {
  n: (v) => v !== 1,
  logprobs: (v) => v === true,
  top_logprobs: (v) => v !== 0,
  logit_bias: (v) => !(isObject(v) && Object.keys(v).length === 0),
  presence_penalty: (v) => v !== 0,
  frequency_penalty: (v) => v !== 0,
  response_format: (v) => !(isObject(v) && v.type === 'text'),
  modalities: (v) => !(Array.isArray(v) && v.length === 1 && v[0] === 'text'),
  functions: (v) => !(Array.isArray(v) && v.length === 0),
};

/** Names of the top-level fields of `body` that carry a non-default, untranslatable value. */
export function findUnmappedFields(body: Json): string[] {
  const out: string[] = [];
  for (const [field, value] of Object.entries(body)) {
    // An explicit null means "use the default" throughout the chat API.
    if (value === undefined || value === null || MAPPED.has(field) || IGNORABLE.has(field)) continue;
    // Own properties only: a caller's `__proto__` or `hasOwnProperty` field is just an unknown field.
    const nonDefault = Object.hasOwn(NON_DEFAULT, field) ? NON_DEFAULT[field] : undefined;
    // `seed`, `audio`, `prediction`, `web_search_options`, `function_call` and any field we do
    // not know: present at all means it matters.
    if (nonDefault === undefined || nonDefault(value)) out.push(field);
  }
  return out;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
