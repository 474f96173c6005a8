import { describe, expect, it } from 'vitest';
import { mapIterable } from '../../../src/core/map-iterable.js';

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
