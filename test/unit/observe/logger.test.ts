/**
 * The JSON log line byte for byte (key order included): time, level, msg, then the fields; a
 * request record's own `time` in the clock's place.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/observe/logger.js';

function capture(level?: 'debug' | 'info' | 'warn' | 'error') {
  const lines: string[] = [];
  return { lines, logger: createLogger({ level, write: (l) => lines.push(l) }) };
}

describe('createLogger (json)', () => {
  it('writes time, level, msg, then the fields in their order; undefined fields left out', () => {
    const { lines, logger } = capture();
    const before = Date.now();
    logger.log('warn', 'budget over its limit', { correlation_id: 'c1', budgets: ['b'], skipped: undefined });
    expect(lines).toHaveLength(1);
    const time = lines[0].slice(9, 33);
    expect(lines[0]).toBe(
      `{"time":"${time}","level":"warn","msg":"budget over its limit","correlation_id":"c1","budgets":["b"]}\n`,
    );
    expect(Date.parse(time)).toBeGreaterThanOrEqual(before - 1);
  });

  it("a record's own time (its arrival) is the line's time, in the first place", () => {
    const { lines, logger } = capture();
    logger.log('info', 'request', { correlation_id: 'c2', time: '2026-01-02T03:04:05.678Z', status: 200 });
    expect(lines[0]).toBe(
      '{"time":"2026-01-02T03:04:05.678Z","level":"info","msg":"request","correlation_id":"c2","status":200}\n',
    );
  });

  it('without fields, and below the level nothing', () => {
    const { lines, logger } = capture('warn');
    logger.log('info', 'skipped');
    logger.log('error', 'plain');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toEqual({ time: expect.any(String), level: 'error', msg: 'plain' });
    expect(logger.enabled('info')).toBe(false);
    expect(logger.enabled('warn')).toBe(true);
  });

  it('cuts over-long string fields', () => {
    const { lines, logger } = capture();
    logger.log('info', 'request', { model: 'm'.repeat(5000) });
    expect(JSON.parse(lines[0]).model).toBe(`${'m'.repeat(1024)}…[truncated 3976 chars]`);
  });
});
