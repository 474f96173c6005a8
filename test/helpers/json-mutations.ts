import { expect } from 'vitest';

/**
 * Seeded one-character edits of a JSON text, for the complete-answer fast-path tests: each edit
 * inserts, deletes or replaces one character with one JSON gives meaning to (or a near miss of
 * one), so most results are no longer JSON and a few are JSON of another shape.
 */

const CHARS = [
  '"',
  '\\',
  ',',
  ':',
  '{',
  '}',
  '[',
  ']',
  ' ',
  '\n',
  '0',
  '1',
  '-',
  '.',
  'e',
  'u',
  'n',
  'x',
  '\u0001',
  'é',
];

export function mutate(text: string, next: () => number): string {
  const at = Math.floor(next() * text.length);
  const ch = CHARS[Math.floor(next() * CHARS.length)];
  const op = next();
  if (op < 1 / 3) return text.slice(0, at) + ch + text.slice(at);
  if (op < 2 / 3) return text.slice(0, at) + text.slice(at + 1);
  return text.slice(0, at) + ch + text.slice(at + 1);
}

/** JSON.parse's verdict: the value, or undefined when the text is not JSON. */
export function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What a complete answer's fast path hands on: the usage JSON.parse reads from its text, or undefined. */
export function fastUsage(usageOf: (text: string) => string | undefined, text: string): unknown {
  const usage = usageOf(text);
  return usage === undefined ? undefined : JSON.parse(usage);
}

/**
 * `count` seeded one-character edits of texts from `make`, through a complete answer's fast path
 * (`usageOf`: the usage member's JSON text, or undefined): whatever it takes must be JSON, with a
 * string `model` and the usage JSON.parse reads. Returns how many edits JSON.parse refused and how
 * many the fast path took, for the caller to check that both kinds were tried.
 */
export function checkEdits(
  make: (next: () => number) => string,
  usageOf: (text: string) => string | undefined,
  next: () => number,
  count = 20_000,
): { refused: number; taken: number } {
  const read = (text: string) => {
    const usage = usageOf(text);
    return usage === undefined ? undefined : { model: 'string', usage: JSON.parse(usage) as unknown };
  };
  const readParsed = (parsed: unknown) => {
    const p = parsed as { model?: unknown; usage?: unknown };
    return { model: typeof p.model, usage: p.usage };
  };
  return checkReadEdits(make, read, readParsed, next, count);
}

/**
 * `count` seeded one-character edits of texts from `make`, through a fast reader (`read`: what it
 * reads, or undefined for a text it leaves to JSON.parse): whatever it reads must be JSON, read as
 * `readParsed` reads the parsed value. Returns how many edits JSON.parse refused and how many the
 * reader took, for the caller to check that both kinds were tried.
 */
export function checkReadEdits<U>(
  make: (next: () => number) => string,
  read: (text: string) => U | undefined,
  readParsed: (parsed: unknown) => U | undefined,
  next: () => number,
  count = 20_000,
): { refused: number; taken: number } {
  let refused = 0;
  let taken = 0;
  for (let n = 0; n < count; n++) {
    const text = mutate(make(next), next);
    const got = read(text);
    const parsed = parsedOrUndefined(text);
    if (parsed === undefined) refused++;
    if (got === undefined) continue;
    taken++;
    expect(parsed, text).toBeDefined();
    expect(got, text).toEqual(readParsed(parsed));
  }
  return { refused, taken };
}

/**
 * `count` seeded texts from `make`, all of which a fast reader must take, reading each as
 * `readParsed` reads its JSON.
 */
export function checkSeededReads<U>(
  make: (next: () => number) => string,
  read: (text: string) => U | undefined,
  readParsed: (parsed: unknown) => U | undefined,
  next: () => number,
  count = 5000,
): void {
  for (let n = 0; n < count; n++) {
    const text = make(next);
    const got = read(text);
    expect(got, text).toBeDefined();
    expect(got, text).toEqual(readParsed(JSON.parse(text)));
  }
}

/** checkReadEdits for a format's plain usage reader over usage texts: how many it read. */
export function checkUsageEdits<U>(
  make: (next: () => number) => string,
  read: (text: string) => U | undefined,
  readParsed: (parsed: unknown) => U | undefined,
  next: () => number,
  count = 20_000,
): number {
  return checkReadEdits(make, read, readParsed, next, count).taken;
}
