/**
 * Microsoft Entra ID access tokens for a service principal (OAuth 2.0 client credentials), for
 * Azure OpenAI. One cache per provider's credentials: a token is reused until shortly before it
 * expires, and concurrent requests share one fetch; a token Azure refuses is dropped, so the next
 * request fetches another. A failed fetch is not cached and is bounded by the provider's first-byte
 * timeout. Neither the secret nor the token is ever put in a message.
 */

import type { EntraCredentials, ProviderConfig } from '../config/types.js';
import { GatewayError, upstreamStatusError } from '../core/errors.js';
import { CachedTokenSource } from './cached-token.js';

const SCOPE = 'https://cognitiveservices.azure.com/.default';

class EntraTokenSource extends CachedTokenSource {
  constructor(
    private readonly provider: ProviderConfig,
    private readonly creds: EntraCredentials,
  ) {
    super();
  }

  protected async fetchToken(): Promise<{ value: string; lifetimeMs: number }> {
    const { tenantId, clientId, clientSecret, authorityHost } = this.creds;
    const url = `${authorityHost}/${encodeURIComponent(tenantId)}/oauth2/v2.0/token`;
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
      scope: SCOPE,
    });
    let res: Response;
    let body: unknown;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form,
        signal: AbortSignal.timeout(this.provider.timeouts.firstByteMs),
      });
      body = await res.json().catch(() => undefined);
    } catch (err) {
      const timedOut = (err as Error | null)?.name === 'TimeoutError';
      const why = `the token endpoint ${timedOut ? 'timed out' : 'could not be reached'}`;
      // Transient, as a provider that cannot be reached is: routing retries or moves on.
      throw new GatewayError(timedOut ? 'upstream_timeout' : 'upstream_unavailable', this.failure(why), { cause: err });
    }
    const b = (body ?? {}) as { access_token?: unknown; expires_in?: unknown; error?: unknown };
    if (!res.ok || typeof b.access_token !== 'string' || b.access_token === '') {
      // `error` is an OAuth code such as invalid_client; the description may quote the request.
      const code = typeof b.error === 'string' && /^[a-z_]{1,64}$/.test(b.error) ? ` (${b.error})` : '';
      const why = `the token endpoint answered HTTP ${res.status}${code}`;
      if (res.status >= 500) throw new GatewayError('upstream_unavailable', this.failure(why));
      // Refused credentials: routing treats it as the provider refusing the gateway's credential.
      throw upstreamStatusError(this.failure(why), 401);
    }
    return { value: b.access_token, lifetimeMs: Math.max(0, Number(b.expires_in) || 0) * 1000 };
  }

  private failure(why: string): string {
    const whose = `Provider "${this.provider.id}" could not get a Microsoft Entra ID token`;
    return `${whose} for tenant "${this.creds.tenantId}": ${why}.`;
  }
}

/** Keyed by the normalised credentials object: a reloaded config starts a new cache. */
const sources = new WeakMap<EntraCredentials, EntraTokenSource>();

/** A bearer token for the provider's Entra ID service principal. */
export function entraToken(provider: ProviderConfig, creds: EntraCredentials): Promise<string> {
  let source = sources.get(creds);
  if (!source) {
    source = new EntraTokenSource(provider, creds);
    sources.set(creds, source);
  }
  return source.get();
}

/** The tokens fetched lately for these credentials (secrets to redact). */
export function recentEntraTokens(creds: EntraCredentials): readonly string[] {
  return sources.get(creds)?.recentTokens() ?? [];
}

/** Azure refused the token (revoked, or the clock skewed): the next request fetches a new one. */
export function forgetEntraToken(creds: EntraCredentials): void {
  sources.get(creds)?.forget();
}
