import type { ProviderConfig } from '../config/types.js';
import { type GatewayError, upstreamStatusError } from '../core/errors.js';
import { boundText, redactSecrets } from '../observe/redact.js';
import { parseRetryAfter } from '../core/retry-after.js';

export interface UpstreamErrorDetails {
  /** The provider's `retry-after` and `retry-after-ms` headers, when sent. */
  retryAfter?: string;
  retryAfterMs?: string;
  /** Keys used for this request (configured or the caller's own), redacted from any message. */
  secrets?: ReadonlyArray<string | undefined>;
}

/**
 * An upstream's 4xx/5xx → a GatewayError keeping its status, with the upstream's own message
 * (redacted, bounded) so callers can fix their request. 401/403 from a provider mean the
 * gateway's provider credential is bad, not the caller's key: that becomes a 502 so SDKs do not
 * report the caller's gateway key as wrong (the provider's status stays in `upstream` for routing).
 */
export function upstreamHttpError(
  p: ProviderConfig,
  status: number,
  bodyText: string,
  upstreamMessage: string | undefined,
  d: UpstreamErrorDetails = {},
): GatewayError {
  const name = `Provider "${p.id}"`;
  const retryAfterMs = parseRetryAfter(d.retryAfterMs, d.retryAfter);
  if (status === 401 || status === 403)
    return upstreamStatusError(`${name} rejected the gateway's credentials (HTTP ${status}).`, status, {
      retryAfterMs,
    });
  const raw =
    upstreamMessage ??
    (bodyText.length > 0 && bodyText.length < 300 && !bodyText.trimStart().startsWith('<') ? bodyText.trim() : '');
  const detail = raw ? `: ${boundText(redactSecrets(raw, [p.apiKey, ...(d.secrets ?? [])]), 4000)}` : '';
  const headers = retryAfterMs !== undefined ? { 'retry-after': String(Math.ceil(retryAfterMs / 1000)) } : undefined;
  return upstreamStatusError(`${name} returned HTTP ${status}${detail}`, status, { headers, retryAfterMs });
}
