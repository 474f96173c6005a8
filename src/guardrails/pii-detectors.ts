/**
 * Detectors of personal data: email, phone, credit_card, iban (rules in detectors.ts's header and
 * at each detector).
 */

import { type Detector, isSpaceCode, type Span, spansOf } from './detector-types.js';

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

export const email: Detector = {
  name: 'email',
  maxSpan: EMAIL_LOCAL_MAX + 1 + EMAIL_DOMAIN_MAX,
  cue: /@/,
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

export const phone: Detector = {
  name: 'phone',
  maxSpan: PHONE_MAX_SPAN,
  // International: `+` then a digit. North American: `(415)` has a digit then `)`, `415-555` a
  // separator between digits. Trunk: `(020)` or `020 7946`, the same two.
  cue: /\+\d|\d[ .-]\d|\d\)/,
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

export const creditCard: Detector = {
  name: 'credit_card',
  maxSpan: 19 + 18,
  // CARD_RE's first two digits.
  cue: /[2-6][ -]?\d/,
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

export const iban: Detector = {
  name: 'iban',
  maxSpan: IBAN_MAX_LENGTH * 2 - 1,
  // IBAN_START_RE without its lookbehind.
  cue: /[A-Za-z]{2}\d{2}/,
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
