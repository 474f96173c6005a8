/**
 * Which top-level fields of a Responses request change the answer but have no canonical
 * representation (`unmapped`: pass-through forwards them, translation refuses them by name), and
 * which are hints that change nothing about the generated text (translation drops and lists them).
 * The nested ones (`text.verbosity`, `reasoning.summary`, a custom tool's grammar…) are decided
 * where those objects are decoded (request-decode.ts).
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */

import type { Json } from '../../core/json.js';

/** Fields the canonical model carries (request-decode.ts reads them). */
const MAPPED = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'text',
  'reasoning',
  'max_output_tokens',
  'temperature',
  'top_p',
  'user',
  'stream',
]);

/**
 * Hints: `store` (keep the response server-side; a translated conversation's state is the
 * gateway's), `include` (extra output data), `metadata` (dashboard tags), `service_tier`,
 * prompt-cache keys, retention and options, `safety_identifier` (abuse monitoring),
 * `stream_options` (obfuscation padding on stream events), `client_metadata` (Codex's session
 * bookkeeping), and `truncation: "disabled"` (the default: no context truncation).
 */
const HINTS = new Set([
  'store',
  'include',
  'metadata',
  'service_tier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'prompt_cache_options',
  'safety_identifier',
  'stream_options',
  'client_metadata',
]);

/** Known fields without a canonical home: `true` when the value differs from the API default. */
const NON_DEFAULT: Record<string, (v: unknown) => boolean> = {
  background: (v) => v !== false,
  top_logprobs: (v) => v !== 0,
  truncation: (v) => v !== 'disabled',
};

function sent(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** The hint fields `body` sends (with a value other than null). */
export function findHintFields(body: Json): string[] {
  const out = Object.keys(body).filter((f) => HINTS.has(f) && sent(body[f]));
  if (body.truncation === 'disabled') out.push('truncation');
  return out;
}

/**
 * Names of the top-level fields of `body` that carry a non-default, untranslatable value:
 * `background: true`, `conversation`, `previous_response_id` (the state layer expands it before a
 * translation), `prompt`, `max_tool_calls`, `top_logprobs`, `truncation: "auto"`,
 * `context_management`, `moderation`, and any field this gateway does not know.
 */
export function findUnmappedFields(body: Json): string[] {
  const out: string[] = [];
  for (const field of Object.keys(body)) {
    const value = body[field];
    if (!sent(value) || MAPPED.has(field) || HINTS.has(field)) continue;
    // Own properties only: a caller's `__proto__` or `hasOwnProperty` field is just an unknown field.
    const nonDefault = Object.hasOwn(NON_DEFAULT, field) ? NON_DEFAULT[field] : undefined;
    if (nonDefault === undefined || nonDefault(value)) out.push(field);
  }
  return out;
}
