/**
 * Detectors of credentials: aws_access_key, private_key, bearer_token (rules in detectors.ts's
 * header and at each detector).
 */

import { type Detector, isSpaceCode, type Span, spansOf } from './detector-types.js';

const AWS_KEY_RE = /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g;

export const awsAccessKey: Detector = {
  name: 'aws_access_key',
  maxSpan: 20,
  cue: /A[KS]IA/,
  find: (text) => spansOf(AWS_KEY_RE, text),
};

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

export const privateKey: Detector = {
  name: 'private_key',
  maxSpan: '-----BEGIN '.length + 3 * 13 + 'PRIVATE KEY BLOCK-----'.length,
  // Every match starts at a KEY_BEGIN_RE match.
  cue: /-----BEGIN /,
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

export const bearerToken: Detector = {
  name: 'bearer_token',
  maxSpan: 'Bearer'.length + 8 + 16,
  cue: /(?:[Bb]earer|BEARER)[ \t]/,
  find: (text) =>
    spansOf(BEARER_RE, text, (m) => {
      const end = m.index + m[0].length;
      return { start: end - m[1]!.length, end };
    }),
};
