/**
 * What every token-authenticated provider kind needs of its token (Entra ID, Google Cloud): reused
 * until shortly before it expires, one fetch shared by concurrent requests, a failed fetch not
 * cached, and a refused token dropped so the next request fetches another. Subclasses fetch.
 */

/** Refresh this long before expiry (or at half the lifetime of a shorter-lived token). */
export const REFRESH_MARGIN_MS = 5 * 60_000;

export abstract class CachedTokenSource {
  private token: { value: string; refreshAt: number } | undefined;
  private pending: Promise<string> | undefined;

  /** A fresh token and how long it lives (ms; 0 when unknown: refetched next time). */
  protected abstract fetchToken(): Promise<{ value: string; lifetimeMs: number }>;

  forget(): void {
    this.token = undefined;
  }

  get(): Promise<string> {
    if (this.token && Date.now() < this.token.refreshAt) return Promise.resolve(this.token.value);
    this.pending ??= this.fetchToken()
      .then(({ value, lifetimeMs }) => {
        this.token = { value, refreshAt: Date.now() + lifetimeMs - Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2) };
        return value;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }
}
