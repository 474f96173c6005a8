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
