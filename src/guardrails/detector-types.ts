/** What a built-in detector is (detectors.ts lists them), and the regex scan most of them share. */

export type DetectorName =
  | 'email'
  | 'phone'
  | 'credit_card'
  | 'iban'
  | 'aws_access_key'
  | 'private_key'
  | 'bearer_token';

export interface Span {
  start: number;
  end: number;
}

export interface Detector {
  readonly name: DetectorName;
  readonly maxSpan: number;
  /**
   * Something every match needs (a literal or a few characters its own pattern requires), so a
   * text without it is known to have no match after one quick scan: almost every text. No flags.
   */
  readonly cue: RegExp;
  find(text: string): Span[];
}

export const DETECTOR_NAMES: readonly DetectorName[] = [
  'email',
  'phone',
  'credit_card',
  'iban',
  'aws_access_key',
  'private_key',
  'bearer_token',
];

export function isDetectorName(s: unknown): s is DetectorName {
  return typeof s === 'string' && (DETECTOR_NAMES as readonly string[]).includes(s);
}

/** Every match of a global regex that passes `accept` (the regex is shared: lastIndex is reset). */
export function spansOf(
  re: RegExp,
  text: string,
  accept: (m: RegExpExecArray) => Span | undefined = (m) => ({ start: m.index, end: m.index + m[0].length }),
): Span[] {
  const out: Span[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) re.lastIndex++;
    const span = accept(m);
    if (span) out.push(span);
  }
  return out;
}

/** `\s` of a regex, by code: ASCII by table, the rest through the regex itself. */
export function isSpaceCode(c: number): boolean {
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  return /\s/.test(String.fromCharCode(c));
}
