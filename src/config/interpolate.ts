/**
 * `${VAR}` / `${VAR:-default}` substitution in string values (never in keys).
 *
 * - `$${` is a literal `${` (so `$${HOME}` stays `${HOME}`).
 * - `${VAR:-default}` uses the default when VAR is unset *or empty* (shell semantics);
 *   `${VAR}` with VAR set to '' yields ''. The default is taken literally (no nesting).
 * - An unset variable without default is an error, except in `providers.<id>.api_key`, where it
 *   is a warning and the provider is marked unavailable: the gateway can still serve the others.
 *
 * Messages name variables only. Resolved values may be secrets and never enter a message.
 */
import { formatPath, type Locate, type PathSeg } from './issues.js';
import type { ConfigIssue } from './types.js';

const REF = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

export interface StringResult {
  value: string;
  /** Variables referenced without default that are not set. */
  missing: string[];
  /** Syntax problems, e.g. an unterminated `${`. */
  malformed: string[];
  /** Whether the string contained any `${...}` reference. */
  referenced: boolean;
}

/** Substitutes one string. Missing variables become '' (the caller reports them). */
export function interpolateString(s: string, env: NodeJS.ProcessEnv): StringResult {
  const res: StringResult = { value: s, missing: [], malformed: [], referenced: false };
  if (!s.includes('$')) return res;
  let out = '';
  let i = 0;
  while (i < s.length) {
    if (s.startsWith('$${', i)) {
      out += '${';
      i += 3;
    } else if (s.startsWith('${', i)) {
      const end = s.indexOf('}', i + 2);
      if (end < 0) {
        res.malformed.push('unterminated "${" (write "$${" for a literal "${")');
        out += s.slice(i);
        break;
      }
      const m = REF.exec(s.slice(i + 2, end));
      res.referenced = true;
      if (!m) {
        res.malformed.push(
          `invalid variable reference "${s.slice(i, end + 1)}" (expected \${NAME} or \${NAME:-default})`,
        );
      } else {
        const [, name, fallback] = m;
        const v = env[name];
        if (fallback !== undefined) out += v === undefined || v === '' ? fallback : v;
        else if (v === undefined) res.missing.push(name);
        else out += v;
      }
      i = end + 1;
    } else {
      out += s[i++];
    }
  }
  res.value = out;
  return res;
}

export interface InterpolationResult {
  /** A deep copy of the input with every string substituted. */
  data: unknown;
  issues: ConfigIssue[];
  /** Provider id → reason, for providers whose api_key (or Entra client secret) variable is unset. */
  unavailable: Map<string, string>;
  /** Formatted paths of strings that referenced an unset variable (semantic checks skip them). */
  missingPaths: Set<string>;
}

/**
 * A provider's credential: its `api_key`, its Entra ID client secret (api: azure-openai), or its
 * AWS credentials (api: bedrock).
 */
function isApiKey(segs: readonly PathSeg[]): segs is ['providers', string, ...PathSeg[]] {
  if (segs[0] !== 'providers') return false;
  if (segs.length === 3) return segs[2] === 'api_key';
  if (segs.length !== 4) return false;
  return (segs[2] === 'entra' && segs[3] === 'client_secret') || segs[2] === 'aws';
}

function isGatewayKey(segs: readonly PathSeg[]): boolean {
  return segs.length === 3 && segs[0] === 'keys' && segs[2] === 'key';
}

/** Interpolates every string value of the (schema-checked) config data. */
export function interpolateConfig(
  data: unknown,
  env: NodeJS.ProcessEnv,
  file: string,
  locate: Locate,
): InterpolationResult {
  const issues: ConfigIssue[] = [];
  const unavailable = new Map<string, string>();
  const missingPaths = new Set<string>();
  const report = (severity: ConfigIssue['severity'], segs: PathSeg[], message: string) =>
    issues.push({ severity, file, ...locate(segs, 'value'), path: formatPath(segs), message });

  const walk = (v: unknown, segs: PathSeg[]): unknown => {
    if (typeof v === 'string') {
      const r = interpolateString(v, env);
      for (const m of r.malformed) report('error', segs, m);
      if (r.missing.length) missingPaths.add(formatPath(segs));
      for (const name of r.missing) {
        if (isApiKey(segs)) {
          const reason = `environment variable ${name} is not set`;
          if (!unavailable.has(segs[1])) unavailable.set(segs[1], reason);
          report('warning', segs, `${reason}; provider "${segs[1]}" is unavailable`);
        } else if (isGatewayKey(segs)) {
          report('error', segs, `environment variable ${name} is not set (needed for this gateway key)`);
        } else {
          report('error', segs, `environment variable ${name} is not set`);
        }
      }
      return r.value;
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, [...segs, i]));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, [...segs, k]);
      return out;
    }
    return v;
  };
  return { data: walk(data, []), issues, unavailable, missingPaths };
}
