/**
 * Rewrite top-level members of a JSON object body without parsing and re-serialising it:
 * the upstream receives the caller's bytes unchanged except for the members we replace or add.
 * Assumes the input already passed JSON.parse (the body stage guarantees it).
 */

export type Span = [start: number, end: number];

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function skipWs(b: Uint8Array, i: number): number {
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i++;
  return i;
}

/** Index just past the string that starts at b[i] === '"'. */
function skipString(b: Uint8Array, i: number): number {
  i++;
  while (i < b.length) {
    const c = b[i];
    if (c === BACKSLASH) i += 2;
    else if (c === QUOTE) return i + 1;
    else i++;
  }
  throw new Error('unterminated string');
}

/** Index just past the value that starts at b[i]. */
function skipValue(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
    let depth = 0;
    while (i < b.length) {
      const d = b[i];
      if (d === QUOTE) {
        i = skipString(b, i);
        continue;
      }
      if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    throw new Error('unterminated container');
  }
  // number, true, false, null
  while (
    i < b.length &&
    b[i] !== 0x2c &&
    b[i] !== 0x7d &&
    b[i] !== 0x5d &&
    b[i] !== 0x20 &&
    b[i] !== 0x0a &&
    b[i] !== 0x0d &&
    b[i] !== 0x09
  )
    i++;
  return i;
}

/** Where a top-level member sits: its key's start, its value, and where the next member starts. */
interface Member {
  start: number;
  value: Span;
  /** End of the previous member's value, when there is one. */
  previousEnd?: number;
  /** Start of the next member, when there is one. */
  next?: number;
}

/**
 * Where a body's members are, as the strict parse found them (parse-json-strict.ts), 4 offsets per
 * member: the key's opening and closing quotes, the value's start and end. Valid for the very bytes
 * that were parsed, and only for them (the request context drops them when it replaces its body).
 */
export type MemberOffsets = Int32Array;

/** The value of `key` among known members (the last one, as JSON.parse keeps). */
function knownSpan(b: Uint8Array, offsets: MemberOffsets, key: string): Span | undefined {
  let found: Span | undefined;
  for (let k = 0; k < offsets.length; k += 4) {
    if (keyIs(b, offsets[k] + 1, offsets[k + 1], key)) found = [offsets[k + 2], offsets[k + 3]];
  }
  return found;
}

/** Whether the key whose raw text is b[start, end) is `key`: compared in place unless escaped or non-ASCII. */
function keyIs(b: Uint8Array, start: number, end: number, key: string): boolean {
  let plain = true;
  for (let i = start; i < end; i++) {
    if (b[i] === BACKSLASH || b[i] >= 0x80) {
      plain = false;
      break;
    }
  }
  if (!plain) return decodedKey(b, start, end) === key;
  if (end - start !== key.length) return false;
  for (let i = 0; i < key.length; i++) if (b[start + i] !== key.charCodeAt(i)) return false;
  return true;
}

/** The key whose raw text (without its quotes) is b[start, end), escapes decoded. */
function decodedKey(b: Uint8Array, start: number, end: number): string {
  const raw = Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('utf8');
  return raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
}

/** Each member of the object at b[at] (the body's by default), by key (the last one wins, as with JSON.parse). */
function topLevelMembers(b: Uint8Array, at = skipWs(b, 0)): Map<string, Member> {
  const members = new Map<string, Member>();
  let i = at;
  if (b[i] !== 0x7b) throw new Error('not a JSON object');
  i = skipWs(b, i + 1);
  if (b[i] === 0x7d) return members;
  let previous: Member | undefined;
  for (;;) {
    const keyStart = i;
    i = skipString(b, i);
    const key = decodedKey(b, keyStart + 1, i - 1);
    i = skipWs(b, i);
    i = skipWs(b, i + 1); // past ':'
    const valueStart = i;
    i = skipValue(b, i);
    const member: Member = { start: keyStart, value: [valueStart, i] };
    if (previous) member.previousEnd = previous.value[1];
    members.set(key, member);
    previous = member;
    i = skipWs(b, i);
    if (b[i] === 0x2c) {
      i = skipWs(b, i + 1);
      member.next = i;
      continue;
    }
    return members;
  }
}

