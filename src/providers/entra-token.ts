/**
 * Microsoft Entra ID access tokens for a service principal (OAuth 2.0 client credentials), for
 * Azure OpenAI. One cache per provider's credentials: a token is reused until shortly before it
 * expires, and concurrent requests share one fetch. A failed fetch is not cached (the next request
 * tries again) and is bounded by the provider's first-byte timeout. Neither the secret nor the
 * token is ever put in a message.
 */

import type { EntraCredentials, ProviderConfig } from '../config/types.js';
import { upstreamStatusError, type GatewayError } from '../core/errors.js';

const SCOPE = 'https://cognitiveservices.azure.com/.default';
/** Refresh this long before expiry (or at half the lifetime of a shorter-lived token). */
const REFRESH_MARGIN_MS = 5 * 60_000;

interface CachedToken {
  value: string;
  refreshAt: number;
}

class EntraTokenSource {
  private token: CachedToken | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly provider: ProviderConfig,
    private readonly creds: EntraCredentials,
  ) {}

  get(): Promise<string> {
    if (this.token && Date.now() < this.token.refreshAt) return Promise.resolve(this.token.value);
    if (!this.pending) {
      this.pending = this.fetchToken().finally(() => {
        this.pending = undefined;
      });
    }
    return this.pending;
  }

  private async fetchToken(): Promise<string> {
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
      const why = (err as Error | null)?.name === 'TimeoutError' ? 'timed out' : 'could not be reached';
      throw this.failure(`the token endpoint ${why}`);
    }
    const b = (body ?? {}) as { access_token?: unknown; expires_in?: unknown; error?: unknown };
    if (!res.ok || typeof b.access_token !== 'string' || b.access_token === '') {
      // `error` is an OAuth code such as invalid_client; the description may quote the request.
      const code = typeof b.error === 'string' && /^[a-z_]{1,64}$/.test(b.error) ? ` (${b.error})` : '';
      throw this.failure(`the token endpoint answered HTTP ${res.status}${code}`);
    }
    const lifetimeMs = Math.max(0, Number(b.expires_in) || 0) * 1000;
    this.token = {
      value: b.access_token,
      refreshAt: Date.now() + lifetimeMs - Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2),
    };
    return b.access_token;
  }

  /** A credential failure: the routing loop treats it as the provider refusing the gateway's credential. */
  private failure(why: string): GatewayError {
    const whose = `Provider "${this.provider.id}" could not get a Microsoft Entra ID token`;
    return upstreamStatusError(`${whose} for tenant "${this.creds.tenantId}": ${why}.`, 401);
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
