/**
 * Cutting a text so that BPE stays linear in its length.
 *
 * The tokenizers split text into words (a run of letters, of punctuation, of whitespace, digits by
 * threes) and run BPE on each word; BPE on one word of length L costs O(L²) or worse, so a 200 KB
 * word, or 256 KiB of `A`, took tens of seconds. Runs longer than MAX_RUN (of whitespace, or
 * of anything but whitespace and digits) are therefore cut every MAX_RUN characters and the
 * pieces counted one by one. Ordinary text has no such run and is counted in one piece, exactly as
 * before; a cut run counts within about one token per cut of what it counted whole (128 letters
 * are already several tokens).
 */

/** Longest run of one class given to the tokenizer in one piece. */
export const MAX_RUN = 128;

// The tokenizers' words never span a whitespace/non-whitespace boundary (but for one leading
// space) nor contain a digit (digits go three at a time), so a run of non-space non-digits or of
// whitespace bounds them. Matched only from a run's start (the lookbehinds), the search is linear.
const LONG_RUN = new RegExp(`(?<![^\\s\\p{N}])[^\\s\\p{N}]{${MAX_RUN},}|(?<!\\s)\\s{${MAX_RUN},}`, 'gu');

const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** The text in pieces, none with a run longer than MAX_RUN (the text itself when it has none). */
export function bpePieces(text: string): string[] {
  const pieces: string[] = [];
  let from = 0;
  LONG_RUN.lastIndex = 0;
  for (let m = LONG_RUN.exec(text); m; m = LONG_RUN.exec(text)) {
    const runEnd = m.index + m[0].length;
    for (let cut = m.index + MAX_RUN; cut < runEnd; cut += MAX_RUN) {
      // Never between the halves of a surrogate pair.
      const at = isLowSurrogate(text.charCodeAt(cut)) ? cut - 1 : cut;
      pieces.push(text.slice(from, at));
      from = at;
    }
  }
  pieces.push(text.slice(from));
  return pieces;
}

/** Counts with `count` piece by piece (see bpePieces). */
export function countInPieces(text: string, count: (piece: string) => number): number {
  let n = 0;
  for (const p of bpePieces(text)) if (p.length > 0) n += count(p);
  return n;
}
