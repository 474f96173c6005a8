/**
 * Google Cloud access tokens for Vertex AI, through google-auth-library: from a service-account key
 * file (`vertex.credentials_file`) or the environment's application default credentials (the file
 * GOOGLE_APPLICATION_CREDENTIALS names, gcloud's, the metadata server). One cache
 * per provider's settings: a token is reused until shortly before it expires, concurrent requests
 * share one fetch, and a token Vertex refuses is dropped (with its client, so a rotated key file is
 * read again). A failed fetch is not cached and is bounded by the provider's first-byte timeout.
 * Neither the key nor the token is ever put in a message.
 *
 * The library is loaded on first use: a gateway without a vertex provider never loads it.
 */

import { readFile } from 'node:fs/promises';
import type { AuthClient } from 'google-auth-library';
import type { ProviderConfig, VertexSettings } from '../config/types.js';
import { GatewayError, upstreamStatusError } from '../core/errors.js';
import { CachedTokenSource, REFRESH_MARGIN_MS } from './cached-token.js';

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** Where the library sends a service account's signed assertion (it ignores the key's token_uri). */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
class VertexTokenSource extends CachedTokenSource {
  private client: Promise<AuthClient> | undefined;

  constructor(
    private readonly provider: ProviderConfig,
    private readonly settings: VertexSettings,
  ) {
    super();
  }

  override forget(): void {
    super.forget();
    this.client = undefined;
  }

  protected async fetchToken(): Promise<{ value: string; lifetimeMs: number }> {
    const timeoutMs = this.provider.timeouts.firstByteMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new GatewayError('upstream_timeout', this.failure('the token request timed out'))),
        timeoutMs,
      );
    });
    try {
      const client = await Promise.race([(this.client ??= this.makeClient()), timedOut]);
      const { token } = await Promise.race([client.getAccessToken(), timedOut]);
      if (!token) throw upstreamStatusError(this.failure('no access token came back'), 401);
      const expiry = client.credentials.expiry_date;
      return { value: token, lifetimeMs: typeof expiry === 'number' ? Math.max(0, expiry - Date.now()) : 0 };
    } catch (err) {
      this.client = undefined;
      throw err instanceof GatewayError ? err : this.classify(err);
    } finally {
      clearTimeout(timer);
    }
  }

  private async makeClient(): Promise<AuthClient> {
    const { GoogleAuth } = await import('google-auth-library');
    const clientOptions = { eagerRefreshThresholdMillis: REFRESH_MARGIN_MS };
    // The default credentials' first source, GOOGLE_APPLICATION_CREDENTIALS, is a key file too: read
    // here as a configured one is, so its token_uri is honoured (the library would post to Google's).
    const file = this.settings.credentialsFile ?? (process.env.GOOGLE_APPLICATION_CREDENTIALS || undefined);
    if (file === undefined) return new GoogleAuth({ scopes: SCOPE, clientOptions }).getClient();
    const key = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    const client = await new GoogleAuth({ scopes: SCOPE, credentials: key, clientOptions }).getClient();
    sendAssertionsTo(client, key.token_uri);
    return client;
  }

  /** A refusal (4xx) is the credential error; an endpoint that is down or unreachable is transient. */
  private classify(err: unknown): GatewayError {
    const status = (err as { response?: { status?: unknown } } | null)?.response?.status;
    if (typeof status === 'number') {
      const why = `the token endpoint answered HTTP ${status}`;
      if (status >= 500) return new GatewayError('upstream_unavailable', this.failure(why), { cause: err });
      return upstreamStatusError(this.failure(why), 401);
    }
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code) && code !== 'ENOENT' && code !== 'EACCES') {
      return new GatewayError('upstream_unavailable', this.failure('the token endpoint could not be reached'), {
        cause: err,
      });
    }
    // No usable credentials: an unreadable key file, a malformed key, no default credentials.
    return upstreamStatusError(this.failure('its credentials could not be loaded'), 401);
  }

  private failure(why: string): string {
    return `Provider "${this.provider.id}" could not get a Google Cloud access token: ${why}.`;
  }
}

/**
 * A key file names its token endpoint (`token_uri`); the library posts to Google's whatever it says.
 * Honour the file, so a key for another endpoint (a test's, a private one) is sent there.
 */
function sendAssertionsTo(client: AuthClient, tokenUri: unknown): void {
  if (typeof tokenUri !== 'string' || tokenUri === GOOGLE_TOKEN_URL || !/^https?:\/\//.test(tokenUri)) return;
  client.transporter.interceptors.request.add({
    resolved: async (opts) => {
      if (String(opts.url) === GOOGLE_TOKEN_URL) opts.url = new URL(tokenUri);
      return opts;
    },
  });
}

/** Keyed by the normalised settings object: a reloaded config starts a new cache. */
const sources = new WeakMap<VertexSettings, VertexTokenSource>();

/** A bearer token for the provider's Google Cloud credentials. */
export function vertexToken(provider: ProviderConfig, settings: VertexSettings): Promise<string> {
  let source = sources.get(settings);
  if (!source) {
    source = new VertexTokenSource(provider, settings);
    sources.set(settings, source);
  }
  return source.get();
}

/** The tokens fetched lately for these settings (secrets to redact). */
export function recentVertexTokens(settings: VertexSettings): readonly string[] {
  return sources.get(settings)?.recentTokens() ?? [];
}

/** Vertex refused the token (revoked, expired early): the next request fetches a new one. */
export function forgetVertexToken(settings: VertexSettings): void {
  sources.get(settings)?.forget();
}
