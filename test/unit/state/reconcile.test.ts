import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/observe/logger.js';
import { MemoryStore } from '../../../src/state/memory-store.js';
import { ReconcileQueue } from '../../../src/state/reconcile.js';
import type { CounterOp } from '../../../src/state/store.js';

/** A real MemoryStore behind a switch: add() fails while `down`. */
class FlakyStore extends MemoryStore {
  down = false;
  override async add(ops: readonly CounterOp[]): Promise<void> {
    if (this.down) throw new Error('store unreachable');
    return super.add(ops);
  }
}

describe('ReconcileQueue', () => {
  it('records at once when it can, keeps and records later when it cannot', async () => {
    const store = new FlakyStore();
    const lines: string[] = [];
    const q = new ReconcileQueue(store, createLogger({ write: (l) => lines.push(l) }), 60_000);
    await q.add([{ key: 'a', amount: 3 }]);
    expect(await store.get(['a'])).toEqual([3]);
    store.down = true;
    await q.add([
      { key: 'a', amount: 4 },
      { key: 'b', amount: -1 },
    ]);
    expect(q.size).toBe(2);
    await q.flush(); // still down: nothing lost
    expect(q.size).toBe(2);
    store.down = false;
    await q.flush();
    expect(q.size).toBe(0);
    expect(await store.get(['a', 'b'])).toEqual([7, -1]);
    expect(lines.some((l) => l.includes('settlement kept to record later'))).toBe(true);
    await q.close();
  });

  it('is bounded: the oldest pending ops go first, and the log says so', async () => {
    const store = new FlakyStore();
    store.down = true;
    const lines: string[] = [];
    const q = new ReconcileQueue(store, createLogger({ write: (l) => lines.push(l) }), 60_000, 3);
    await q.add([
      { key: 'x', amount: 1 },
      { key: 'x', amount: 2 },
    ]);
    await q.add([
      { key: 'x', amount: 4 },
      { key: 'x', amount: 8 },
    ]);
    expect(q.size).toBe(3);
    store.down = false;
    await q.close();
    expect(await store.get(['x'])).toEqual([14]);
    expect(lines.some((l) => l.includes('oldest pending settlements dropped'))).toBe(true);
  });
});
