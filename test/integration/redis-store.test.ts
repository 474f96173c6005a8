/**
 * RedisStore against a real redis-server (started by test/helpers/redis-server.ts): atomic
 * all-or-nothing reservations, exact limits under concurrency from several instances, expiry,
 * large nano-USD amounts, key prefix, and fail-fast + self-recovery across a Redis outage.
 */

import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/state/redis-store.js';
import { StoreUnavailableError } from '../../src/state/store.js';
import { freePort, requireRedis, skipRedisTests, startRedisServer, type RedisServer } from '../helpers/redis-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let counter = 0;
/** A prefix per test, so tests never see each other's keys. */
function uniquePrefix(): string {
  counter += 1;
  return `gwtest${process.pid}-${counter}:`;
}

describe.skipIf(skipRedisTests('the RedisStore tests'))('RedisStore (real redis-server)', () => {
  let server: RedisServer;
  let raw: Redis;
  const stores: RedisStore[] = [];

  function makeStore(prefix: string, extra: { commandTimeoutMs?: number } = {}): RedisStore {
    const s = new RedisStore({ url: server.url, keyPrefix: prefix, ...extra });
    stores.push(s);
    return s;
  }
  async function connectStore(prefix: string): Promise<RedisStore> {
    const s = await RedisStore.connect({ url: server.url, keyPrefix: prefix });
    stores.push(s);
    return s;
  }

  beforeAll(async () => {
    requireRedis();
    server = await startRedisServer();
    raw = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    raw.on('error', () => undefined);
    await raw.connect();
  });

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });

  afterAll(async () => {
    raw?.disconnect();
    await server?.stop();
  });

  it('connect() resolves once Redis answers; kind is redis; ping works', async () => {
    const store = await connectStore(uniquePrefix());
    expect(store.kind).toBe('redis');
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('reserve is all-or-nothing: one op over its limit changes nothing and is reported', async () => {
    const prefix = uniquePrefix();
    const store = await connectStore(prefix);
    await store.add([
      { key: 'a', amount: 5 },
      { key: 'b', amount: 8 },
      { key: 'c', amount: 1 },
    ]);

    const refused = await store.reserve([
      { key: 'a', amount: 3, limit: 10 },
      { key: 'b', amount: 3, limit: 10 }, // 8 + 3 > 10
      { key: 'c', amount: 100 }, // no limit
    ]);
    expect(refused).toEqual({ ok: false, refused: 1, values: [5, 8, 1] });
    expect(await store.get(['a', 'b', 'c'])).toEqual([5, 8, 1]);

    const ok = await store.reserve([
      { key: 'a', amount: 5, limit: 10 }, // exactly at the limit
      { key: 'b', amount: 2, limit: 10 },
      { key: 'c', amount: 100 },
    ]);
    expect(ok).toEqual({ ok: true, values: [10, 10, 101] });
    expect(ok.refused).toBeUndefined();
    expect(await store.get(['a', 'b', 'c'])).toEqual([10, 10, 101]);

    // The first refusing op is reported, even when it is the first op; missing keys count as 0.
    const first = await store.reserve([
      { key: 'a', amount: 1, limit: 10 },
      { key: 'new', amount: 1, limit: 10 },
    ]);
    expect(first).toEqual({ ok: false, refused: 0, values: [10, 0] });
    expect(await raw.exists(`${prefix}new`)).toBe(0);
  });

  it("two ops on the same key add up when checked (values: each op's result)", async () => {
    const store = await connectStore(uniquePrefix());
    const r = await store.reserve([
      { key: 'k', amount: 6, limit: 10 },
      { key: 'k', amount: 6, limit: 10 },
    ]);
    expect(r).toMatchObject({ ok: false, refused: 1 });
    expect(await store.get(['k'])).toEqual([0]);
    const r2 = await store.reserve([
      { key: 'k', amount: 4, limit: 10 },
      { key: 'k', amount: 6, limit: 10 },
    ]);
    expect(r2).toEqual({ ok: true, values: [4, 10] });
  });

  it('limits are exact under concurrency from three separate store instances', async () => {
    const prefix = uniquePrefix();
    const instances = [await connectStore(prefix), await connectStore(prefix), await connectStore(prefix)];
    const calls = Array.from({ length: 300 }, (_, i) =>
      instances[i % 3].reserve([
        { key: 'rpm', amount: 1, limit: 100 },
        { key: 'spend', amount: 1_000_000_000 }, // unlimited companion counter moves only on success
      ]),
    );
    const results = await Promise.all(calls);
    const ok = results.filter((r) => r.ok);
    expect(ok).toHaveLength(100);
    expect(results.filter((r) => !r.ok).every((r) => r.refused === 0)).toBe(true);
    // Each success saw a distinct counter value 1..100.
    expect(new Set(ok.map((r) => r.values[0])).size).toBe(100);
    expect(await instances[1].get(['rpm', 'spend'])).toEqual([100, 100 * 1_000_000_000]);
  });

  it('add applies positive and negative amounts unconditionally (limits ignored)', async () => {
    const store = await connectStore(uniquePrefix());
    await store.add([{ key: 'x', amount: 10, limit: 1 }]);
    await store.add([
      { key: 'x', amount: -3 },
      { key: 'y', amount: -7 },
    ]);
    expect(await store.get(['x', 'y'])).toEqual([7, -7]);
    await store.add([]);
    expect(await store.reserve([])).toEqual({ ok: true, values: [] });
    expect(await store.get([])).toEqual([]);
  });

  it('get returns 0 for missing keys', async () => {
    const store = await connectStore(uniquePrefix());
    await store.add([{ key: 'present', amount: 42 }]);
    expect(await store.get(['missing-1', 'present', 'missing-2'])).toEqual([0, 42, 0]);
  });

  it('counters with expiresAt disappear after it (reserve and add)', async () => {
    const prefix = uniquePrefix();
    const store = await connectStore(prefix);
    const expiresAt = Date.now() + 300;
    const r = await store.reserve([{ key: 'win', amount: 2, limit: 10, expiresAt }]);
    expect(r.ok).toBe(true);
    await store.add([{ key: 'win2', amount: 3, expiresAt }]);
    await store.add([{ key: 'kept', amount: 1 }]);
    const later = Date.now() + 600_000;
    await store.reserve([{ key: 'long', amount: 1, limit: 10, expiresAt: later }]);

    // The expiry is set (checked on a long-lived key, so a slow machine cannot make this racy).
    const ttl = await raw.pttl(`${prefix}long`);
    expect(ttl).toBeGreaterThan(500_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
    expect(await raw.pttl(`${prefix}kept`)).toBe(-1);

    // Lower-bound wait only; then poll (bounded) for Redis's expiry to be visible.
    await sleep(350);
    let values: number[] = [];
    for (let i = 0; i < 50; i++) {
      values = await store.get(['win', 'win2']);
      if (values[0] === 0 && values[1] === 0) break;
      await sleep(100);
    }
    expect(values).toEqual([0, 0]);
    expect(await raw.exists(`${prefix}win`, `${prefix}win2`)).toBe(0);
    expect(await store.get(['kept'])).toEqual([1]);

    // A new window starts from zero.
    const again = await store.reserve([{ key: 'win', amount: 10, limit: 10, expiresAt: Date.now() + 60_000 }]);
    expect(again).toEqual({ ok: true, values: [10] });
  });

  it('large nano-USD amounts stay exact', async () => {
    const store = await connectStore(uniquePrefix());
    const a = 3e14; // $300,000 in nano-USD
    const r1 = await store.reserve([{ key: 'usd', amount: a, limit: 1e15 }]);
    const r2 = await store.reserve([{ key: 'usd', amount: a, limit: 1e15 }]);
    expect(r1).toEqual({ ok: true, values: [3e14] });
    expect(r2).toEqual({ ok: true, values: [6e14] });
    // 6e14 + 4e14 + 1 > 1e15: refused by exactly one nano-USD.
    expect(await store.reserve([{ key: 'usd', amount: 4e14 + 1, limit: 1e15 }])).toEqual({
      ok: false,
      refused: 0,
      values: [6e14],
    });
    expect(await store.reserve([{ key: 'usd', amount: 4e14, limit: 1e15 }])).toEqual({ ok: true, values: [1e15] });

    const odd = 123_456_789_012_345; // 15 significant digits: must not be reformatted by Lua
    await store.add([{ key: 'odd', amount: odd }]);
    await store.add([{ key: 'odd', amount: odd }]);
    expect(await store.get(['odd'])).toEqual([2 * odd]);
    expect(await store.reserve([{ key: 'odd', amount: 1, limit: 1e16 }])).toEqual({ ok: true, values: [2 * odd + 1] });
    await expect(store.add([{ key: 'odd', amount: 2 ** 60 }])).rejects.toThrow(TypeError);
  });

  it('documents: put, read, expire, delete once, under the key prefix', async () => {
    const prefix = uniquePrefix();
    const store = await connectStore(prefix);
    await store.putDoc('resp:a', '{"x":1}', 60_000);
    expect(await store.getDoc('resp:a')).toBe('{"x":1}');
    expect(await raw.get(`${prefix}resp:a`)).toBe('{"x":1}');
    const ttl = await raw.pttl(`${prefix}resp:a`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await store.deleteDoc('resp:a')).toBe(true);
    expect(await store.deleteDoc('resp:a')).toBe(false);
    expect(await store.getDoc('resp:a')).toBeUndefined();
    await store.putDoc('resp:b', 'short', 50);
    await sleep(120);
    expect(await store.getDoc('resp:b')).toBeUndefined();
  });

  it('applies the key prefix to every key', async () => {
    const prefix = uniquePrefix();
    const store = await connectStore(prefix);
    await store.reserve([{ key: 'budget:team-a', amount: 7, limit: 100 }]);
    await store.add([{ key: 'rate:team-a', amount: 2 }]);
    expect((await raw.keys(`${prefix}*`)).sort()).toEqual([`${prefix}budget:team-a`, `${prefix}rate:team-a`]);
    expect(await raw.get(`${prefix}budget:team-a`)).toBe('7');
    expect(await raw.exists('budget:team-a', 'rate:team-a')).toBe(0);
    // Another prefix sees nothing of it.
    const other = await connectStore(uniquePrefix());
    expect(await other.get(['budget:team-a'])).toEqual([0]);
  });

  it('rejects with StoreUnavailableError (host:port only, no password) when nothing listens', async () => {
    const port = await freePort();
    const url = `redis://:s3cret-pw@127.0.0.1:${port}`;
    await expect(RedisStore.connect({ url, keyPrefix: 'x:' })).rejects.toBeInstanceOf(StoreUnavailableError);
    const store = new RedisStore({ url, keyPrefix: 'x:' });
    stores.push(store);
    const err = await store.ping().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as Error).message).toContain(`127.0.0.1:${port}`);
    expect((err as Error).message).not.toContain('s3cret');
    await expect(store.reserve([{ key: 'k', amount: 1, limit: 1 }])).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('fails fast while Redis is down and the same instance recovers when it is back', { timeout: 60_000 }, async () => {
    const prefix = uniquePrefix();
    const store = await connectStore(prefix);
    await store.add([{ key: 'n', amount: 1 }]);
    expect(await store.get(['n'])).toEqual([1]);

    await server.stop();
    try {
      // Each call rejects (no upper-bound timing assertion; vitest's timeout is the bound).
      await expect(store.reserve([{ key: 'n', amount: 1, limit: 10 }])).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.add([{ key: 'n', amount: 1 }])).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.get(['n'])).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      // Still failing (not queued) a little later, while reconnect attempts go on.
      await sleep(300);
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      const many = await Promise.allSettled(Array.from({ length: 20 }, () => store.get(['n'])));
      expect(many.every((r) => r.status === 'rejected' && r.reason instanceof StoreUnavailableError)).toBe(true);
    } finally {
      await server.restart();
    }

    let recovered = false;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      try {
        await store.ping();
        recovered = true;
        break;
      } catch (err) {
        expect(err).toBeInstanceOf(StoreUnavailableError);
        await sleep(100);
      }
    }
    expect(recovered).toBe(true);

    // Works again (the restarted server has no persistence: counters start from zero, and the
    // Lua script is reloaded after NOSCRIPT).
    expect(await store.get(['n'])).toEqual([0]);
    expect(await store.reserve([{ key: 'n', amount: 3, limit: 10 }])).toEqual({ ok: true, values: [3] });
    await store.add([{ key: 'n', amount: -1 }]);
    expect(await store.get(['n'])).toEqual([2]);
  });

  it('close() is clean and idempotent; calls after close reject', async () => {
    const store = makeStore(uniquePrefix(), { commandTimeoutMs: 5_000 });
    await store.ping();
    await store.close();
    await store.close();
    await expect(store.get(['k'])).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
