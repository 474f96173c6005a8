/**
 * Whether a guardrail regex can freeze the gateway. A guardrail regex runs over every text of a
 * request up to `body_limit` (4 MiB by default) on the event loop, so a pattern whose matching
 * time is exponential in the text's length is refused, and one whose time is polynomial (a 1 MB
 * text then takes minutes) is warned about.
 *
 * The analysis is scslre's (the one behind eslint-plugin-regexp's no-super-linear-backtracking):
 * static, in milliseconds, for attack strings that repeat one character. One exponential case it
 * reports only as polynomial is added here: a repeated group whose alternatives can match the same
 * text (`(a|a)*`, `(\w|\d)+`, `(.|\s)*`), which tries every way of splitting a run between them.
 */
import { createRequire } from 'node:module';
import type { AST, RegExpParser } from '@eslint-community/regexpp';
import type { Report } from 'scslre';

type Regexpp = typeof import('@eslint-community/regexpp');
type Analysis = typeof import('regexp-ast-analysis');
type Scslre = typeof import('scslre');

/**
 * The three analysis packages are loaded on the first pattern to judge: a config without regex
 * guardrails (and so every gateway that has none) does not carry them. Loading them costs about
 * 15 MB of RSS (regexp-ast-analysis builds Unicode character tables at load). Their CommonJS
 * builds load synchronously, as the config loader is; the three then share one regexpp.
 */
const requireCjs = createRequire(import.meta.url);
let lib: { regexpp: Regexpp; analysis: Analysis; scslre: Scslre; parser: RegExpParser } | undefined;
function analysisLib(): NonNullable<typeof lib> {
  if (!lib) {
    const regexpp = requireCjs('@eslint-community/regexpp') as Regexpp;
    lib = {
      regexpp,
      analysis: requireCjs('regexp-ast-analysis') as Analysis,
      scslre: requireCjs('scslre') as Scslre,
      parser: new regexpp.RegExpParser({ ecmaVersion: 2024 }),
    };
  }
  return lib;
}

export interface RegexRisk {
  severity: 'error' | 'warning';
  message: string;
}

/**
 * The risk of `pattern` (valid for `new RegExp(pattern, flags)`), or undefined when matching it is
 * linear. A pattern the parser cannot read (newer syntax than it knows) is not judged.
 */
export function regexBacktrackingRisk(pattern: string, flags: string): RegexRisk | undefined {
  const { parser, scslre } = analysisLib();
  let parsed: { pattern: AST.Pattern; flags: AST.Flags };
  try {
    const f = parser.parseFlags(flags.replace(/[^dgimsuvy]/g, ''));
    parsed = {
      pattern: parser.parsePattern(pattern, 0, pattern.length, { unicode: f.unicode, unicodeSets: f.unicodeSets }),
      flags: f,
    };
  } catch {
    return undefined;
  }
  const { reports } = scslre.analyse(parsed);
  const exponential = reports.find((r) => r.exponential);
  if (exponential)
    return { severity: 'error', message: catastrophic(`${cause(exponential)}`, exponential.character.pick) };
  const ambiguous = ambiguousRepetition(parsed.pattern, parsed.flags);
  if (ambiguous)
    return {
      severity: 'error',
      message: catastrophic(`the alternatives of "${ambiguous.raw}" can match the same text`, undefined),
    };
  const first = reports[0];
  if (first) {
    return {
      severity: 'warning',
      message:
        "matching time can grow with the square of the text's length " +
        `(${cause(first)}, on a long run of ${JSON.stringify(first.character.pick)}): ` +
        'a request near body_limit would hold the gateway for seconds or more; ' +
        'bound the repetition (e.g. {1,64}) or anchor where a match may start (e.g. with a lookbehind)',
    };
  }
  return undefined;
}

function catastrophic(why: string, pick: string | undefined): string {
  const run = pick === undefined ? '' : ` (e.g. on a long run of ${JSON.stringify(pick)})`;
  return (
    `catastrophic backtracking: ${why}, so matching time is exponential in the text's length${run} ` +
    'and one request would freeze the gateway; rewrite it so no repeated part can match the same text in two ways'
  );
}

function cause(r: Report): string {
  switch (r.type) {
    case 'Self':
      return `"${r.quant.raw}" is repeated inside "${r.parentQuant.raw}"`;
    case 'Trade':
      return `"${r.startQuant.raw}" and "${r.endQuant.raw}" can match the same characters`;
    case 'Move':
      return `"${r.quant.raw}" is tried again from every position`;
  }
}

/** An unbounded repetition of a group with two alternatives that can match the same text. */
function ambiguousRepetition(pattern: AST.Pattern, flags: AST.Flags): AST.Quantifier | undefined {
  let found: AST.Quantifier | undefined;
  analysisLib().regexpp.visitRegExpAST(pattern, {
    onQuantifierEnter(q) {
      const group = q.element;
      if (found || q.max !== Infinity || (group.type !== 'Group' && group.type !== 'CapturingGroup')) return;
      const alts = group.alternatives;
      for (let i = 0; i < alts.length && !found; i++) {
        for (let j = i + 1; j < alts.length && !found; j++) if (overlap(alts[i]!, alts[j]!, flags)) found = q;
      }
    },
  });
  return found;
}

/** Certain overlaps only: equal alternatives, or two single characters from overlapping sets. */
function overlap(a: AST.Alternative, b: AST.Alternative, flags: AST.Flags): boolean {
  const { getConsumedChars, getLengthRange, structurallyEqual } = analysisLib().analysis;
  if (structurallyEqual(a, b)) return getLengthRange(a, flags).max > 0;
  const single = (x: AST.Alternative) => {
    const r = getLengthRange(x, flags);
    return r.min === 1 && r.max === 1 && x.elements.every((e) => e.type !== 'Assertion');
  };
  return single(a) && single(b) && !getConsumedChars(a, flags).chars.isDisjointWith(getConsumedChars(b, flags).chars);
}
