/**
 * The embedded store: counters in memory, persisted to a JSON file so that a restart (or a
 * `kill -9`) loses at most the last `flushMs` of changes. Writes are asynchronous and crash-safe
 * (write a temporary file, then rename it over the old one); the request path never touches the
 * disk. Counters past their expiry are dropped. Reading the file happens once, at start-up.
 */

import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { MemoryDocs } from './memory-docs.js';
import type { CounterOp, ReserveResult, StateStore } from './store.js';

interface Counter {
  value: number;
  expiresAt?: number;
}

interface FileShape {
  version: 1;
  savedAt: number;
  counters: Record<string, Counter>;
}

export interface MemoryStoreOptions {
  /** The state file; undefined keeps everything in memory only (tests, `--no-state`). */
  path?: string;
  /** How often changes are written (the most a crash can lose). */
  flushMs?: number;
  /** Bound of the documents kept in memory (memory-docs.ts). */
  maxDocChars?: number;
  now?: () => number;
}

export class MemoryStore implements StateStore {
  readonly kind = 'memory' as const;
  private readonly counters = new Map<string, Counter>();
  private readonly now: () => number;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private closed = false;
  private readonly docs: MemoryDocs;

  constructor(private readonly opts: MemoryStoreOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.docs = new MemoryDocs(this.now, opts.maxDocChars);
    if (opts.path) {
      this.load(opts.path);
      this.timer = setInterval(() => void this.flush(), opts.flushMs ?? 1000);
      this.timer.unref();
    }
  }

  private load(path: string): void {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    const data = JSON.parse(text) as FileShape;
    const now = this.now();
    for (const [k, c] of Object.entries(data.counters ?? {})) {
      if (c.expiresAt === undefined || c.expiresAt > now) this.counters.set(k, c);
    }
  }

  private live(key: string, now: number): Counter | undefined {
    const c = this.counters.get(key);
    if (c && c.expiresAt !== undefined && c.expiresAt <= now) {
      this.counters.delete(key);
      return undefined;
    }
    return c;
  }

  private apply(op: CounterOp, now: number): number {
    const c = this.live(op.key, now);
    // Updated in place (the counters are this store's own objects; flush serialises them at once).
    if (c) {
      c.value += op.amount;
      if (op.expiresAt !== undefined) c.expiresAt = op.expiresAt;
      this.dirty = true;
      return c.value;
    }
    this.counters.set(
      op.key,
      op.expiresAt !== undefined ? { value: op.amount, expiresAt: op.expiresAt } : { value: op.amount },
    );
    this.dirty = true;
    return op.amount;
  }

  async reserve(ops: readonly CounterOp[]): Promise<ReserveResult> {
    const now = this.now();
    const values: number[] = new Array(ops.length);
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i];
      // Checked as if applied in order, so two ops on one counter add up (as in RedisStore): an
      // earlier op on the same key gives the value this one starts from.
      let j = i - 1;
      while (j >= 0 && ops[j].key !== op.key) j--;
      const value = (j >= 0 ? values[j] : (this.live(op.key, now)?.value ?? 0)) + op.amount;
      if (op.limit !== undefined && value > op.limit) {
        return { ok: false, refused: i, values: ops.map((o) => this.live(o.key, now)?.value ?? 0) };
      }
      values[i] = value;
    }
    for (let i = 0; i < ops.length; i++) values[i] = this.apply(ops[i], now);
    return { ok: true, values };
  }

  async add(ops: readonly CounterOp[]): Promise<void> {
    const now = this.now();
    for (const op of ops) if (!op.ifExists || this.live(op.key, now)) this.apply(op, now);
  }

  async get(keys: readonly string[]): Promise<number[]> {
    const now = this.now();
    return keys.map((k) => this.live(k, now)?.value ?? 0);
  }

  async ping(): Promise<void> {}

  putDoc(key: string, value: string, ttlMs: number): Promise<void> {
    return this.docs.putDoc(key, value, ttlMs);
  }

  getDoc(key: string): Promise<string | undefined> {
    return this.docs.getDoc(key);
  }

  deleteDoc(key: string): Promise<boolean> {
    return this.docs.deleteDoc(key);
  }

  /** Writes the counters if they changed since the last write (one write at a time). */
  async flush(): Promise<void> {
    const path = this.opts.path;
    if (!path || !this.dirty) return this.writing;
    if (this.writing) await this.writing;
    if (!this.dirty) return;
    this.dirty = false;
    const now = this.now();
    const counters: Record<string, Counter> = {};
    for (const [k, c] of this.counters) if (c.expiresAt === undefined || c.expiresAt > now) counters[k] = c;
    const body = JSON.stringify({ version: 1, savedAt: now, counters } satisfies FileShape);
    const tmp = `${path}.${process.pid}.tmp`;
    this.writing = writeFile(tmp, body)
      .then(() => rename(tmp, path))
      .catch((err: unknown) => {
        this.dirty = true; // try again next time
        throw err;
      })
      .finally(() => {
        this.writing = undefined;
      });
    return this.writing;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}
