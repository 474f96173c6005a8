/**
 * Everything about reporting config problems: YAML positions, paths, ajv error translation,
 * "did you mean" hints and the one-line text format the CLI prints.
 *
 * Ajv runs before interpolation, so the data it sees is the file's own text; even so, messages
 * never quote string values (a literal key or api_key in the file must not end up in logs),
 * only property names, enum values and allowed values.
 */
import type { ErrorObject } from 'ajv';
import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter } from 'yaml';
import type { ConfigIssue } from './types.js';

/** A path into the config data: map keys as strings, array indices as numbers. */
export type PathSeg = string | number;
export type Severity = ConfigIssue['severity'];
/** Which part of a map entry to point at: the key (`foo:`) or the value after it. */
export type Anchor = 'key' | 'value';
export type Locate = (segs: readonly PathSeg[], at?: Anchor) => { line: number; col: number };

/** `roles.dev.models[2]`; keys that would be ambiguous in dotted form are quoted. */
export function formatPath(segs: readonly PathSeg[]): string {
  let out = '';
  for (const s of segs) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[^.[\]\s"]+$/.test(s)) out += out ? `.${s}` : s;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** `file:line:col  path: message`; warnings are marked in the message. */
export function formatIssue(i: ConfigIssue): string {
  const msg = i.severity === 'warning' ? `warning: ${i.message}` : i.message;
  return `${i.file}:${i.line}:${i.col}  ${i.path ? `${i.path}: ` : ''}${msg}`;
}

/**
 * Maps a data path to a 1-based line:col in the YAML text. When the path does not exist
 * (a missing property, a default) it falls back to the key of the nearest existing parent.
 */
export function createLocator(doc: Document, lc: LineCounter): Locate {
  const pos = (offset: number) => lc.linePos(offset);
  return (segs, at = 'value') => {
    let node: unknown = doc.contents;
    const rootStart = (isMap(node) || isSeq(node) || isScalar(node)) && node.range ? node.range[0] : 0;
    let keyPos = rootStart;
    let valuePos = rootStart;
    let resolved = 0;
    for (const seg of segs) {
      if (isAlias(node)) node = node.resolve(doc);
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) break;
        keyPos = isScalar(pair.key) && pair.key.range ? pair.key.range[0] : keyPos;
        const v = pair.value;
        // An empty value (`key:` with nothing after it) has a zero-width range: point at the key.
        const r = (isMap(v) || isSeq(v) || isScalar(v) || isAlias(v)) && v.range ? v.range : undefined;
        valuePos = r && r[1] > r[0] ? r[0] : keyPos;
        node = v;
      } else if (isSeq(node) && typeof seg === 'number' && seg < node.items.length) {
        const item = node.items[seg];
        const start =
          (isMap(item) || isSeq(item) || isScalar(item) || isAlias(item)) && item.range ? item.range[0] : keyPos;
        keyPos = valuePos = start;
        node = item;
      } else break;
      resolved++;
    }
    if (resolved < segs.length) return pos(keyPos);
    return pos(at === 'key' ? keyPos : valuePos);
  };
}

/** Optimal-string-alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/** The closest candidate (distance ≤ 2, else a prefix match), compared case-insensitively. */
export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  const n = name.toLowerCase();
  let best: string | undefined;
  let bestDist = 3;
  let prefix: string | undefined;
  for (const c of candidates) {
    if (c === name) continue;
    const l = c.toLowerCase();
    const dist = editDistance(n, l);
    // Short names are always "close"; require the edit to be less than half the longer name.
    if (dist < bestDist && dist < Math.max(n.length, l.length) / 2) [best, bestDist] = [c, dist];
    if (!prefix && n.length >= 3 && (l.startsWith(n) || n.startsWith(l))) prefix = c;
  }
  return best ?? prefix;
}

/** ` (did you mean "x"?)` or ''. */
export function hint(name: string, candidates: Iterable<string>): string {
  const m = didYouMean(name, candidates);
  return m === undefined ? '' : ` (did you mean "${m}"?)`;
}

