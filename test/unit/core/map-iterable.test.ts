import { describe, expect, it } from 'vitest';
import { type FlatMapOut, flatMapIterable, mapIterable } from '../../../src/core/map-iterable.js';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('mapIterable', () => {
  it('maps every item in order', async () => {
    async function* source() {
      yield 1;
      yield 2;
      yield 3;
    }
    expect(await collect(mapIterable(source(), (n) => n * 10))).toEqual([10, 20, 30]);
  });

  it("passes the source's failure through mapError, after the items before it", async () => {
    async function* source() {
      yield 'a';
      throw new Error('cut');
    }
    const seen: string[] = [];
    const run = (async () => {
      for await (const x of mapIterable(
        source(),
        (s) => s.toUpperCase(),
        (e) => new Error(`mapped: ${(e as Error).message}`),
      ))
        seen.push(x);
    })();
    await expect(run).rejects.toThrow('mapped: cut');
    expect(seen).toEqual(['A']);
  });

  it('closing the result closes the source', async () => {
    let closed = false;
    async function* source() {
      try {
        yield 1;
        yield 2;
      } finally {
        closed = true;
      }
    }
    for await (const x of mapIterable(source(), (n) => n)) if (x === 1) break;
    expect(closed).toBe(true);
  });
});

describe('flatMapIterable', () => {
  const source = (items: number[], fail?: Error) => {
    const state = { closed: 0, read: 0 };
    const iterable: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          if (state.read < items.length) return { done: false, value: items[state.read++] };
          if (fail) throw fail;
          return { done: true, value: undefined };
        },
        return: async () => {
          state.closed++;
          return { done: true, value: undefined };
        },
      }),
    };
    return { iterable, state };
  };
  // 0 makes nothing, n makes n copies of n, 9 is the last item (its outputs, then the source is closed), 7 throws.
  const steps =
    (ends: string[] = []) =>
    () => ({
      step: (n: number): FlatMapOut<string> => {
        if (n === 7) throw new Error('bad item');
        if (n === 9) return { last: ['last'] };
        return Array.from({ length: n }, () => String(n));
      },
      end: () => ends,
    });
  const all = async (it: AsyncIterable<string>) => {
    const out: string[] = [];
    for await (const s of it) out.push(s);
    return out;
  };

  it('hands out every output in order, then what the end makes; a source that ended is not closed', async () => {
    const { iterable, state } = source([2, 0, 1, 3]);
    expect(await all(flatMapIterable(iterable, steps(['end'])))).toEqual(['2', '2', '1', '3', '3', '3', 'end']);
    expect(state).toEqual({ closed: 0, read: 4 });
  });
  it('stops at a last output: drained first, then the source is closed once and nothing more is read', async () => {
    const { iterable, state } = source([1, 9, 2]);
    const it = flatMapIterable(iterable, steps(['end']))[Symbol.asyncIterator]();
    expect((await it.next()).value).toBe('1');
    expect((await it.next()).value).toBe('last');
    expect(state.closed).toBe(0);
    expect(await it.next()).toEqual({ done: true, value: undefined });
    expect(await it.next()).toEqual({ done: true, value: undefined });
    expect(state).toEqual({ closed: 1, read: 2 });
  });
  it('closes the source when a step throws, and when the consumer stops early', async () => {
    const thrown = source([1, 7, 2]);
    await expect(all(flatMapIterable(thrown.iterable, steps()))).rejects.toThrow('bad item');
    expect(thrown.state).toEqual({ closed: 1, read: 2 });
    const early = source([3, 2]);
    for await (const s of flatMapIterable(early.iterable, steps())) if (s === '3') break;
    expect(early.state).toEqual({ closed: 1, read: 1 });
  });
  it("passes on the source's failure without closing it, and the end's own failure", async () => {
    const failing = source([1], new Error('reset'));
    await expect(all(flatMapIterable(failing.iterable, steps()))).rejects.toThrow('reset');
    expect(failing.state.closed).toBe(0);
    const ending = flatMapIterable(source([1]).iterable, () => ({
      step: (n: number) => [String(n)],
      end: () => {
        throw new Error('ended early');
      },
    }));
    await expect(all(ending)).rejects.toThrow('ended early');
  });
});