/** Spans of each top-level member's value, by key (the last one wins, as with JSON.parse). */
export function topLevelSpans(b: Uint8Array): Map<string, Span> {
  const spans = new Map<string, Span>();
  for (const [key, m] of topLevelMembers(b)) spans.set(key, m.value);
  return spans;
}

/** Spans of the values of the members of the object whose `{` is at b[at], by key. */
export function objectSpans(b: Uint8Array, at: number): Map<string, Span> {
  const spans = new Map<string, Span>();
  for (const [key, m] of topLevelMembers(b, at)) spans.set(key, m.value);
  return spans;
}

/** Spans of the elements of the array whose `[` is at b[at]. */
export function arrayElementSpans(b: Uint8Array, at: number): Span[] {
  if (b[at] !== 0x5b) throw new Error('not a JSON array');
  const spans: Span[] = [];
  let i = skipWs(b, at + 1);
  while (i < b.length && b[i] !== 0x5d) {
    const end = skipValue(b, i);
    spans.push([i, end]);
    i = skipWs(b, end);
    if (b[i] === 0x2c) i = skipWs(b, i + 1);
  }
  return spans;
}

/** The bytes with each span replaced by its text (spans in order, not overlapping). */
export function replaceSpans(b: Buffer, edits: ReadonlyArray<{ span: Span; text: string }>): Buffer {
  const parts: Buffer[] = [];
  let pos = 0;
  for (const { span, text } of edits) {
    parts.push(b.subarray(pos, span[0]), Buffer.from(text));
    pos = span[1];
  }
  parts.push(b.subarray(pos));
  return Buffer.concat(parts);
}

/** The body without these top-level members (every occurrence), its other bytes as they are. */
export function removeTopLevel(body: Buffer, keys: readonly string[]): Buffer {
  return removeTopLevelWhere(body, (key) => keys.includes(key));
}

/**
 * The body without the top-level members whose key `drop` picks (every occurrence), its other bytes
 * as they are. One pass when nothing is picked; `drop` may see a key more than once.
 */
export function removeTopLevelWhere(body: Buffer, drop: (key: string) => boolean): Buffer {
  for (const [key, m] of topLevelMembers(body)) {
    if (!drop(key)) continue;
    // With its following comma, or (the last member) the comma before it.
    const [from, to] = m.next !== undefined ? [m.start, m.next] : [m.previousEnd ?? m.start, m.value[1]];
    return removeTopLevelWhere(Buffer.concat([body.subarray(0, from), body.subarray(to)]), drop);
  }
  return body;
}

/**
 * Replace existing top-level members' values and insert new members (as raw JSON text).
 * A key in `insert` that already exists is replaced instead. `known`: where `body`'s members are,
 * when its strict parse said so.
 */
export function spliceTopLevel(
  body: Buffer,
  replace: Record<string, string>,
  insert: Record<string, string> = {},
  known?: MemberOffsets,
): Buffer {
  // Known members are searched for the one or two keys edited: no map of every key is built.
  const spans = known ? undefined : topLevelSpans(body);
  const edits: Array<{ span: Span; text: string }> = [];
  const additions: string[] = [];
  const edit = (key: string, text: string) => {
    const span = spans ? spans.get(key) : knownSpan(body, known!, key);
    if (span) edits.push({ span, text });
    else additions.push(`${JSON.stringify(key)}:${text}`);
  };
  // In the order of `{ ...insert, ...replace }`: insert's keys (replace's text winning), then replace's own.
  for (const key in insert) edit(key, Object.hasOwn(replace, key) ? replace[key] : insert[key]);
  for (const key in replace) if (!Object.hasOwn(insert, key)) edit(key, replace[key]);
  const hasMembers = spans ? spans.size > 0 : known!.length > 0;
  edits.sort((a, b) => a.span[0] - b.span[0]);
  const parts: Buffer[] = [];
  let pos = 0;
  if (additions.length > 0) {
    const open = body.indexOf(0x7b) + 1;
    parts.push(body.subarray(0, open), Buffer.from(additions.join(',') + (hasMembers ? ',' : '')));
    pos = open;
  }
  for (const { span, text } of edits) {
    parts.push(body.subarray(pos, span[0]), Buffer.from(text));
    pos = span[1];
  }
  parts.push(body.subarray(pos));
  return Buffer.concat(parts);
}
