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
