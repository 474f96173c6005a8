/**
 * Google's error bodies: `{error: {code, message, status, details}}`. The HTTP status already
 * says the kind (429 RESOURCE_EXHAUSTED, 503 UNAVAILABLE, 500 INTERNAL, 401/403 credentials, 400
 * INVALID_ARGUMENT) and upstream/http-error.ts maps it into the catalogue; the body adds the
 * message and, on 429, how long to wait (`google.rpc.RetryInfo`).
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting
 */

import { upstreamStatusError, type GatewayError } from '../../core/errors.js';
import { isObject } from '../../core/json.js';
import { boundText, redactSecrets } from '../../observe/redact.js';

export function geminiErrorMessage(body: unknown): string | undefined {
  const e = isObject(body) && isObject(body.error) ? body.error : undefined;
  if (typeof e?.message !== 'string') return undefined;
  return typeof e.status === 'string' ? `${e.message} (${e.status})` : e.message;
}

/** RetryInfo's `retryDelay` ("30s", "1.5s") in milliseconds. */
export function geminiRetryDelayMs(body: unknown): number | undefined {
  const e = isObject(body) && isObject(body.error) ? body.error : undefined;
  if (!Array.isArray(e?.details)) return undefined;
  for (const d of e.details) {
    if (!isObject(d) || d['@type'] !== 'type.googleapis.com/google.rpc.RetryInfo') continue;
    const m = typeof d.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(d.retryDelay) : null;
    if (m) return Math.ceil(Number(m[1]) * 1000);
  }
  return undefined;
}

/**
 * Google answers an API key it does not accept with 400 INVALID_ARGUMENT (reason
 * API_KEY_INVALID): that is a refused credential, 401, so the credential rules apply.
 */
export function geminiErrorStatus(status: number, body: unknown): number {
  const e = isObject(body) && isObject(body.error) ? body.error : undefined;
  if (status !== 400 || !Array.isArray(e?.details)) return status;
  const refused = e.details.some((d) => isObject(d) && d.reason === 'API_KEY_INVALID');
  return refused ? 401 : status;
}

/** An error object sent as a stream chunk → the catalogue error for its code (500 when it has none). */
export function geminiStreamError(body: unknown): GatewayError {
  const e = isObject(body) && isObject(body.error) ? body.error : {};
  const code = typeof e.code === 'number' && e.code >= 400 && e.code < 600 ? e.code : 500;
  const message = geminiErrorMessage(body);
  const detail = message ? `: ${boundText(redactSecrets(message), 4000)}` : '';
  return upstreamStatusError(`The upstream reported an error during the stream${detail}`, code);
}
