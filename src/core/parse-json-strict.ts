/**
 * JSON.parse with two checks it cannot make, done first in one linear pass over the bytes:
 * - nesting deeper than MAX_JSON_DEPTH is refused before anything (ours or a library's) recurses
 *   into it;
 * - a duplicate key, in any object, is refused: JSON.parse keeps the last duplicate, a provider
 *   may keep the first, so `{"model":"a","model":"b"}` could be authorised as one model and
 *   served as another, and text in a first duplicate would pass input guardrails unread (they
 *   read every string of the body, unknown fields and tool schemas included).
 *
 * The pass is a tolerant tokenizer over the raw bytes: long strings are skipped with indexOf,
 * keys are compared in place (decoded only when escaped), nothing is allocated per value, and
 * JSON.parse still has the last word on what is valid JSON.
 */

import { GatewayError } from './errors.js';
import type { MemberOffsets } from './json-splice.js';

/** Deepest nesting accepted (objects and arrays; the body itself is level 1). */
export const MAX_JSON_DEPTH = 128;

/**
 * Checks depth and duplicate keys (a 400 GatewayError naming the field), then parses; anything that
 * is not JSON is `invalid_json`. Also says where the members of an object body are (`undefined` for
 * any other value): the walk finds them anyway, and a pass-through splices the body from them
 * (json-splice.ts) instead of walking every byte of its messages again.
 */
