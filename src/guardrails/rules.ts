/**
 * Guardrail configs compiled once, when the config is loaded: regexes built, keyword lists turned
 * into one matcher, detectors looked up. Requests then only select and run them.
 */

import type { GuardrailConfig } from '../config/types.js';
import { patternCovers } from '../config/model-patterns.js';
import { DETECTORS, isDetectorName, type Detector } from './detectors.js';
import { normalisedForMatching } from './normalise-text.js';

export type GuardrailAction = GuardrailConfig['action'];
export type GuardrailDirection = 'input' | 'output';

/** Who is asking and for what; a rule's `match` filters on it. */
export interface GuardrailScope {
  role: string;
  keyId: string;
  /** The model or alias the caller named. */
  modelId: string;
  /**
   * Concrete models the request may reach (an alias's candidates) or was served by. A `models`
   * filter matches when it matches `modelId` or any of these, so `openai/*` also guards requests
   * made through an alias that can route to OpenAI.
   */
  reachableModelIds?: readonly string[];
}

export interface LabelledSpan {
  start: number;
  end: number;
  /** Detector name, "regex" or "keyword": what was found, never the text itself. */
  label: string;
}

/**
 * Regex matches have no length bound; streams hold back this many characters for them. A match
 * longer than this (lookarounds included) may have its beginning sent before it is recognised.
 */
export const REGEX_MAX_SPAN = 256;

interface CompiledBase {
  readonly id: string;
  readonly action: GuardrailAction;
  readonly appliesTo: GuardrailConfig['appliesTo'];
  /** Whether the rule's `match` (roles, keys, models) selects this request. */
  matches(scope: GuardrailScope): boolean;
}

/** Regex, keywords and detectors: synchronous text checks that can redact. */
export interface PatternGuardrail extends CompiledBase {
  readonly kind: 'pattern';
  /** Longest text needed to decide a match (see detectors.ts); the stream hold-back is derived from it. */
  readonly maxSpan: number;
  find(text: string): readonly LabelledSpan[];
}

export interface TokenLimitGuardrail extends CompiledBase {
  readonly kind: 'max_input_tokens';
  readonly limit: number;
}

export interface WebhookGuardrail extends CompiledBase {
  readonly kind: 'webhook';
  readonly url: string;
  readonly timeoutMs: number;
  readonly onError: 'fail_open' | 'fail_closed';
}

export type CompiledGuardrail = PatternGuardrail | TokenLimitGuardrail | WebhookGuardrail;

export function compileGuardrails(configs: readonly GuardrailConfig[]): CompiledGuardrail[] {
  return configs.map(compileGuardrail);
}

/** Throws on a check the schema should have refused (the config is validated before this runs). */
export function compileGuardrail(g: GuardrailConfig): CompiledGuardrail {
  const base: CompiledBase = { id: g.id, action: g.action, appliesTo: g.appliesTo, matches: scopeFilter(g.match) };
  const c = g.check;
  switch (c.type) {
    case 'regex':
      return {
        ...base,
        kind: 'pattern',
        ...regexMatcher(String(c.pattern), typeof c.flags === 'string' ? c.flags : ''),
      };
    case 'keywords':
      return {
        ...base,
        kind: 'pattern',
        ...keywordMatcher((c.words as unknown[]).map(String), c.caseSensitive === true),
      };
    case 'detectors':
      return { ...base, kind: 'pattern', ...detectorMatcher(c.detectors as unknown[], g.id) };
    case 'max_input_tokens':
      return { ...base, kind: 'max_input_tokens', limit: Number(c.limit) };
    case 'webhook':
      return {
        ...base,
        kind: 'webhook',
        url: String(c.url),
        timeoutMs: Number(c.timeoutMs),
        onError: c.onError === 'fail_open' ? 'fail_open' : 'fail_closed',
      };
    default:
      throw new Error(`guardrail "${g.id}": unknown check type "${c.type}"`);
  }
}

/** The rules one request is subject to in one direction, in config order, and the same split by kind. */
export interface GuardrailSelection {
  readonly all: readonly CompiledGuardrail[];
  readonly patterns: readonly PatternGuardrail[];
  readonly tokenLimits: readonly TokenLimitGuardrail[];
  readonly webhooks: readonly WebhookGuardrail[];
}

/** The rules for one direction and request, in config order (shared: never modify it). */
export function selectGuardrails(
  rules: readonly CompiledGuardrail[],
  direction: GuardrailDirection,
  scope: GuardrailScope,
): readonly CompiledGuardrail[] {
  return guardrailSelection(rules, direction, scope).all;
}

export function patternRules(rules: readonly CompiledGuardrail[]): PatternGuardrail[] {
  return rules.filter((r): r is PatternGuardrail => r.kind === 'pattern');
}

/**
 * Every request asks for its rules up to three times (input, whether output applies, output), and
 * the answer depends only on which rules' `match` select it. So per rule list (compiled once per
 * config, never changed after) and direction, each subset of rules is split by kind once and kept,
 * keyed by a bit per rule: a request then costs one `matches` call per rule and no allocation.
 */
interface DirectionRules {
  /** The rules of this direction, in config order. */
  readonly candidates: readonly CompiledGuardrail[];
  readonly bySubset: Map<number, GuardrailSelection>;
}

