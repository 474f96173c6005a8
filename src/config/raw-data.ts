/**
 * Reading the config as written, before it is validated: defensive accessors that never trust
 * the shape (the checks run even when the schema reported errors), and the small parsers the
 * checks and normalisation share.
 */
import { createHash } from 'node:crypto';

export type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const entries = (v: unknown): [string, unknown][] => Object.entries(obj(v) ?? {});

/** sha256 digest of a gateway key as written (`sha256:<hex>` is taken as the digest itself). */
export function keyDigest(key: string): Buffer | undefined {
  if (key.startsWith('sha256:')) {
    const hex = key.slice('sha256:'.length);
    return /^[0-9a-fA-F]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : undefined;
  }
  return createHash('sha256').update(key, 'utf8').digest();
}

/** A concrete id splits at its first `/`: `local/meta-llama/llama-3` → provider `local`. */
export function splitId(id: string): [string, string] {
  const i = id.indexOf('/');
  return i < 0 ? [id, ''] : [id.slice(0, i), id.slice(i + 1)];
}

/** "4mb" → 4 MiB; "512kb" → 512 KiB; plain numbers are bytes. k/m are binary multiples. */
export function parseBodyLimit(v: string | number): number {
  if (typeof v === 'number') return v;
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*$/i.exec(v);
  if (!m) return NaN;
  const unit = m[2].toLowerCase().charAt(0);
  const mult = unit === 'k' ? 1024 : unit === 'm' ? 1024 * 1024 : 1;
  return Math.floor(Number(m[1]) * mult);
}
