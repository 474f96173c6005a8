/**
 * Seeded random texts for the stream fast-path tests (each format's plain-*.ts): the same texts
 * on every run, built from pieces that JSON must escape (quotes, backslashes, controls) and pieces
 * that look like the end of the shape a fast path reads.
 */

/** Pieces every fast path's texts are built from: plain text, and what JSON must escape or encode. */
export const JSON_TEXT_PIECES: readonly string[] = [
  'a',
  ' ',
  'tok',
  '"',
  '\\',
  '/',
  '\n',
  '\u0000',
  '\u001f',
  'é',
  '漢',
  '🙂',
];

/** A seeded generator in [0, 1): the same sequence for the same seed. */
export function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

/** Up to five pieces of `alphabet`, picked by `next`. */
export function seededText(next: () => number, alphabet: readonly string[]): string {
  let text = '';
  const len = Math.floor(next() * 6);
  for (let i = 0; i < len; i++) text += alphabet[Math.floor(next() * alphabet.length)];
  return text;
}
