/**
 * A cancellation signal that costs one EventEmitter. Node's AbortController builds an EventTarget
 * (and more) per instance, which showed up at a few per cent of the gateway's CPU when made for
 * every request and attempt. undici accepts any EventEmitter with `aborted`/`reason` as a signal.
 */

import { EventEmitter } from 'node:events';

export class CancelSignal extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  /** Aborts once; later calls are ignored. Listeners of 'abort' run synchronously. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/** Resolves after `ms`, or at once when the signal aborts (the caller checks `signal.aborted`). */
export function sleepUnlessCancelled(ms: number, signal: CancelSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.off('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.once('abort', done);
  });
}

/** Throws the abort reason when the signal has fired (at the points where a task can stop). */
export function throwIfCancelled(signal: CancelSignal): void {
  if (signal.aborted) throw signal.reason ?? new Error('cancelled');
}
