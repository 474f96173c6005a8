/**
 * Built-in detectors of personal data and secrets. Each returns the spans it found (never the
 * text) and declares `maxSpan`, which the stream guard uses to hold back just enough text.
 *
 * `maxSpan` is the longest text a detector must see to decide a match that does not run to the end
 * of the text. For most detectors that is their longest match. Two can grow without bound
 * (`bearer_token` tokens, `private_key` bodies); for them it is the length needed to recognise the
 * start, and a match that reaches the end of the text seen so far is held by the stream guard until
 * more text shows where it ends (see stream.ts).
 *
 * Rules chosen (each is documented at its detector):
 * - email: local part ≤ 64 chars, domain ≤ 120 chars with a 2–24 letter TLD; skipped inside URLs.
 * - phone: an international `+CC` number (8–15 digits), a North-American number with separators,
 *   or a national number with a trunk `0` and separators (9–11 digits). Bare digit runs (order ids,
 *   timestamps) never match without a `+`.
 * - credit_card: 13–19 digits with a card-network prefix, one consistent optional separator,
 *   Luhn-valid.
 * - iban: a known country code, its registry length, optional single spaces, mod-97 valid.
 * - aws_access_key: AKIA/ASIA + 16 upper-case letters or digits.
 * - private_key: a PEM/OpenSSH/PGP BEGIN…PRIVATE KEY line through the END line, or (unterminated)
 *   through the key material that follows it.
 * - bearer_token: the token after `Bearer ` (≥ 16 token68 characters); the scheme word is kept.
 */

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
function spansOf(
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

const digitCount = (s: string): number => s.replace(/\D/g, '').length;

// ---------------------------------------------------------------------------------------------
// email

const EMAIL_LOCAL_MAX = 64;
const EMAIL_DOMAIN_MAX = 120;
const EMAIL_RE = new RegExp(
  '(?<![A-Za-z0-9._%+-])[A-Za-z0-9_%+-][A-Za-z0-9._%+-]{0,63}@' +
    String.raw`((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24})(?![A-Za-z0-9-])`,
  'g',
);

/**
 * Whether an address is right after `scheme://…` in the same word (then it is URL userinfo or a
 * path, not an email). The word is looked at up to 2048 characters back. One forward pass serves
 * every match of a text (they come in order), so many addresses cost no rescans of their words.
 */
const URL_LOOKBACK = 2048;

class UrlContext {
  private pos = 0;
  private lastSpace = -1;
  private lastScheme = -1;

  constructor(private readonly text: string) {}

  insideUrl(start: number): boolean {
    const t = this.text;
    // Nothing further back than the window can matter: skip to it.
    this.pos = Math.max(this.pos, start - URL_LOOKBACK - 3);
    for (; this.pos < start; this.pos++) {
      const c = t.charCodeAt(this.pos);
      if (isSpaceCode(c)) this.lastSpace = this.pos;
      // `://` ending here starts two characters back.
      else if (
        c === 0x2f &&
        this.pos >= 2 &&
        t.charCodeAt(this.pos - 1) === 0x2f &&
        t.charCodeAt(this.pos - 2) === 0x3a
      )
        this.lastScheme = this.pos - 2;
    }
    return this.lastScheme >= Math.max(this.lastSpace + 1, start - URL_LOOKBACK);
  }
}

/** `\s` of a regex, by code: ASCII by table, the rest through the regex itself. */
function isSpaceCode(c: number): boolean {
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  return /\s/.test(String.fromCharCode(c));
}

const email: Detector = {
  name: 'email',
  maxSpan: EMAIL_LOCAL_MAX + 1 + EMAIL_DOMAIN_MAX,
  find(text) {
    const url = new UrlContext(text);
    return spansOf(EMAIL_RE, text, (m) => {
      if (m[1]!.length > EMAIL_DOMAIN_MAX || url.insideUrl(m.index)) return undefined;
      return { start: m.index, end: m.index + m[0].length };
    });
  },
};

// ---------------------------------------------------------------------------------------------
// phone
//
// Three shapes, all refusing to start inside a longer number (`(?<![\w+]|\d[ .-])`) or to stop
// before one (`(?![\w]|[ .-]?\d)` / `(?!\w|[ .-]\d)`):
// - international: `+` and a 1–3 digit country code, an optional parenthesised group right after
//   it (`+44 (0)20 …`), then digit groups separated by single spaces, dots or dashes; 8–15 digits
//   (E.164) not counting a `(0)` trunk marker;
// - North American: `(415) 555-0100`, `415-555-0100`, `415.555.0100`, `415 555 0100`, optionally
//   `1-` first; area code and exchange start 2–9; one separator kind;
// - national with trunk prefix: `020 7946 0958`, `06 12 34 56 78`, `(030) 1234567`; starts with 0,
//   at least one separator, one separator kind, 9–11 digits.
// Bare runs of digits (`1699999999`, `20240115093000`) never match: without a `+` a separator is
// required. ISO dates (`2024-01-15`) are too short and IPv4 addresses do not start with a 0 group.

const PHONE_INTL_RE =
  /(?<![\w+]|\d[ .-])\+\d{1,3}(?:[ .-]?(\(\d{1,4}\)))?[ .-]?\d{1,12}(?:[ .-]\d{1,8}){0,5}(?![\w]|[ .-]?\d)/g;
const PHONE_NANP_RE =
  /(?<![\w+]|\d[ .-])(?:1[-. ])?(?:\([2-9]\d{2}\) ?[2-9]\d{2}[-. ]|[2-9]\d{2}([-. ])[2-9]\d{2}\1)\d{4}(?!\w|[ .-]\d)/g;
const PHONE_TRUNK_RE = /(?<![\w+]|\d[ .-])(?:\(0\d{1,4}\) ?|0\d{1,4}[ .-])\d{2,8}(?:[ .-]\d{2,8}){0,3}(?!\w|[ .-]\d)/g;
const PHONE_MAX_SPAN = 69; // the international shape's bound: 1 + 3 + 7 + 1 + 12 + 5 × 9

function oneSeparatorKind(s: string): boolean {
  const seps = new Set(s.replace(/\([^)]*\) ?/g, '').match(/[ .-]/g) ?? []);
  return seps.size <= 1;
}