/** JSON pointer (ajv instancePath) → segments, using the data to tell array indices apart. */
export function pointerToSegments(pointer: string, root: unknown): PathSeg[] {
  if (!pointer) return [];
  const segs: PathSeg[] = [];
  let cur: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const seg: PathSeg = Array.isArray(cur) ? Number(key) : key;
    segs.push(seg);
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[key] : undefined;
  }
  return segs;
}

function valueAt(root: unknown, segs: readonly PathSeg[]): unknown {
  let cur = root;
  for (const s of segs)
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<PathSeg, unknown>)[s] : undefined;
  return cur;
}

const ARTICLE: Record<string, string> = {
  object: 'a map',
  array: 'a list',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  null: 'null',
};

function typeOf(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a map';
  return ARTICLE[typeof v] ?? typeof v;
}

/** What a map's keys are called, for property-name errors (by the parent section's name). */
const NAME_KINDS: Record<string, string> = {
  providers: 'provider id',
  aliases: 'alias id',
  roles: 'role id',
  models: 'model name',
  headers: 'header name',
};

const MIN_ENTRIES: Record<string, string> = { providers: 'provider', models: 'model' };

/** Human wording for the schema's patterns; unknown patterns fall back to quoting the regex. */
const PATTERN_HINTS: Record<string, string> = {
  '^[a-z0-9][a-z0-9_-]*$': 'use lowercase letters, digits, "_" and "-", starting with a letter or digit',
  '^[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._-]*$':
    'use <namespace>/<name>, each part lowercase letters, digits, ".", "_" and "-"',
  '^[A-Za-z0-9][A-Za-z0-9._-]*$': 'use letters, digits, ".", "_" and "-", starting with a letter or digit',
  '^[A-Za-z0-9][A-Za-z0-9._:@/+-]*$': 'use letters, digits and ._:@/+-, starting with a letter or digit',
  '^(https?://|\\$\\{)': 'must be an http:// or https:// URL',
  '^[a-z0-9][a-z0-9_-]*/[A-Za-z0-9][A-Za-z0-9._:@/+-]*$': 'must be a model id <provider>/<model>',
  '^[a-z0-9][a-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._:@/+-]*$': 'must be a model or alias id <provider-or-namespace>/<name>',
  '^(\\*|[a-z0-9][a-z0-9._-]*/\\*|[a-z0-9][a-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._:@/+-]*)$':
    'must be "*", "<provider-or-namespace>/*" or an exact model or alias id',
  '^[imsuv]*$': 'regex flags may only be i, m, s, u and v',
  '^\\s*[0-9]+(\\.[0-9]+)?\\s*([bB]|[kKmM][iI]?[bB]?)?\\s*$': 'must be a byte count such as 1048576, "512kb" or "4mb"',
};

function patternText(p: string): string {
  return PATTERN_HINTS[p] ?? `must match ${p}`;
}