/** Bits in a subset key; a direction with more rules builds its selection per request. */
const MAX_KEYED_RULES = 31;
/** Subsets kept per direction (each is one combination of roles, keys and models that occurred). */
const MAX_KEPT_SUBSETS = 1024;

const selectionCache = new WeakMap<readonly CompiledGuardrail[], Record<GuardrailDirection, DirectionRules>>();

export function guardrailSelection(
  rules: readonly CompiledGuardrail[],
  direction: GuardrailDirection,
  scope: GuardrailScope,
): GuardrailSelection {
  let cached = selectionCache.get(rules);
  if (!cached) {
    cached = { input: directionRules(rules, 'input'), output: directionRules(rules, 'output') };
    selectionCache.set(rules, cached);
  }
  const { candidates, bySubset } = cached[direction];
  if (candidates.length > MAX_KEYED_RULES) return splitByKind(candidates.filter((r) => r.matches(scope)));
  let key = 0;
  for (let i = 0; i < candidates.length; i++) if (candidates[i]!.matches(scope)) key |= 1 << i;
  let selection = bySubset.get(key);
  if (!selection) {
    selection = splitByKind(candidates.filter((_, i) => (key & (1 << i)) !== 0));
    if (bySubset.size < MAX_KEPT_SUBSETS) bySubset.set(key, selection);
  }
  return selection;
}

function directionRules(rules: readonly CompiledGuardrail[], direction: GuardrailDirection): DirectionRules {
  return {
    candidates: rules.filter((r) => r.appliesTo === 'both' || r.appliesTo === direction),
    bySubset: new Map(),
  };
}

function splitByKind(all: readonly CompiledGuardrail[]): GuardrailSelection {
  return {
    all,
    patterns: patternRules(all),
    tokenLimits: all.filter((r): r is TokenLimitGuardrail => r.kind === 'max_input_tokens'),
    webhooks: all.filter((r): r is WebhookGuardrail => r.kind === 'webhook'),
  };
}

/** Empty filter lists are absent (normalise drops them); each present list must match. */
function scopeFilter(match: GuardrailConfig['match']): (scope: GuardrailScope) => boolean {
  const { roles, keys, models } = match;
  return (scope) => {
    if (roles && !roles.includes(scope.role)) return false;
    if (keys && !keys.includes(scope.keyId)) return false;
    if (models && !models.some((p) => coversScopeModel(p, scope))) return false;
    return true;
  };
}

function coversScopeModel(pattern: string, scope: GuardrailScope): boolean {
  return (
    patternCovers(pattern, scope.modelId) || (scope.reachableModelIds ?? []).some((id) => patternCovers(pattern, id))
  );
}

type Matcher = Pick<PatternGuardrail, 'maxSpan' | 'find'>;

function regexFinder(re: RegExp, label: string): (text: string) => LabelledSpan[] {
  return (text) => {
    const out: LabelledSpan[] = [];
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      // A pattern that can match nothing would loop forever; empty matches redact nothing anyway.
      if (m[0].length === 0) {
        re.lastIndex += 1;
        continue;
      }
      out.push({ start: m.index, end: m.index + m[0].length, label });
    }
    return out;
  };
}

function regexMatcher(pattern: string, flags: string): Matcher {
  const re = new RegExp(pattern, flags.includes('g') ? flags : `${flags}g`);
  return { maxSpan: REGEX_MAX_SPAN, find: regexFinder(re, 'regex') };
}

// Only syntax characters: under the `u` flag an escaped `-` outside a class is an error.
const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Whole words only: not preceded or followed by a letter, digit or underscore (Unicode-aware, so
 * "café" is a word). Words are literal (a space in a keyword matches one space); longer words are
 * tried first so "api key" wins over "api".
 */
function keywordMatcher(words: readonly string[], caseSensitive: boolean): Matcher {
  // Texts are matched in normal form (see normalise-text.ts), so the words must be in it too.
  const sorted = [...new Set(words.map((w) => normalisedForMatching(w) ?? w))]
    .filter((w) => w.length > 0)
    .sort((a, b) => b.length - a.length);
  const re = new RegExp(
    `(?<![\\p{L}\\p{N}_])(?:${sorted.map(escapeRegex).join('|')})(?![\\p{L}\\p{N}_])`,
    caseSensitive ? 'gu' : 'giu',
  );
  return { maxSpan: Math.max(1, ...sorted.map((w) => w.length)), find: regexFinder(re, 'keyword') };
}

function detectorMatcher(names: readonly unknown[], id: string): Matcher {
  const detectors: Detector[] = names.map((n) => {
    if (!isDetectorName(n)) throw new Error(`guardrail "${id}": unknown detector "${String(n)}"`);
    return DETECTORS[n];
  });
  // Almost every text holds no detector's cue: one scan for all the cues rejects it before any
  // detector runs or anything is allocated. Otherwise only the detectors whose cue is there run.
  const anyCue = new RegExp(detectors.map((d) => `(?:${d.cue.source})`).join('|'));
  return {
    maxSpan: Math.max(1, ...detectors.map((d) => d.maxSpan)),
    find(text) {
      if (!anyCue.test(text)) return NO_SPANS;
      const out: LabelledSpan[] = [];
      for (const d of detectors) {
        if (!d.cue.test(text)) continue;
        for (const s of d.find(text)) out.push({ start: s.start, end: s.end, label: d.name });
      }
      return out;
    },
  };
}

const NO_SPANS: readonly LabelledSpan[] = Object.freeze([]);