const phone: Detector = {
  name: 'phone',
  maxSpan: PHONE_MAX_SPAN,
  find(text) {
    const intl = spansOf(PHONE_INTL_RE, text, (m) => {
      const digits = digitCount(m[0]) - (m[1] === '(0)' ? 1 : 0);
      return digits >= 8 && digits <= 15 ? { start: m.index, end: m.index + m[0].length } : undefined;
    });
    const nanp = spansOf(PHONE_NANP_RE, text);
    const trunk = spansOf(PHONE_TRUNK_RE, text, (m) => {
      const digits = digitCount(m[0]);
      return digits >= 9 && digits <= 11 && oneSeparatorKind(m[0])
        ? { start: m.index, end: m.index + m[0].length }
        : undefined;
    });
    return [...intl, ...nanp, ...trunk].sort((a, b) => a.start - b.start);
  },
};

// ---------------------------------------------------------------------------------------------
// credit_card: 13–19 digits with an optional single space or dash between digits (one kind
// throughout), a network prefix (3–6, or the 2221–2720 Mastercard range: this rules out epoch-ms
// timestamps, which start with 1, and YYYYMMDD… stamps up to year 2220) and a valid Luhn check
// digit. Never part of a longer digit run.

const CARD_RE = /(?<!\w)(?<!\d[ -])[2-6](?:[ -]?\d){12,18}(?!\w)(?![ -]?\d)/g;

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (d < 0 || d > 9) return false;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

function cardPrefix(digits: string): boolean {
  const first = digits.charCodeAt(0) - 48;
  const p4 = Number(digits.slice(0, 4));
  return (first >= 3 && first <= 6) || (p4 >= 2221 && p4 <= 2720);
}

const creditCard: Detector = {
  name: 'credit_card',
  maxSpan: 19 + 18,
  find: (text) =>
    spansOf(CARD_RE, text, (m) => {
      const seps = new Set(m[0].match(/[ -]/g) ?? []);
      const digits = m[0].replace(/\D/g, '');
      return seps.size <= 1 && cardPrefix(digits) && luhnValid(digits)
        ? { start: m.index, end: m.index + m[0].length }
        : undefined;
    }),
};

// ---------------------------------------------------------------------------------------------
// iban: country code, 2 check digits and the BBAN, exactly the registry length for that country,
// upper or lower case, optionally with single spaces anywhere (usually groups of four), and a
// mod-97 remainder of 1 (ISO 13616). Countries not in the table are not detected.

const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MR: 27,
  MT: 31,
  MU: 30,
  NL: 18,
  NO: 15,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
};
const IBAN_MAX_LENGTH = Math.max(...Object.values(IBAN_LENGTHS));
const IBAN_START_RE = /(?<![A-Za-z0-9])([A-Za-z]{2})\d{2}/g;

