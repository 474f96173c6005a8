import type { ProviderConfig } from '../config/types.js';
import { GatewayError, kindForStatus } from '../core/errors.js';
import { redactSecrets } from '../observe/redact.js';

/**
 * An upstream's 4xx/5xx → a GatewayError keeping its status, with the upstream's own message
 * (redacted, bounded) so callers can fix their request. 401/403 from a provider mean the
 * gateway's provider credential is bad, not the caller's key: that becomes a 502 so SDKs do not
 * report the caller's gateway key as wrong.
 */
export function upstreamHttpError(p: ProviderConfig, status: number, bodyText: string, upstreamMessage: string | undefined, retryAfter?: string): GatewayError {
  const name = `Provider "${p.id}"`;
  if (status === 401 || status === 403) {
    return new GatewayError('upstream_error', `${name} rejected the gateway's credentials (HTTP ${status}).`, { status: 502, kind: 'upstream', retryable: false });
  }
  const raw = upstreamMessage ?? (bodyText.length > 0 && bodyText.length < 300 && !bodyText.trimStart().startsWith('<') ? bodyText.trim() : '');
  const detail = raw ? `: ${redactSecrets(raw, [p.apiKey]).slice(0, 1000)}` : '';
  const headers = retryAfter ? { 'retry-after': retryAfter } : undefined;
  return new GatewayError('upstream_error', `${name} returned HTTP ${status}${detail}`, {
    status: status >= 400 && status <= 599 ? status : 502,
    kind: kindForStatus(status),
    retryable: status === 429 || status >= 500,
    headers,
  });
}
