/**
 * `new Date(ms).toISOString()`, read for every request record and log line: formatting a date is
 * a large part of a record's cost, so the text up to the second is kept for the current second
 * and only the milliseconds are written per call.
 */

/** The range of a Date (ECMAScript's time value bound); outside it toISOString throws. */
const MAX_TIME_MS = 8.64e15;

let cachedSecond = Number.NaN;
let cachedPrefix = '';

export function isoTime(epochMs: number): string {
  // As the Date constructor reads it (truncated); NaN and out-of-range values throw its RangeError.
  const ms = Math.trunc(epochMs);
  if (!(ms >= -MAX_TIME_MS && ms <= MAX_TIME_MS)) return new Date(epochMs).toISOString();
  const second = Math.floor(ms / 1000) * 1000;
  if (second !== cachedSecond) {
    // Everything before the milliseconds (`2026-01-02T03:04:05.`; years past 9999 are longer).
    cachedPrefix = new Date(second).toISOString().slice(0, -4);
    cachedSecond = second;
  }
  const milli = ms - second;
  return `${cachedPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}
