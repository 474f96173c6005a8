import { describe, expect, it } from 'vitest';
import { periodWindow, zonedMidnight } from '../../../src/budget/periods.js';

const at = (iso: string) => Date.parse(iso);

describe('periodWindow', () => {
  it('days, months and ISO weeks in UTC', () => {
    const now = at('2026-11-23T15:30:00Z'); // a Monday
    expect(periodWindow('day', 'UTC', now)).toEqual({
      id: '2026-11-23',
      startMs: at('2026-11-23T00:00:00Z'),
      endMs: at('2026-11-24T00:00:00Z'),
    });
    expect(periodWindow('month', 'UTC', now)).toEqual({
      id: '2026-11',
      startMs: at('2026-11-01T00:00:00Z'),
      endMs: at('2026-12-01T00:00:00Z'),
    });
    expect(periodWindow('week', 'UTC', now)).toEqual({
      id: 'week-of-2026-11-23',
      startMs: at('2026-11-23T00:00:00Z'),
      endMs: at('2026-11-30T00:00:00Z'),
    });
    expect(periodWindow('week', 'UTC', at('2026-11-29T23:59:59Z')).id).toBe('week-of-2026-11-23');
    expect(periodWindow('total', 'UTC', now)).toEqual({ id: 'total', startMs: 0 });
  });

  it('rolls over months and years', () => {
    expect(periodWindow('month', 'UTC', at('2026-12-31T23:00:00Z'))).toMatchObject({
      id: '2026-12',
      endMs: at('2027-01-01T00:00:00Z'),
    });
    expect(periodWindow('week', 'UTC', at('2027-01-01T12:00:00Z'))).toMatchObject({
      id: 'week-of-2026-12-28',
      startMs: at('2026-12-28T00:00:00Z'),
    });
  });

  it('follows the local calendar of the zone', () => {
    // 23:30 UTC on Nov 23 is already Nov 24 in Berlin (UTC+1 in winter).
    expect(periodWindow('day', 'Europe/Berlin', at('2026-11-23T23:30:00Z'))).toEqual({
      id: '2026-11-24',
      startMs: at('2026-11-23T23:00:00Z'),
      endMs: at('2026-11-24T23:00:00Z'),
    });
    expect(periodWindow('month', 'America/New_York', at('2026-12-01T03:00:00Z')).id).toBe('2026-11');
  });

  it('handles DST: the day the clocks change is 23 or 25 hours long', () => {
    const spring = periodWindow('day', 'Europe/Berlin', at('2026-03-29T12:00:00Z'));
    expect(spring.startMs).toBe(at('2026-03-28T23:00:00Z'));
    expect(spring.endMs! - spring.startMs).toBe(23 * 3600_000);
    const autumn = periodWindow('day', 'Europe/Berlin', at('2026-10-25T12:00:00Z'));
    expect(autumn.endMs! - autumn.startMs).toBe(25 * 3600_000);
    expect(zonedMidnight(2026, 10, 26, 'Europe/Berlin')).toBe(at('2026-10-25T23:00:00Z'));
  });
});
