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

/** What one source item makes: its outputs, or (`last`) the final outputs, after which the source is closed. */
export type FlatMapOut<O> = readonly O[] | { readonly last: readonly O[] };

/** One pass of a flat-mapping decoder: what each source item makes, and what the source's end makes. */
export interface FlatMapSteps<I, O> {
  step(item: I): FlatMapOut<O>;
  /** The source ended (not after a `last`); may throw (a stream that ended early). */
  end(): readonly O[];
}

/**
 * The outputs `steps` makes of each of `source`'s items, handed out from a queue by a plain
 * iterator: a decoder that turns one upstream event into several events costs one settled promise
 * per event instead of an async generator's suspend and resume (`yield*` of each array included).
 * As with a `for await` loop in a generator: a throwing step closes the source, a failing source
 * is not closed, and closing the result early closes the source. `start` makes the pass's state.
 */
export function flatMapIterable<I, O>(source: AsyncIterable<I>, start: () => FlatMapSteps<I, O>): AsyncIterable<O> {
  return { [Symbol.asyncIterator]: () => new FlatMapped(source[Symbol.asyncIterator](), start()) };
}

class FlatMapped<I, O> implements AsyncIterator<O> {
  private queue: readonly O[] = [];
  private at = 0;
  /** open: reading; last: the final outputs are queued and the source is to be closed; done. */
  private state: 'open' | 'last' | 'done' = 'open';

  constructor(
    private readonly source: AsyncIterator<I>,
    private readonly steps: FlatMapSteps<I, O>,
  ) {}

  next(): Promise<IteratorResult<O>> {
    if (this.at < this.queue.length) return Promise.resolve({ done: false, value: this.queue[this.at++] });
    return this.state === 'open' ? this.read() : this.finish();
  }

  private async read(): Promise<IteratorResult<O>> {
    for (;;) {
      let r: IteratorResult<I>;
      try {
        r = await this.source.next();
      } catch (err) {
        this.state = 'done';
        throw err;
      }
      this.at = 0;
      if (r.done) {
        this.state = 'done';
        this.queue = this.steps.end();
      } else {
        let out: FlatMapOut<O>;
        try {
          out = this.steps.step(r.value);
        } catch (err) {
          await this.close();
          throw err;
        }
        if (isLast(out)) {
          this.state = 'last';
          this.queue = out.last;
        } else {
          this.queue = out;
        }
      }
      if (this.at < this.queue.length) return { done: false, value: this.queue[this.at++] };
      if (this.state !== 'open') return this.finish();
    }
  }

  private async finish(): Promise<IteratorResult<O>> {
    if (this.state === 'last') await this.close();
    return { done: true, value: undefined };
  }

  private async close(): Promise<void> {
    const open = this.state !== 'done';
    this.state = 'done';
    this.queue = [];
    this.at = 0;
    if (open) await this.source.return?.();
  }

  async return(): Promise<IteratorResult<O>> {
    await this.close();
    return { done: true, value: undefined };
  }
}

function isLast<O>(out: FlatMapOut<O>): out is { readonly last: readonly O[] } {
  return !Array.isArray(out);
}
