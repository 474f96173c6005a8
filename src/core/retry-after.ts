/**
 * The wait a provider asked for: `retry-after-ms` (OpenAI's, milliseconds) wins over
 * `retry-after` (seconds, or an HTTP date). Undefined when absent or unreadable.
 */
export function parseRetryAfter(
  retryAfterMs: string | undefined,
  retryAfter: string | undefined,
  now = Date.now(),
): number | undefined {
  if (retryAfterMs !== undefined) {
    const ms = Number(retryAfterMs);
    if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  }
  if (retryAfter === undefined) return undefined;
  const s = retryAfter.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Math.ceil(Number(s) * 1000);
  const at = Date.parse(s);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
