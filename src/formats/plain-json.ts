/**
 * What the stream fast paths (each format's plain-*.ts) accept without JSON.parse, in one place:
 * a string whose JSON text is the string itself, and a count JSON.parse reads exactly. Pattern
 * sources, to be built into each format's anchored regex.
 */

/** A JSON string's content with nothing to decode: no quote, backslash or control character. */
export const PLAIN_STRING = String.raw`[^"\\\u0000-\u001f]*`;
/** A non-negative integer without a leading zero, at most 15 digits: always a safe integer. */
export const JSON_COUNT = '(?:0|[1-9][0-9]{0,14})';

const PLAIN = new RegExp(`^${PLAIN_STRING}$`);

/** Whether `text`, between quotes, is its own JSON string. */
export function isPlainString(text: string): boolean {
  return PLAIN.test(text);
}

// Complete answers (each format's plain-answer.ts): exact JSON grammar, so a match is JSON.

/** JSON's whitespace between tokens. */
export const JSON_WS = '[ \\t\\n\\r]*';
/** Any JSON string, quotes included: exactly the strings JSON.parse reads (escapes and all). */
export const JSON_STRING = String.raw`"[^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\u0000-\u001f]*)*"`;
/** Any JSON number. */
export const JSON_NUMBER = '-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?';
/** A string or null. */
export const JSON_STRING_OR_NULL = `(?:${JSON_STRING}|null)`;
/** A string, a number, true, false or null. */
export const JSON_SCALAR = `(?:${JSON_STRING}|${JSON_NUMBER}|true|false|null)`;

/** `"key": value`, spaced as JSON allows. `key` is plain (a pattern source, no escapes needed). */
export function jsonMember(key: string, value: string): string {
  return `"${key}"${JSON_WS}:${JSON_WS}${value}`;
}

/** `, "key": value`: the next member of an object, spaced as JSON allows. */
export function jsonNext(key: string, value: string): string {
  return `${JSON_WS},${JSON_WS}${jsonMember(key, value)}`;
}

/**
 * An object of any members whose values match `value`. Each member is followed by a comma and
 * another member, or by the end: the value pattern appears once, so nesting these stays small.
 */
export function jsonObjectOf(value: string): string {
  const member = `${JSON_STRING}${JSON_WS}:${JSON_WS}${value}${JSON_WS}`;
  return `\\{${JSON_WS}(?:${member}(?:,${JSON_WS}(?=")|(?=\\})))*\\}`;
}

/** An array of any elements matching `element` (which must start with `first`, a character class). */
export function jsonArrayOf(element: string, first: string): string {
  return `\\[${JSON_WS}(?:${element}${JSON_WS}(?:,${JSON_WS}(?=${first})|(?=\\])))*\\]`;
}

/**
 * A usage object as the providers write it: counts and strings, and objects of them (OpenAI's
 * `prompt_tokens_details`, Anthropic's `cache_creation`), whatever the members.
 */
export const JSON_USAGE_OBJECT = jsonObjectOf(`(?:${JSON_SCALAR}|${jsonObjectOf(JSON_SCALAR)})`);

/**
 * The value of a JSON string or null literal a pattern of this file matched: a string with no
 * escape is its text between the quotes (the pattern refused control characters); one with an
 * escape goes to JSON.parse.
 */
export function jsonStringOrNull(literal: string): string | null {
  if (literal === 'null') return null;
  return literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
}
