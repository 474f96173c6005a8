import { describe, expect, it } from 'vitest';
import { CancelSignal, sleepUnlessCancelled, throwIfCancelled } from '../../../src/core/cancel.js';

describe('CancelSignal', () => {
  it('fires its listeners once, keeping the first reason', () => {
    const s = new CancelSignal();
    let calls = 0;
    s.on('abort', () => calls++);
    s.abort('first');
    s.abort('second');
    expect(calls).toBe(1);
    expect(s.aborted).toBe(true);
    expect(s.reason).toBe('first');
  });

  it('throwIfCancelled throws the reason only after abort', () => {
    const s = new CancelSignal();
    expect(() => throwIfCancelled(s)).not.toThrow();
    const reason = new Error('gone');
    s.abort(reason);
    expect(() => throwIfCancelled(s)).toThrow(reason);
  });

  it('sleepUnlessCancelled resolves early on abort and leaves no listener behind', async () => {
    const s = new CancelSignal();
    const slept = sleepUnlessCancelled(60_000, s);
    s.abort();
    await slept;
    expect(s.listenerCount('abort')).toBe(0);
  });

  it('sleepUnlessCancelled removes its listener when the time runs out', async () => {
    const s = new CancelSignal();
    await sleepUnlessCancelled(1, s);
    expect(s.listenerCount('abort')).toBe(0);
  });
});
