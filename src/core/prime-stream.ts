import type { StreamEvent } from './canonical.js';

/**
 * Waits for the first item of a stream before anything is written to the caller, so an upstream
 * that fails before its first event can still be reported as a plain HTTP error (or, later, fall
 * back). `check` may reject that first item by throwing (the source is then closed). Returns an
 * iterable that replays the first item, then the rest.
 */
export async function primeStream<T>(source: AsyncIterable<T>, check?: (first: T) => void): Promise<AsyncIterable<T>> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  if (!first.done && check) {
    try {
      check(first.value);
    } catch (err) {
      await it.return?.(undefined);
      throw err;
    }
  }
  let replayed = false;
  return {
    [Symbol.asyncIterator]() {
      return {
        next: () => {
          if (!replayed) {
            replayed = true;
            return Promise.resolve(first);
          }
          return it.next();
        },
        return: (v?: unknown) => it.return?.(v) ?? Promise.resolve({ done: true, value: undefined as T }),
      };
    },
  };
}

/** An upstream whose first event is an error has not started answering: fail before committing. */
export function rejectErrorFirst(ev: StreamEvent): void {
  if (ev.type === 'error') throw ev.error;
}