export function parseJsonStrictMembers(
  body: Buffer,
  maxDepth = MAX_JSON_DEPTH,
): { value: unknown; members: MemberOffsets | undefined } {
  const members = scanJson(body, maxDepth);
  try {
    return { value: JSON.parse(body.toString('utf8')), members };
  } catch {
    throw notJson();
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
/** Strings up to this long (keys, roles, types) are walked byte by byte: cheaper than indexOf. */
const SHORT_STRING = 16;
/** Objects with more keys than this switch from in-place compares to a Set. */
const SMALL_OBJECT = 16;
const EMPTY = Buffer.alloc(0);

function notJson(): GatewayError {
  return new GatewayError('invalid_json', 'The request body is not valid JSON.');
}

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipWs(b: Buffer, i: number): number {
  while (i < b.length && isWs(b[i])) i++;
  return i;
}

/** Index just past the string opening at b[i] (a quote). */
function skipString(b: Buffer, i: number): number {
  let j = i + 1;
  const walkEnd = Math.min(b.length, j + SHORT_STRING);
  while (j < walkEnd) {
    const c = b[j];
    if (c === QUOTE) return j + 1;
    j += c === BACKSLASH ? 2 : 1;
  }
  // A long string: jump from quote to quote. j starts a character (never inside an escape), so
  // a quote is escaped only by an odd run of backslashes that starts at or after j.
  let q = j - 1;
  for (;;) {
    q = b.indexOf(QUOTE, q + 1);
    if (q < 0) throw notJson();
    let k = q - 1;
    while (k >= j && b[k] === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
  }
}

/** A number or literal: up to the next delimiter (JSON.parse checks its spelling). */
function skipScalar(b: Buffer, i: number): number {
  const start = i;
  while (i < b.length) {
    const c = b[i];
    if (
      c === COMMA ||
      c === CLOSE_OBJECT ||
      c === CLOSE_ARRAY ||
      c === COLON ||
      c === QUOTE ||
      c === OPEN_OBJECT ||
      c === OPEN_ARRAY ||
      isWs(c)
    )
      break;
    i++;
  }
  if (i === start) throw notJson();
  return i;
}

/** The key whose raw text (without quotes) is b[start, end). */
function decodeKey(b: Buffer, start: number, end: number): string {
  const raw = b.toString('utf8', start, end);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    throw notJson();
  }
}

/**
 * Escaped or non-ASCII keys are compared decoded: `"\u0061"` is `"a"`, and two different invalid
 * UTF-8 sequences decode to the same replacement character.
 */
function needsDecoding(b: Buffer, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (b[k] === BACKSLASH || b[k] >= 0x80) return true;
  return false;
}

function sameBytes(b: Buffer, x: number, y: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (b[x + k] !== b[y + k]) return false;
  return true;
}

/**
 * What is known about each open object or array, by depth index (0 = the body). Objects keep
 * their keys' raw offsets in `seen`, stacked (an object's keys follow its parent's), or, past
 * SMALL_OBJECT keys or from the first key that needs decoding, a Set of decoded keys.
 */
class Scan {
  readonly isObject: Uint8Array;
  /** Element index (arrays): for error paths. */
  readonly index: Int32Array;
  /** The current member's key (objects): raw offsets without the quotes, for error paths. */
  readonly keyStart: Int32Array;
  readonly keyEnd: Int32Array;
  readonly seenFrom: Int32Array;
  readonly seenCount: Int32Array;
  readonly seenSet: Array<Set<string> | undefined> = [];
  seen = new Int32Array(256);
  /** The body's own members (an object body), 4 offsets each: the key's quotes, the value's start and end. */
  top = new Int32Array(64);
  topCount = 0;
  b: Buffer = EMPTY;

  constructor(readonly maxDepth: number) {
    this.isObject = new Uint8Array(maxDepth);
    this.index = new Int32Array(maxDepth);
    this.keyStart = new Int32Array(maxDepth);
    this.keyEnd = new Int32Array(maxDepth);
    this.seenFrom = new Int32Array(maxDepth + 1);
    this.seenCount = new Int32Array(maxDepth);
  }

  open(d: number, isObject: boolean): void {
    this.isObject[d] = isObject ? 1 : 0;
    this.index[d] = 0;
    this.seenCount[d] = 0;
    this.seenSet[d] = undefined;
    // Where the next object's keys go: after this one's (set as keys arrive).
    this.seenFrom[d + 1] = this.seenFrom[d];
  }

  /** Records key b[start, end) of object d, refusing a duplicate. */
  unique(d: number, start: number, end: number): void {
    const b = this.b;
    let set = this.seenSet[d];
    if (set === undefined) {
      const from = this.seenFrom[d];
      const count = this.seenCount[d];
      if (count < SMALL_OBJECT && !needsDecoding(b, start, end)) {
        const len = end - start;
        for (let k = from; k < from + 2 * count; k += 2) {
          if (this.seen[k + 1] - this.seen[k] === len && sameBytes(b, this.seen[k], start, len))
            this.duplicate(d, start, end);
        }
        const top = from + 2 * count;
        this.seen = withRoom(this.seen, top + 2);
        this.seen[top] = start;
        this.seen[top + 1] = end;
        this.seenCount[d] = count + 1;
        this.seenFrom[d + 1] = top + 2;
        return;
      }
      set = new Set();
      for (let k = from; k < from + 2 * count; k += 2) set.add(decodeKey(b, this.seen[k], this.seen[k + 1]));
      this.seenSet[d] = set;
    }
    const key = decodeKey(b, start, end);
    if (set.has(key)) this.duplicate(d, start, end);
    set.add(key);
  }

  /** A member of the body opens: key quotes at `keyAt` and `keyEnd`, value at `valueStart` (its end comes later). */
  topMember(keyAt: number, keyEnd: number, valueStart: number): void {
    const at = 4 * this.topCount;
    this.top = withRoom(this.top, at + 4);
    this.top[at] = keyAt;
    this.top[at + 1] = keyEnd;
    this.top[at + 2] = valueStart;
    this.top[at + 3] = valueStart;
    this.topCount++;
  }

  duplicate(d: number, start: number, end: number): never {
    let at = '';
    for (let p = 0; p < d; p++) {
      if (this.isObject[p] === 0) at += `[${this.index[p]}]`;
      else {
        const key = decodeKey(this.b, this.keyStart[p], this.keyEnd[p]);
        at += at === '' ? key : `.${key}`;
      }
    }
    const key = decodeKey(this.b, start, end);
    at = at === '' ? key : `${at}.${key}`;
    throw new GatewayError(
      'invalid_request',
      `The request body has the key '${at}' more than once; send each key once.`,
      { param: at },
    );
  }
}

/** `a`, or a copy twice its size when it holds fewer than `length` entries. */
function withRoom(a: Int32Array<ArrayBuffer>, length: number): Int32Array<ArrayBuffer> {
  if (length <= a.length) return a;
  const grown = new Int32Array(a.length * 2);
  grown.set(a);
  return grown;
}

let scratch: Scan | undefined;

/** Reads `"key" :` at i in object d; returns where the value starts. */
function member(s: Scan, d: number, i: number): number {
  const b = s.b;
  if (b[i] !== QUOTE) throw notJson();
  const end = skipString(b, i);
  s.keyStart[d] = i + 1;
  s.keyEnd[d] = end - 1;
  s.unique(d, i + 1, end - 1);
  i = skipWs(b, end);
  if (b[i] !== COLON) throw notJson();
  const valueStart = skipWs(b, i + 1);
  if (d === 0) s.topMember(s.keyStart[0] - 1, s.keyEnd[0], valueStart);
  return valueStart;
}

/**
 * The checking pass on its own: throws for too deep a nesting, a duplicate key or broken structure.
 * Returns where an object body's members are.
 */
export function scanJson(b: Buffer, maxDepth = MAX_JSON_DEPTH): MemberOffsets | undefined {
  // One scratch state, reused: the pass is synchronous, and every field is set when a level opens.
  const s = maxDepth === scratch?.maxDepth ? scratch : (scratch = new Scan(maxDepth));
  s.b = b;
  s.topCount = 0;
  try {
    walk(s, maxDepth);
    return b[skipWs(b, 0)] === OPEN_OBJECT ? s.top.slice(0, 4 * s.topCount) : undefined;
  } finally {
    // Nothing of this body is kept alive.
    s.b = EMPTY;
    s.seenSet.length = 0;
  }
}

function walk(s: Scan, maxDepth: number): void {
  const b = s.b;
  let depth = 0;
  let i = skipWs(b, 0);

  for (;;) {
    // A value starts at i.
    const c = b[i];
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth >= maxDepth)
        throw new GatewayError('invalid_request', `The request body nests deeper than ${maxDepth} levels.`);
      const isObject = c === OPEN_OBJECT;
      const d = depth++;
      s.open(d, isObject);
      i = skipWs(b, i + 1);
      if (b[i] === (isObject ? CLOSE_OBJECT : CLOSE_ARRAY)) {
        depth--;
        i++;
      } else {
        if (isObject) i = member(s, d, i);
        continue;
      }
    } else if (c === QUOTE) {
      i = skipString(b, i);
    } else if (i < b.length) {
      i = skipScalar(b, i);
    } else {
      throw notJson();
    }

    // After a value: close containers, or move on to the next member or element.
    for (;;) {
      // A member of the body ends here (its value's last byte is just before i).
      if (depth === 1 && s.topCount > 0) s.top[4 * s.topCount - 1] = i;
      i = skipWs(b, i);
      if (depth === 0) return; // trailing bytes, if any, are JSON.parse's to refuse
      const d = depth - 1;
      const isObject = s.isObject[d] === 1;
      const e = b[i];
      if (e === COMMA) {
        i = skipWs(b, i + 1);
        if (isObject) i = member(s, d, i);
        else s.index[d]++;
        break;
      }
      if (e !== (isObject ? CLOSE_OBJECT : CLOSE_ARRAY)) throw notJson();
      depth--;
      i++;
    }
  }
}