function allowedProps(e: ErrorObject): string[] {
  const props = (e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  return Object.keys(props).filter((k) => props[k] !== false);
}

interface Translated {
  /** Where to point in the YAML. */
  segs: PathSeg[];
  at: Anchor;
  message: string;
  /** Path shown to the user when it differs from `segs` (the object, when the message names the key). */
  path?: PathSeg[];
}

/** One ajv error → message and where to point, or undefined for wrapper errors (if, propertyNames). */
function translate(e: ErrorObject, root: unknown): Translated | undefined {
  const segs = pointerToSegments(e.instancePath, root);
  const p = e.params as Record<string, unknown>;
  const parentSchema = e.parentSchema as Record<string, unknown> | undefined;
  switch (e.keyword) {
    case 'if':
    case 'propertyNames':
      return undefined; // the failing inner keyword carries the information
    case 'additionalProperties': {
      const prop = String(p.additionalProperty);
      const type = (e.parentSchema as { properties?: { type?: { const?: unknown } } }).properties?.type?.const;
      const forType = typeof type === 'string' ? ` for a "${type}" check` : '';
      return {
        segs: [...segs, prop],
        path: segs,
        at: 'key',
        message: `unknown property "${prop}"${forType}${hint(prop, allowedProps(e))}`,
      };
    }
    case 'required': {
      const prop = String(p.missingProperty);
      const api = (valueAt(root, segs) as { api?: unknown } | undefined)?.api;
      const why = e.schemaPath.includes('/then/') && typeof api === 'string' ? ` (required for api "${api}")` : '';
      return { segs, at: 'key', message: `missing required property "${prop}"${why}` };
    }
    case 'false schema': {
      const prop = String(segs[segs.length - 1]);
      const api = (valueAt(root, segs.slice(0, -1)) as { api?: unknown } | undefined)?.api;
      const why = typeof api === 'string' ? ` for api "${api}"` : ' here';
      return { segs, path: segs.slice(0, -1), at: 'key', message: `property "${prop}" is not allowed${why}` };
    }
    case 'type': {
      const types = (Array.isArray(p.type) ? p.type : [p.type]).map((t) => ARTICLE[String(t)] ?? String(t));
      return { segs, at: 'value', message: `must be ${types.join(' or ')}, got ${typeOf(e.data)}` };
    }
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]).map((v) => JSON.stringify(v));
      const h = typeof e.data === 'string' ? hint(e.data, (p.allowedValues as unknown[]).map(String)) : '';
      return { segs, at: 'value', message: `must be one of ${allowed.join(', ')}${h}` };
    }
    case 'const':
      return { segs, at: 'value', message: `must be ${JSON.stringify(p.allowedValue)}` };
    case 'pattern': {
      if (e.propertyName !== undefined) {
        const parent = segs[segs.length - 1];
        const kind = (typeof parent === 'string' && NAME_KINDS[parent]) || 'name';
        return {
          segs: [...segs, e.propertyName],
          path: segs,
          at: 'key',
          message: `invalid ${kind} "${e.propertyName}": ${patternText(String(p.pattern))}`,
        };
      }
      return { segs, at: 'value', message: patternText(String(p.pattern)) };
    }
    case 'minProperties':
    case 'maxProperties': {
      if (parentSchema?.minProperties === 1 && parentSchema?.maxProperties === 1) {
        return { segs, at: 'key', message: `must have exactly one of ${allowedProps(e).join(', ')}` };
      }
      const n = Number(p.limit);
      const what = MIN_ENTRIES[String(segs[segs.length - 1])];
      if (e.keyword === 'minProperties' && n === 1 && what)
        return { segs, at: 'key', message: `must define at least one ${what}` };
      const more = e.keyword === 'minProperties' ? 'at least' : 'at most';
      return { segs, at: 'key', message: `must have ${more} ${n} entr${n === 1 ? 'y' : 'ies'}` };
    }
    case 'minItems':
      return { segs, at: 'value', message: `must have at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}` };
    case 'minLength':
      return {
        segs,
        at: 'value',
        message: p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters`,
      };
    case 'uniqueItems':
      return { segs: [...segs, Number(p.i)], at: 'value', message: `duplicate of item ${String(p.j)}` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { segs, at: 'value', message: `must be ${String(p.comparison)} ${String(p.limit)}` };
    default:
      return { segs, at: 'value', message: e.message ?? `fails schema keyword "${e.keyword}"` };
  }
}

/** ajv errors (compiled with `verbose: true`) → issues, one per distinct problem. */
export function ajvErrorsToIssues(
  errors: readonly ErrorObject[],
  root: unknown,
  file: string,
  locate: Locate,
): ConfigIssue[] {
  // A property unknown to both the guardrail check's union and its type-specific branch is
  // reported twice; keep the report with the narrowest list of allowed names (better hints).
  const unknown = new Map<string, ErrorObject>();
  for (const e of errors) {
    if (e.keyword !== 'additionalProperties') continue;
    const k = `${e.instancePath}\0${String(e.params.additionalProperty)}`;
    const prev = unknown.get(k);
    if (!prev || allowedProps(e).length < allowedProps(prev).length) unknown.set(k, e);
  }
  const seen = new Set<string>();
  const out: ConfigIssue[] = [];
  const keep = new Set(unknown.values());
  for (const e of errors) {
    if (e.keyword === 'additionalProperties' && !keep.has(e)) continue;
    const t = translate(e, root);
    if (!t) continue;
    const path = formatPath(t.path ?? t.segs);
    const issue: ConfigIssue = { severity: 'error', file, ...locate(t.segs, t.at), path, message: t.message };
    const k = `${issue.line}:${issue.col}:${issue.path}:${issue.message}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(issue);
  }
  return out;
}
