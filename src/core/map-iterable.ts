/**
 * An async iterable whose items are `source`'s passed through `map` (and whose failures through
 * `mapError`), as a plain iterator: one `then` per item instead of an async generator's await
 * and resume, on paths every stream event takes. `return()` is passed on, so closing the result
 * closes the source.
 */
export function mapIterable<T, U>(
  source: AsyncIterable<T>,
  map: (item: T) => U,
  mapError?: (err: unknown) => unknown,
): AsyncIterable<U> {
  return {
    [Symbol.asyncIterator]() {
      const it = source[Symbol.asyncIterator]();
      const onItem = (r: IteratorResult<T>): IteratorResult<U> =>
        r.done ? { done: true, value: undefined } : { done: false, value: map(r.value) };
      const onError = mapError
        ? (err: unknown): never => {
            throw mapError(err);
          }
        : undefined;
      return {
        next: () => it.next().then(onItem, onError),
        return: async (v?: unknown) => {
          await it.return?.(v);
          return { done: true, value: undefined };
        },
      };
    },
  };
}
