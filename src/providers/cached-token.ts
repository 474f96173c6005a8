/**
 * What every token-authenticated provider kind needs of its token (Entra ID, Google Cloud): reused
 * until shortly before it expires, one fetch shared by concurrent requests, a failed fetch not
 * cached, and a refused token dropped so the next request fetches another. Subclasses fetch.
 */

/** Refresh this long before expiry (or at half the lifetime of a shorter-lived token). */
export const REFRESH_MARGIN_MS = 5 * 60_000;
/** Tokens remembered for redaction: the current one and a few before it (a dropped token may still be echoed). */
const REMEMBERED_TOKENS = 4;

export abstract class CachedTokenSource {
  private token: { value: string; refreshAt: number } | undefined;
  private pending: Promise<string> | undefined;
  private readonly fetched: string[] = [];

  /** A fresh token and how long it lives (ms; 0 when unknown: refetched next time). */
  protected abstract fetchToken(): Promise<{ value: string; lifetimeMs: number }>;

  forget(): void {
    this.token = undefined;
  }

  /** The latest tokens fetched, newest last: secrets no caller or log may see (request/secrets.ts). */
  recentTokens(): readonly string[] {
    return this.fetched;
  }

  get(): Promise<string> {
    if (this.token && Date.now() < this.token.refreshAt) return Promise.resolve(this.token.value);
    this.pending ??= this.fetchToken()
      .then(({ value, lifetimeMs }) => {
        this.token = { value, refreshAt: Date.now() + lifetimeMs - Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2) };
        this.fetched.push(value);
        if (this.fetched.length > REMEMBERED_TOKENS) this.fetched.shift();
        return value;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }
}
