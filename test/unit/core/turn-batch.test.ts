import { describe, expect, it } from 'vitest';
import { turnBatch } from '../../../src/core/turn-batch.js';

const turn = () => new Promise((r) => setImmediate(r));

describe('turnBatch', () => {
  it('runs a turn’s items together at its end, in order, each batch its own', async () => {
    const ran: string[] = [];
    const a = turnBatch<string>((x) => ran.push(`a:${x}`));
    const b = turnBatch<string>((x) => ran.push(`b:${x}`));
    a.add('1');
    b.add('1');
    a.add('2');
    expect(ran).toEqual([]);
    await turn();
    expect(ran).toEqual(['a:1', 'a:2', 'b:1']);
  });

  it('runs what a run adds in the same pass, and flush() runs the queue at once', async () => {
    const ran: number[] = [];
    const batch = turnBatch<number>((n) => {
      ran.push(n);
      if (n < 3) batch.add(n + 1);
    });
    batch.add(1);
    batch.flush();
    expect(ran).toEqual([1, 2, 3]);
    await turn();
    expect(ran).toEqual([1, 2, 3]);
  });

  it('goes on past an item that throws, reported as a warning', async () => {
    const ran: number[] = [];
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const batch = turnBatch<number>((n) => {
        if (n === 2) throw new Error('item 2 failed');
        ran.push(n);
      });
      for (const n of [1, 2, 3]) batch.add(n);
      await turn();
      await turn();
      expect(ran).toEqual([1, 3]);
      expect(warnings).toContain('item 2 failed');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
