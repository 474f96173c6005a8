import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../src/state/memory-store.js';

describe('MemoryStore', () => {
  it('reserves all or nothing, naming the counter that refused', async () => {
    const s = new MemoryStore();
    expect(
      await s.reserve([
        { key: 'a', amount: 5, limit: 10 },
        { key: 'b', amount: 5, limit: 10 },
      ]),
    ).toEqual({ ok: true, values: [5, 5] });
    expect(
      await s.reserve([
        { key: 'a', amount: 1, limit: 10 },
        { key: 'b', amount: 6, limit: 10 },
      ]),
    ).toEqual({ ok: false, refused: 1, values: [5, 5] });
    expect(await s.get(['a', 'b', 'missing'])).toEqual([5, 5, 0]);
    // no limit: never refused (warn-mode budgets)
    expect((await s.reserve([{ key: 'a', amount: 100 }])).ok).toBe(true);
  });

  it('lets exactly the limit through under concurrency', async () => {
    const s = new MemoryStore();
    const results = await Promise.all(
      Array.from({ length: 300 }, () => s.reserve([{ key: 'rpm', amount: 1, limit: 100 }])),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(100);
    expect(await s.get(['rpm'])).toEqual([100]);
  });

  it('adds negative amounts (settling) and drops expired counters', async () => {
    let t = 1000;
    const s = new MemoryStore({ now: () => t });
    await s.add([{ key: 'w', amount: 7, expiresAt: 2000 }]);
    await s.add([{ key: 'w', amount: -2 }]);
    expect(await s.get(['w'])).toEqual([5]);
    t = 2000;
    expect(await s.get(['w'])).toEqual([0]);
    expect((await s.reserve([{ key: 'w', amount: 3, limit: 3, expiresAt: 3000 }])).ok).toBe(true);
  });

  it('persists to its file with a temp-file rename and reads it back on start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-state-'));
    const path = join(dir, 'state.json');
    const a = new MemoryStore({ path, flushMs: 60_000 });
    await a.add([
      { key: 'spend', amount: 123_456_789 },
      { key: 'old', amount: 1, expiresAt: Date.now() - 1 },
    ]);
    await a.flush();
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    expect(saved.counters.spend.value).toBe(123_456_789);
    expect(saved.counters.old).toBeUndefined();
    await a.add([{ key: 'spend', amount: 1 }]);
    await a.close();
    const b = new MemoryStore({ path, flushMs: 60_000 });
    expect(await b.get(['spend'])).toEqual([123_456_790]);
    await b.close();
  });

  it('refuses to start on a corrupt state file rather than silently forgetting spend', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-state-'));
    const path = join(dir, 'state.json');
    writeFileSync(path, '{"version":1,"counters":');
    expect(() => new MemoryStore({ path })).toThrow();
  });
});

describe('MemoryStore reserve on one counter twice', () => {
  it('adds the ops up before checking, as RedisStore does', async () => {
    const s = new MemoryStore();
    expect(
      (
        await s.reserve([
          { key: 'k', amount: 6, limit: 10 },
          { key: 'k', amount: 6, limit: 10 },
        ])
      ).ok,
    ).toBe(false);
    expect(await s.get(['k'])).toEqual([0]);
  });
});
