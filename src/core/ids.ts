import { monotonicFactory } from 'ulid';

const nextUlid = monotonicFactory();

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
