/**
 * Waits for the first item of a stream before anything is written to the caller, so an upstream
 * that fails before its first event can still be reported as a plain HTTP error (or, later, fall
 * back). Returns an iterable that replays that first item, then the rest.
 */
export async function primeStream<T>(source: AsyncIterable<T>): Promise<AsyncIterable<T>> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
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
