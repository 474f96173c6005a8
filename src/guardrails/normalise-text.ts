/**
 * The copy of a text that pattern rules match on: NFKC (fullwidth letters, ligatures, compatibility
 * digits become their plain forms) with default-ignorable characters removed (zero-width space and
 * joiners, soft hyphen, word joiner, BOM, variation selectors, bidi controls), so `pass\u200Bword`
 * and `ｐａｓｓｗｏｒｄ` read as `password`. The caller's text itself is never changed here.
 *
 * A match is mapped back to the original by segments: a segment is one character with the
 * combining marks (and Hangul vowel/final jamo) that follow it, normalised on its own. A match
 * covers every original segment it touches, so a redaction replaces whole characters and the
 * invisible characters inside the match, and nothing outside it.
 *
 * Cost: pure ASCII is never touched (one native scan); other text costs one native normalize().
 * The per-segment map is only built for a text that both changes under normalisation and matched.
 */

const NON_ASCII = /[^\x00-\x7f]/;
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;
const IGNORABLES = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * One segment per match: an ASCII run not followed by a mark (copied as is), else one character
 * with what composes onto it under NFKC (marks, Hangul medial/final jamo), else stray marks.
 */
const SEGMENT = new RegExp(
  String.raw`[\x00-\x7f]+(?![\p{M}\u1160-\u11ff\ud7b0-\ud7ff])|` +
    String.raw`[^\p{M}\u1160-\u11ff\ud7b0-\ud7ff][\p{M}\u1160-\u11ff\ud7b0-\ud7ff]*|` +
    String.raw`[\p{M}\u1160-\u11ff\ud7b0-\ud7ff]+`,
  'gsuy',
);

/** The text rules match on, or undefined when it is the text itself (the common case). */
export function normalisedForMatching(text: string): string | undefined {
  if (!NON_ASCII.test(text)) return undefined;
  let n = text.normalize('NFKC');
  if (IGNORABLE.test(n)) n = n.replace(IGNORABLES, '');
  return n === text ? undefined : n;
}

export interface MappedText {
  /** The normalised text. */
  text: string;
  /** For each index of `text`: the original segment it came from, [start, end). */
  readonly from: Int32Array;
  readonly to: Int32Array;
}

/** The normalised text with its map back to `original` (linear in the length). */
export function mapNormalised(original: string): MappedText {
  const parts: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  SEGMENT.lastIndex = 0;
  for (let m = SEGMENT.exec(original); m; m = SEGMENT.exec(original)) {
    const seg = m[0];
    const start = m.index;
    if (!NON_ASCII.test(seg)) {
      // An ASCII run is its own normal form and maps one to one.
      parts.push(seg);
      for (let i = start; i < start + seg.length; i++) {
        from.push(i);
        to.push(i + 1);
      }
      continue;
    }
    const out = normaliseSegment(seg);
    parts.push(out);
    for (let i = 0; i < out.length; i++) {
      from.push(start);
      to.push(start + seg.length);
    }
  }
  return { text: parts.join(''), from: Int32Array.from(from), to: Int32Array.from(to) };
}

function normaliseSegment(seg: string): string {
  const n = seg.normalize('NFKC');
  return IGNORABLE.test(n) ? n.replace(IGNORABLES, '') : n;
}

/** The original range a non-empty match [start, end) of the normalised text covers. */
export function originalRange(mapped: MappedText, start: number, end: number): { start: number; end: number } {
  return { start: mapped.from[start]!, end: mapped.to[end - 1]! };
}
