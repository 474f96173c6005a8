import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * ulid's default source calls crypto.getRandomValues once per character (16 per id); on the hot
 * path that was a measurable share of the gateway's CPU. The same CSPRNG, read 4 KiB at a time.
 */
const pool = new Uint8Array(4096);
let next = pool.length;
function pooledRandom(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++] / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

const ULID_RE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** A new ULID for X-Correlation-ID. */
export function newCorrelationId(): string {
  return nextUlid();
}

/** The caller's id is kept only when it is a well-formed ULID (it is echoed in headers and logs). */
export function acceptCorrelationId(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  const upper = v.toUpperCase();
  return ULID_RE.test(upper) ? upper : undefined;
}

/** Short random id for generated completions / tool calls (mock provider, translation). */
export function randomId(prefix: string): string {
  return prefix + nextUlid().toLowerCase();
}
