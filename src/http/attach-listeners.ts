import type { EventEmitter } from 'node:events';

// biome-ignore lint/suspicious/noExplicitAny: listeners of different events take different arguments
type Listener = (...args: any[]) => void;

/**
 * Adds `listeners` to `emitter`, and a timer when `timeout` is given; the returned function takes
 * them all off again and clears the timer (safe to call more than once). Body readers use it so a
 * request they stop watching keeps no listener or timer of theirs.
 */
export function attachListeners(
  emitter: EventEmitter,
  listeners: Readonly<Record<string | symbol, Listener>>,
  timeout?: { ms: number; run: () => void; unref?: boolean },
): () => void {
  const keys = Reflect.ownKeys(listeners) as Array<string | symbol>;
  for (const k of keys) emitter.on(k, listeners[k]);
  const timer = timeout && setTimeout(timeout.run, timeout.ms);
  if (timer && timeout?.unref) timer.unref();
  return () => {
    if (timer) clearTimeout(timer);
    for (const k of keys) emitter.off(k, listeners[k]);
  };
}
