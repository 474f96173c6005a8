/**
 * Budget periods, calendar-aligned in a time zone: a day from local midnight, an ISO week from
 * Monday, a month from the 1st; `total` never resets. Works across DST changes (the start is
 * the instant the local calendar day begins, whatever the offset is then).
 */

export type Period = 'day' | 'week' | 'month' | 'total';

export interface Window {
  /** Stable name of this period instance, part of the counter key (e.g. `2026-11`, `2026-11-23`). */
  id: string;
  startMs: number;
  /** When the next period starts; undefined for `total`. */
  endMs?: number;
}

const partsFormat = new Map<string, Intl.DateTimeFormat>();

function localDate(ms: number, tz: string): { y: number; m: number; d: number } {
  let f = partsFormat.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' });
    partsFormat.set(tz, f);
  }
  const [y, m, d] = f.format(ms).split('-').map(Number);
  return { y, m, d };
}

/** The zone's offset from UTC at instant `ms`, in ms (positive east of Greenwich). */
const offsetFormat = new Map<string, Intl.DateTimeFormat>();

function offsetMs(ms: number, tz: string): number {
  // Formatters are costly to build (~0.1 ms): one per zone, kept.
  let f = offsetFormat.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    offsetFormat.set(tz, f);
  }
  const p = Object.fromEntries(f.formatToParts(ms).map((x) => [x.type, x.value]));
  const asUtc = Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** The instant local midnight of y-m-d begins in `tz` (m is 1-based; out-of-range days roll over). */
export function zonedMidnight(y: number, m: number, d: number, tz: string): number {
  const guess = Date.UTC(y, m - 1, d);
  let t = guess - offsetMs(guess, tz);
  // Once more with the offset in force at that instant (DST boundaries).
  t = guess - offsetMs(t, tz);
  return t;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The current window per period and zone: valid until it ends, so the hot path computes nothing. */
const current = new Map<string, Window>();

export function periodWindow(period: Period, tz: string, now: number): Window {
  if (period === 'total') return { id: 'total', startMs: 0 };
  const key = `${period} ${tz}`;
  const cached = current.get(key);
  if (cached && now >= cached.startMs && now < cached.endMs!) return cached;
  const w = computeWindow(period, tz, now);
  current.set(key, w);
  return w;
}

function computeWindow(period: Exclude<Period, 'total'>, tz: string, now: number): Window {
  const { y, m, d } = localDate(now, tz);
  if (period === 'day') {
    return {
      id: `${y}-${pad(m)}-${pad(d)}`,
      startMs: zonedMidnight(y, m, d, tz),
      endMs: zonedMidnight(y, m, d + 1, tz),
    };
  }
  if (period === 'month') {
    return { id: `${y}-${pad(m)}`, startMs: zonedMidnight(y, m, 1, tz), endMs: zonedMidnight(y, m + 1, 1, tz) };
  }
  // ISO week: Monday is day 1.
  const weekday = new Date(Date.UTC(y, m - 1, d)).getUTCDay() || 7;
  const monday = new Date(Date.UTC(y, m - 1, d - (weekday - 1)));
  const [my, mm, md] = [monday.getUTCFullYear(), monday.getUTCMonth() + 1, monday.getUTCDate()];
  return {
    id: `week-of-${my}-${pad(mm)}-${pad(md)}`,
    startMs: zonedMidnight(my, mm, md, tz),
    endMs: zonedMidnight(my, mm, md + 7, tz),
  };
}
