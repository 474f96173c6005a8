/**
 * Redacting inside JSON text (tool-call arguments) without breaking it. Rules run on a *view* of
 * the JSON in which every escape sequence (`\n`, `\"`, `\u00e9`…) is blanked to spaces of the same
 * length: offsets stay aligned with the raw text, and `\nAKIA…` does not glue an `n` to a secret.
 * Redaction then replaces string content with the placeholder, and a number or literal token with
 * the placeholder as a JSON string, leaving quotes, braces, commas and whitespace alone — so valid
 * JSON stays valid. The lexer is incremental (its state carries across stream deltas) and
 * tolerant: on invalid JSON it still never splits an escape.
 */

import type { LabelledSpan } from './rules.js';

/** Per-character class (plain constants: `const enum` does not survive per-file transpilers). */
export const JsonClass = {
  /** Outside strings and scalars: punctuation, whitespace, the quotes themselves. */
  Struct: 0,
  StringChar: 1,
  /** The backslash of an escape. */
  EscapeStart: 2,
  /** The characters after the backslash (`n`, `u00e9`). */
  EscapeInner: 3,
  ScalarStart: 4,
  ScalarInner: 5,
} as const;
export type JsonClass = (typeof JsonClass)[keyof typeof JsonClass];

export interface JsonLexState {
  readonly mode: 'value' | 'string' | 'escape' | 'unicode' | 'scalar';
  /** Hex digits still expected in a `\u` escape. */
  readonly hexLeft: number;
}

export const JSON_START: JsonLexState = { mode: 'value', hexLeft: 0 };

export interface JsonLex {
  classes: Uint8Array;
  /** The text with escape sequences blanked (same length). */
  view: string;
  end: JsonLexState;
}

const SCALAR_CHAR = /[-+.0-9A-Za-z]/;
const HEX = /[0-9A-Fa-f]/;

export function lexJson(text: string, start: JsonLexState = JSON_START): JsonLex {
  const classes = new Uint8Array(text.length);
  let view = '';
  let { mode, hexLeft } = start;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    let cls: JsonClass;
    if (mode === 'scalar' && !SCALAR_CHAR.test(ch)) mode = 'value';
    if (mode === 'unicode' && !HEX.test(ch)) mode = 'string';
    switch (mode) {
      case 'value':
        if (ch === '"') {
          cls = JsonClass.Struct;
          mode = 'string';
        } else if (SCALAR_CHAR.test(ch)) {
          cls = JsonClass.ScalarStart;
          mode = 'scalar';
        } else cls = JsonClass.Struct;
        break;
      case 'scalar':
        cls = JsonClass.ScalarInner;
        break;
      case 'string':
        if (ch === '"') {
          cls = JsonClass.Struct;
          mode = 'value';
        } else if (ch === '\\') {
          cls = JsonClass.EscapeStart;
          mode = 'escape';
        } else cls = JsonClass.StringChar;
        break;
      case 'escape':
        cls = JsonClass.EscapeInner;
        if (ch === 'u') {
          mode = 'unicode';
          hexLeft = 4;
        } else mode = 'string';
        break;
      case 'unicode':
        cls = JsonClass.EscapeInner;
        if (--hexLeft === 0) mode = 'string';
        break;
    }
    classes[i] = cls;
    view += cls === JsonClass.EscapeStart || cls === JsonClass.EscapeInner ? ' ' : ch;
  }
  return { classes, view, end: { mode, hexLeft } };
}

/**
 * Whether text may be cut before index `i` (0 ≤ i ≤ length) without splitting an escape or a
 * number/literal: both halves must be redactable on their own.
 */
export function isSafeJsonCut(lex: JsonLex, i: number): boolean {
  if (i >= lex.classes.length) return lex.end.mode === 'value' || lex.end.mode === 'string';
  const c = lex.classes[i];
  return c !== JsonClass.EscapeInner && c !== JsonClass.ScalarInner;
}

const isInner = (c: number | undefined): boolean => c === JsonClass.EscapeInner || c === JsonClass.ScalarInner;
const isStringClass = (c: number | undefined): boolean =>
  c === JsonClass.StringChar || c === JsonClass.EscapeStart || c === JsonClass.EscapeInner;

/**
 * Replaces `spans` (sorted, non-overlapping, within `text`) JSON-safely. `classes` are `text`'s
 * own, from lexJson; `text` must not begin or end inside an escape or scalar (see isSafeJsonCut).
 */
export function redactJson(
  text: string,
  classes: Uint8Array,
  spans: readonly LabelledSpan[],
  placeholder: (label: string) => string,
): string {
  // Widen each span to whole escapes and whole scalars, then merge what now overlaps. Widening
  // never walks back over the previous span nor forward over what it covers, so thousands of
  // matches inside one long scalar cost one pass over it.
  const widened: LabelledSpan[] = [];
  for (const s of spans) {
    const last = widened[widened.length - 1];
    const floor = last ? last.end : 0;
    let a = s.start;
    while (a > floor && isInner(classes[a])) a--;
    let b = Math.max(s.end, floor);
    while (b < text.length && isInner(classes[b])) b++;
    // Stopped at the floor still inside an escape or scalar: it runs into the previous span.
    if (last && (a < last.end || (a === floor && isInner(classes[a])))) last.end = Math.max(last.end, b);
    else widened.push({ start: a, end: b, label: s.label });
  }
  let out = '';
  let pos = 0;
  for (const s of widened) {
    out += text.slice(pos, s.start);
    const p = placeholder(s.label);
    let i = s.start;
    while (i < s.end) {
      const c = classes[i];
      if (isStringClass(c)) {
        while (i < s.end && isStringClass(classes[i])) i++;
        out += p;
      } else if (c === JsonClass.ScalarStart || c === JsonClass.ScalarInner) {
        i++;
        while (i < s.end && classes[i] === JsonClass.ScalarInner) i++;
        out += `"${p}"`;
      } else {
        out += text[i];
        i++;
      }
    }
    pos = s.end;
  }
  return out + text.slice(pos);
}
