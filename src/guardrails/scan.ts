/**
 * Applying pattern rules (regex, keywords, detectors) to text. Outcome priority: any `block`
 * match blocks (the first blocking rule in config order is named); otherwise `redact` matches are
 * replaced by `[REDACTED:<label>]`; `log` matches only produce hits. Every rule that matched is
 * reported once per label with its own action, so a log rule overlapping a redaction still shows.
 */

import { addHits, type ScanHit } from './hits.js';
import { lexJson, redactJson } from './json-text.js';
import { mapNormalised, normalisedForMatching, originalRange } from './normalise-text.js';
import type { LabelledSpan, PatternGuardrail } from './rules.js';

/** `json`: the text is JSON (tool-call arguments) and must stay valid JSON after redaction. */
export type TextKind = 'text' | 'json';

export interface RuleMatch extends LabelledSpan {
  guardrailId: string;
  action: PatternGuardrail['action'];
  /** Position of the rule in the list scanned (config order): decides which block is named. */
  ruleIndex: number;
}

export interface ScanResult {
  /** The text with redactions applied (the same string when nothing was redacted). */
  text: string;
  hits: readonly ScanHit[];
  blockedBy?: string;
}

export const placeholder = (label: string): string => `[REDACTED:${label}]`;

/**
 * Every rule's matches, by start (longer first on ties). Rules read the normalised copy of the
 * text (normalise-text.ts: `pass\u200Bword`, fullwidth letters); spans are offsets in `text`.
 */
export function findMatches(rules: readonly PatternGuardrail[], text: string): readonly RuleMatch[] {
  const normal = normalisedForMatching(text);
  if (normal === undefined) return matchesIn(rules, text);
  if (matchesIn(rules, normal).length === 0) return NO_MATCHES;
  // Only a text that matched pays for the map back to its own offsets.
  const mapped = mapNormalised(text);
  return matchesIn(rules, mapped.text).map((m) => ({ ...m, ...originalRange(mapped, m.start, m.end) }));
}

/** Shared by every text nothing matched (the usual case), which then allocates nothing here. */
const NO_MATCHES: readonly RuleMatch[] = Object.freeze([]);
const NO_HITS: readonly ScanHit[] = Object.freeze([]);

function matchesIn(rules: readonly PatternGuardrail[], text: string): readonly RuleMatch[] {
  let out: RuleMatch[] | undefined;
  for (let ruleIndex = 0; ruleIndex < rules.length; ruleIndex++) {
    const r = rules[ruleIndex]!;
    for (const s of r.find(text)) (out ??= []).push({ ...s, guardrailId: r.id, action: r.action, ruleIndex });
  }
  return out ? out.sort((a, b) => a.start - b.start || b.end - a.end) : NO_MATCHES;
}

/**
 * The spans to replace: `redact` matches, overlapping ones merged into one placeholder labelled
 * after the match that starts first (the longest on a tie). Touching spans stay separate.
 */
export function redactionSpans(matches: readonly RuleMatch[]): LabelledSpan[] {
  const out: LabelledSpan[] = [];
  for (const m of matches) {
    if (m.action !== 'redact') continue;
    const last = out[out.length - 1];
    if (last && m.start < last.end) last.end = Math.max(last.end, m.end);
    else out.push({ start: m.start, end: m.end, label: m.label });
  }
  return out;
}

export function redactPlain(text: string, spans: readonly LabelledSpan[]): string {
  let out = '';
  let pos = 0;
  for (const s of spans) {
    out += text.slice(pos, s.start) + placeholder(s.label);
    pos = s.end;
  }
  return out + text.slice(pos);
}

/** One hit per rule and label, in config order. */
export function hitsOf(matches: readonly RuleMatch[]): ScanHit[] {
  const sorted = [...matches].sort((a, b) => a.ruleIndex - b.ruleIndex || a.start - b.start);
  return addHits(
    [],
    sorted.map((m) => ({ guardrailId: m.guardrailId, action: m.action, label: m.label })),
  );
}

/** The blocking match of the earliest rule in config order, if any. */
export function firstBlock(matches: readonly RuleMatch[]): RuleMatch | undefined {
  let best: RuleMatch | undefined;
  for (const m of matches) if (m.action === 'block' && (!best || m.ruleIndex < best.ruleIndex)) best = m;
  return best;
}

export function scanText(rules: readonly PatternGuardrail[], text: string, kind: TextKind = 'text'): ScanResult {
  if (rules.length === 0 || text.length === 0) return { text, hits: NO_HITS };
  return scanTextAs(rules, text, kind);
}

/**
 * scanText for complete JSON (tool-call arguments of a whole request or response): a match that
 * only shows once `\uXXXX` escapes are decoded is found too. (A stream's fragments are scanned as
 * they come; there an escaped character can still hide a match.)
 */
export function scanCompleteText(
  rules: readonly PatternGuardrail[],
  text: string,
  kind: TextKind = 'text',
): ScanResult {
  if (rules.length === 0 || text.length === 0) return { text, hits: NO_HITS };
  if (kind === 'json' && text.includes('\\u')) {
    // `\u0041KIA…` decodes to a key: scan the JSON with its escapes written out instead
    // (same value, so the arguments mean the same; only then is the text re-serialised).
    const plain = reserialised(text);
    if (plain !== undefined && plain !== text) {
      const r = scanTextAs(rules, plain, 'json');
      if (r.hits.length > 0) return r;
    }
  }
  return scanTextAs(rules, text, kind);
}

function reserialised(json: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(json));
  } catch {
    return undefined;
  }
}

function scanTextAs(rules: readonly PatternGuardrail[], text: string, kind: TextKind): ScanResult {
  // Rules read JSON with its escapes blanked (json-text.ts); escapes need a backslash, so without
  // one that view is the text itself, and the lexer runs only when there is something to redact.
  const lex = kind === 'json' && text.includes('\\') ? lexJson(text) : undefined;
  const matches = findMatches(rules, lex ? lex.view : text);
  if (matches.length === 0) return { text, hits: NO_HITS };
  const spans = redactionSpans(matches);
  const redacted =
    spans.length === 0
      ? text
      : kind === 'json'
        ? redactJson(text, (lex ?? lexJson(text)).classes, spans, placeholder)
        : redactPlain(text, spans);
  const blocked = firstBlock(matches);
  return { text: redacted, hits: hitsOf(matches), ...(blocked ? { blockedBy: blocked.guardrailId } : {}) };
}

/**
 * Scans many texts of one request or response, collecting hits and the blocking rule across
 * them. `scan` fits the text mappers of content-texts.ts.
 */
export class TextScanner {
  readonly hits: ScanHit[] = [];
  private block?: { ruleIndex: number; id: string };

  constructor(private readonly rules: readonly PatternGuardrail[]) {}

  readonly scan = (text: string, kind: TextKind): string => {
    const r = scanCompleteText(this.rules, text, kind);
    if (r.hits.length === 0) return r.text; // nothing matched: nothing to record
    addHits(this.hits, r.hits);
    if (r.blockedBy !== undefined) {
      const ruleIndex = this.rules.findIndex((x) => x.id === r.blockedBy);
      if (!this.block || ruleIndex < this.block.ruleIndex) this.block = { ruleIndex, id: r.blockedBy };
    }
    return r.text;
  };

  get blockedBy(): string | undefined {
    return this.block?.id;
  }
}
