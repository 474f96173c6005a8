/**
 * What kind of failure an attempt ended in, and whether a routing list (`retry_on`,
 * `fallback_on`) covers it. Only upstream failures are classified: the caller's own mistakes
 * and the gateway's checks are never retried or sent elsewhere.
 */

import type { FailureMatch } from '../config/types.js';
import type { GatewayError } from '../core/errors.js';

export interface Failure {
  /** `http`: the provider answered with an error status (`status`). */
  cls: 'connect' | 'timeout' | 'auth' | 'http';
  status?: number;
  /** From `retry-after-ms` / `retry-after`, when the provider sent one. */
  retryAfterMs?: number;
}

/** Undefined when the error is not a provider failure (caller error, policy, gateway bug). */
export function classifyFailure(err: GatewayError): Failure | undefined {
  const up = err.upstream;
  if (err.code === 'upstream_timeout') return { cls: 'timeout' };
  if (err.code === 'upstream_unavailable') return { cls: 'connect' };
  if (err.code !== 'upstream_error') return undefined;
  const status = up?.status ?? err.status;
  const retryAfterMs = up?.retryAfterMs;
  if (status === 401 || status === 403) return { cls: 'auth', status };
  return { cls: 'http', status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

/** Whether the failure says something about the provider's health (counts toward its circuit). */
export function isProviderFault(f: Failure): boolean {
  if (f.cls !== 'http') return true;
  const s = f.status ?? 0;
  return s === 408 || s === 429 || s >= 500;
}

/** Statuses that are always the caller's to fix: never retried or moved on, whatever the lists say. */
const CALLER_STATUSES = new Set([400, 404, 413, 422]);

export function failureMatches(list: readonly FailureMatch[], f: Failure): boolean {
  if (f.status !== undefined && CALLER_STATUSES.has(f.status)) return false;
  for (const m of list) {
    if (m === f.cls) return true;
    if (
      f.cls === 'http' &&
      f.status !== undefined &&
      (m === f.status || (m === '5xx' && f.status >= 500 && f.status <= 599))
    )
      return true;
  }
  return false;
}
