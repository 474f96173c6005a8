import { afterAll, beforeAll, vi } from 'vitest';

/**
 * Date.now() held still for the enclosing suite: for comparing two decodes of a message that
 * stamps the time it was read (an Anthropic message carries none), which must not tick apart.
 */
export function fixDateNow(at = '2026-11-26T12:00:00Z'): void {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(at));
  });
  afterAll(() => {
    vi.useRealTimers();
  });
}