/** `compact`: upper case, no spaces. */
export function ibanValid(compact: string): boolean {
  const len = IBAN_LENGTHS[compact.slice(0, 2)];
  if (len === undefined || compact.length !== len || !/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let rem = 0;
  for (const ch of rearranged) {
    const v = ch >= 'A' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    rem = (v >= 10 ? rem * 100 + v : rem * 10 + v) % 97;
  }
  return rem === 1;
}

const isAlnum = (ch: string | undefined): boolean => ch !== undefined && /[A-Za-z0-9]/.test(ch);

const iban: Detector = {
  name: 'iban',
  maxSpan: IBAN_MAX_LENGTH * 2 - 1,
  find(text) {
    const out: Span[] = [];
    IBAN_START_RE.lastIndex = 0;
    for (let m = IBAN_START_RE.exec(text); m; m = IBAN_START_RE.exec(text)) {
      const len = IBAN_LENGTHS[m[1]!.toUpperCase()];
      if (len === undefined) continue;
      // Take `len` alphanumerics from the start, allowing one space between any two of them.
      let i = m.index;
      let compact = '';
      while (compact.length < len && i < text.length) {
        const ch = text[i]!;
        if (isAlnum(ch)) {
          compact += ch;
          i++;
        } else if (ch === ' ' && compact.length >= 4 && isAlnum(text[i + 1])) i++;
        else break;
      }
      if (compact.length !== len || isAlnum(text[i]) || !ibanValid(compact.toUpperCase())) continue;
      out.push({ start: m.index, end: i });
      IBAN_START_RE.lastIndex = i;
    }
    return out;
  },
};

// ---------------------------------------------------------------------------------------------
// aws_access_key: long-term (AKIA) and temporary (ASIA) access key ids.

const AWS_KEY_RE = /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g;

const awsAccessKey: Detector = { name: 'aws_access_key', maxSpan: 20, find: (text) => spansOf(AWS_KEY_RE, text) };

// ---------------------------------------------------------------------------------------------
// private_key: `-----BEGIN [RSA |EC |OPENSSH |ENCRYPTED |PGP …]PRIVATE KEY[ BLOCK]-----`.
// Terminated: through the matching END line when only key material (base64, armour headers,
// whitespace) lies between, within KEY_SEARCH_LIMIT characters. Unterminated (so far): the BEGIN
// line plus the key material lines that follow it (base64 runs of ≥ 16 chars,
// `Proc-Type:`/`DEK-Info:` headers), running to the end of the text when the text ends inside
// them or inside a partial END line; prose stops it. Whitespace separates lines, so keys flattened
// to one line or JSON-escaped (`\n`) still match.
//
// Linear time: the scan is anchored on each BEGIN marker, and what it looks at after one (the
// next END marker, the run of key-material characters, the shape of the text's end) is found
// once per text and shared by every marker (KeyTextFacts), so a text made of thousands of
// markers is not rescanned to its end for each.

const KEY_LABEL = '(?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?';
const KEY_BEGIN_RE = new RegExp(`-----BEGIN ${KEY_LABEL}-----`, 'g');
const KEY_END_RE = new RegExp(`-----END ${KEY_LABEL}-----`, 'y');
const KEY_END_MARK = '-----END ';
const KEY_MATERIAL_RUN_RE = /[\sA-Za-z0-9+/=:,.()_-]*/y;
const KEY_LINES_RE = /(?:\s+(?:[A-Za-z0-9+/=]{16,}|(?:Proc-Type|DEK-Info|Comment|Version):[^\S\r\n]*[^\s]+))*/y;
const SPACES_RE = /\s*/y;
const KEY_SEARCH_LIMIT = 16_384;

const isBase64Code = (c: number): boolean =>
  (c >= 0x41 && c <= 0x5a) ||
  (c >= 0x61 && c <= 0x7a) ||
  (c >= 0x30 && c <= 0x39) ||
  c === 0x2b ||
  c === 0x2f ||
  c === 0x3d;
/** `[-A-Z0-9 ]`: what a partial END line is made of. */
const isEndLineCode = (c: number): boolean =>
  (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x20;

/** What the private_key scan asks about positions after a marker, each answered in amortised O(1). */
class KeyTextFacts {
  private endFrom = -1;
  private endAt = -1;
  private runStart = -1;
  private runEnd = -1;
  private tail?: { contentEnd: number; base64From: number; endLineFrom: number };

  constructor(private readonly text: string) {}

  /** The first END marker at or after `from`, or -1. Searches resume past the last one found. */
  nextEndMarker(from: number): number {
    if (this.endFrom < 0 || from < this.endFrom || (this.endAt >= 0 && from > this.endAt)) {
      this.endFrom = from;
      this.endAt = this.text.indexOf(KEY_END_MARK, from);
    }
    return this.endAt;
  }

  /** Where the run of key-material characters starting at `from` ends (runs are measured once). */
  materialEnd(from: number): number {
    if (from < this.runStart || from > this.runEnd) {
      KEY_MATERIAL_RUN_RE.lastIndex = from;
      this.runStart = from;
      this.runEnd = from + KEY_MATERIAL_RUN_RE.exec(this.text)![0].length;
    }
    return this.runEnd;
  }

  /**
   * Whether everything from `from` on is whitespace, then nothing, a base64 run or a partial END
   * line (`-` then `[-A-Z0-9 ]`), then whitespace: the text ends inside the key.
   */
  endsInKey(from: number): boolean {
    const t = this.text;
    const tail = (this.tail ??= this.tailShape());
    SPACES_RE.lastIndex = from;
    const s = from + SPACES_RE.exec(t)![0].length;
    return s >= tail.contentEnd || s >= tail.base64From || (t.charCodeAt(s) === 0x2d && s >= tail.endLineFrom);
  }

  /** Reading back from the end: the last non-space, and the runs of each kind that end there. */
  private tailShape(): { contentEnd: number; base64From: number; endLineFrom: number } {
    const t = this.text;
    let contentEnd = t.length;
    while (contentEnd > 0 && isSpaceCode(t.charCodeAt(contentEnd - 1))) contentEnd--;
    let base64From = contentEnd;
    while (base64From > 0 && isBase64Code(t.charCodeAt(base64From - 1))) base64From--;
    let endLineFrom = contentEnd;
    while (endLineFrom > 0 && isEndLineCode(t.charCodeAt(endLineFrom - 1))) endLineFrom--;
    return { contentEnd, base64From, endLineFrom };
  }
}

const privateKey: Detector = {
  name: 'private_key',
  maxSpan: '-----BEGIN '.length + 3 * 13 + 'PRIVATE KEY BLOCK-----'.length,
  find(text) {
    const out: Span[] = [];
    const facts = new KeyTextFacts(text);
    KEY_BEGIN_RE.lastIndex = 0;
    for (let m = KEY_BEGIN_RE.exec(text); m; m = KEY_BEGIN_RE.exec(text)) {
      const bodyStart = m.index + m[0].length;
      let end = terminatedEnd(text, bodyStart, facts);
      if (end === undefined) {
        KEY_LINES_RE.lastIndex = bodyStart;
        end = bodyStart + KEY_LINES_RE.exec(text)![0].length;
        if (facts.endsInKey(end)) end = text.length;
      }
      out.push({ start: m.index, end });
      KEY_BEGIN_RE.lastIndex = end;
    }
    return out;
  },
};

function terminatedEnd(text: string, bodyStart: number, facts: KeyTextFacts): number | undefined {
  const at = facts.nextEndMarker(bodyStart);
  if (at < 0 || at - bodyStart > KEY_SEARCH_LIMIT || facts.materialEnd(bodyStart) < at) return undefined;
  KEY_END_RE.lastIndex = at;
  const end = KEY_END_RE.exec(text);
  return end ? at + end[0].length : undefined;
}

// ---------------------------------------------------------------------------------------------
// bearer_token: `Bearer` (any case of the first letter, or all caps), 1–8 spaces/tabs, then a
// token68 of ≥ 16 chars. The span is the token only, so `Authorization: Bearer [REDACTED:…]`
// stays readable.

const BEARER_RE = /(?<![A-Za-z0-9])(?:[Bb]earer|BEARER)[ \t]{1,8}([A-Za-z0-9\-._~+/]{16,}=*)(?![A-Za-z0-9\-._~+/=])/g;

const bearerToken: Detector = {
  name: 'bearer_token',
  maxSpan: 'Bearer'.length + 8 + 16,
  find: (text) =>
    spansOf(BEARER_RE, text, (m) => {
      const end = m.index + m[0].length;
      return { start: end - m[1]!.length, end };
    }),
};

// ---------------------------------------------------------------------------------------------

export const DETECTORS: Readonly<Record<DetectorName, Detector>> = {
  email,
  phone,
  credit_card: creditCard,
  iban,
  aws_access_key: awsAccessKey,
  private_key: privateKey,
  bearer_token: bearerToken,
};
