/**
 * Caller-controlled text in logs and traces (a `model` value, a path) is bounded: a 1 MB model
 * name must not become a 1 MB log line or span attribute, nor keep its request alive in the trace
 * queue. Kept with a marker saying how much was cut.
 */

/** Characters kept of one log field or span attribute. */
export const MAX_FIELD_CHARS = 1024;

/** At most `max` characters of `s` (not splitting a surrogate pair), marked when cut. */
export function boundField(s: string, max = MAX_FIELD_CHARS): string {
  if (s.length <= max) return s;
  let end = max;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  // A fresh copy: a slice would keep the whole original string alive (V8 sliced strings).
  const head = Buffer.from(s.slice(0, end), 'utf16le').toString('utf16le');
  return `${head}…[truncated ${s.length - end} chars]`;
}

/**
 * For the readable log: control characters written as escapes, so a field can neither start a
 * forged line nor send terminal escape sequences.
 */
export function escapeControls(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (ch) => {
    if (ch === '\n') return '\\n';
    if (ch === '\r') return '\\r';
    if (ch === '\t') return '\\t';
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
