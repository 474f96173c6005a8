/**
 * Which gateway key `serve` puts in its curl line, and how. The config keeps only digests, so the
 * key is read back from how the file writes it:
 * - written in the file (a literal, or `${VAR:-default}` while VAR is unset or empty): shown as
 *   it is, so the line works when pasted (whoever reads the file has it anyway);
 * - from the environment (`${VAR}`, or `${VAR:-default}` with VAR set): `$VAR`, never its value;
 * - anything else (a `sha256:` digest, a key assembled from several variables): `$GATEWAY_KEY`,
 *   for the user to set.
 * A key shown is checked against the loaded digest, so the line never carries a key that fails.
 */
import { createHash } from 'node:crypto';
import { parseDocument } from 'yaml';
import { interpolateString } from '../config/interpolate.js';
import type { GatewayConfig, KeyConfig } from '../config/types.js';

export type CurlKey =
  /** `unsetVariable`: the variable whose default is in effect (`${VAR:-default}`), if any. */
  | { key: KeyConfig; kind: 'file'; value: string; unsetVariable?: string }
  | { key: KeyConfig; kind: 'env'; variable: string }
  | { key: KeyConfig; kind: 'unknown' };

const WHOLE_REF = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-.*)?\}$/s;

/** How one key is written: `raw` is its string in the file (undefined when not found). */
export function classifyKey(key: KeyConfig, raw: unknown, env: NodeJS.ProcessEnv): CurlKey {
  if (typeof raw !== 'string') return { key, kind: 'unknown' };
  const now = interpolateString(raw, env);
  const fileOnly = interpolateString(raw, {});
  // Same value without any environment: every variable fell back to its default.
  const fromFile = !now.referenced || (fileOnly.missing.length === 0 && fileOnly.value === now.value);
  if (fromFile && now.malformed.length === 0) {
    const digest = createHash('sha256').update(now.value, 'utf8').digest();
    if (digest.equals(key.sha256)) {
      const m = now.referenced ? WHOLE_REF.exec(raw) : null;
      return { key, kind: 'file', value: now.value, ...(m ? { unsetVariable: m[1] } : {}) };
    }
    return { key, kind: 'unknown' }; // a sha256: digest, or the file changed since it was loaded
  }
  const m = WHOLE_REF.exec(raw);
  if (m && env[m[1]]) return { key, kind: 'env', variable: m[1] };
  return { key, kind: 'unknown' };
}

/** The `keys[].key` strings of the config text, by key id (empty when it does not parse). */
export function rawKeys(text: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  try {
    const data = parseDocument(text).toJS() as { keys?: Array<{ id?: unknown; key?: unknown }> } | null;
    for (const k of Array.isArray(data?.keys) ? data.keys : []) if (typeof k?.id === 'string') out.set(k.id, k?.key);
  } catch {
    // no raw keys: every key is 'unknown'
  }
  return out;
}

const RANK = { file: 0, env: 1, unknown: 2 } as const;

/**
 * The key for the curl line: among keys whose role may use some model (`usable`), the first one
 * that can be shown, else the first one from the environment, else the first one.
 */
export function pickCurlKey(
  config: GatewayConfig,
  text: string,
  env: NodeJS.ProcessEnv,
  usable: (k: KeyConfig) => boolean,
): CurlKey | undefined {
  const raws = rawKeys(text);
  const ranked = config.keys.filter(usable).map((k) => classifyKey(k, raws.get(k.id), env));
  return ranked.reduce<CurlKey | undefined>(
    (best, c) => (!best || RANK[c.kind] < RANK[best.kind] ? c : best),
    undefined,
  );
}

/** The key as shell text inside double quotes: a value escaped, or a variable reference. */
export function shellKey(k: CurlKey): string {
  if (k.kind === 'file') return k.value.replace(/[\\"$`]/g, '\\$&');
  return k.kind === 'env' ? `$${k.variable}` : '$GATEWAY_KEY';
}
