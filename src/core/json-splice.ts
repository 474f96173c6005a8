/**
 * Rewrite top-level members of a JSON object body without parsing and re-serialising it:
 * the upstream receives the caller's bytes unchanged except for the members we replace or add.
 * Assumes the input already passed JSON.parse (the body stage guarantees it).
 */

type Span = [start: number, end: number];

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

/** Spans of each top-level member's value, by key (the last one wins, as with JSON.parse). */
export function topLevelSpans(b: Uint8Array): Map<string, Span> {
  const spans = new Map<string, Span>();
  let i = skipWs(b, 0);
  if (b[i] !== 0x7b) throw new Error('not a JSON object');
  i = skipWs(b, i + 1);
  if (b[i] === 0x7d) return spans;
  for (;;) {
    const keyStart = i;
    i = skipString(b, i);
    const rawKey = Buffer.from(b.buffer, b.byteOffset + keyStart + 1, i - keyStart - 2).toString('utf8');
    const key = rawKey.includes('\\') ? (JSON.parse(`"${rawKey}"`) as string) : rawKey;
    i = skipWs(b, i);
    i = skipWs(b, i + 1); // past ':'
    const valueStart = i;
    i = skipValue(b, i);
    spans.set(key, [valueStart, i]);
    i = skipWs(b, i);
    if (b[i] === 0x2c) {
      i = skipWs(b, i + 1);
      continue;
    }
    return spans;
  }
}

/**
 * Replace existing top-level members' values and insert new members (as raw JSON text).
 * A key in `insert` that already exists is replaced instead.
 */
export function spliceTopLevel(
  body: Buffer,
  replace: Record<string, string>,
  insert: Record<string, string> = {},
): Buffer {
  const spans = topLevelSpans(body);
  const edits: Array<{ span: Span; text: string }> = [];
  const additions: string[] = [];
  for (const [key, text] of Object.entries({ ...insert, ...replace })) {
    const span = spans.get(key);
    if (span) edits.push({ span, text });
    else additions.push(`${JSON.stringify(key)}:${text}`);
  }
  edits.sort((a, b) => a.span[0] - b.span[0]);
  const parts: Buffer[] = [];
  let pos = 0;
  if (additions.length > 0) {
    const open = body.indexOf(0x7b) + 1;
    parts.push(body.subarray(0, open), Buffer.from(additions.join(',') + (spans.size > 0 ? ',' : '')));
    pos = open;
  }
  for (const { span, text } of edits) {
    parts.push(body.subarray(pos, span[0]), Buffer.from(text));
    pos = span[1];
  }
  parts.push(body.subarray(pos));
  return Buffer.concat(parts);
}
