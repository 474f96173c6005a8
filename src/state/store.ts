/**
 * Shared state for budgets and rate limits: integer counters with atomic reserve/add, and the
 * documents of stored conversations (DocStore). Two
 * implementations: the embedded MemoryStore (one machine, persisted to a file) and RedisStore
 * (several gateway instances). Amounts are integers (nano-USD for spend, tokens, requests).
 */

export interface CounterOp {
  key: string;
  /** Added to the counter (may be negative when settling or releasing). */
  amount: number;
  /**
   * reserve(): the whole reservation is refused when this counter's value + amount would be
   * above `limit`. Ignored by add(). Undefined: no check (e.g. a budget in warn mode).
   */
  limit?: number;
  /** Epoch ms after which the counter may be dropped (its window is over); undefined: kept. */
  expiresAt?: number;
  /**
   * add(): only when the counter still exists. Settlements are corrections to a reservation: once
   * its window has expired there is nothing to correct, and re-creating the counter would leave a
   * stray (possibly negative) value behind.
   */
  ifExists?: boolean;
}

export interface ReserveResult {
  ok: boolean;
  /** Index in the ops of the first counter that refused (when !ok). */
  refused?: number;
  /** Each counter's value after the reservation (or, when refused, as it stands unchanged). */
  values: number[];
}

/**
 * Documents: one string value per key, each with its own expiry (conversation state of the
 * Responses API). Not counters: written whole, read whole.
 */
export interface DocStore {
  putDoc(key: string, value: string, ttlMs: number): Promise<void>;
  /** The value, or undefined when absent or expired. */
  getDoc(key: string): Promise<string | undefined>;
  /** True when a live value was deleted. */
  deleteDoc(key: string): Promise<boolean>;
}

export interface StateStore extends DocStore {
  readonly kind: 'memory' | 'redis';
  /** All-or-nothing: if every op with a limit fits, adds every amount; else changes nothing. */
  reserve(ops: readonly CounterOp[]): Promise<ReserveResult>;
  /** Adds every amount unconditionally (settling a reservation, releasing a slot). */
  add(ops: readonly CounterOp[]): Promise<void>;
  /** Current values (0 for counters that do not exist or have expired). */
  get(keys: readonly string[]): Promise<number[]>;
  /** Resolves when the store can be used now (for /ready), rejects otherwise. */
  ping(): Promise<void>;
  /** Flushes what must survive (the embedded store's file) and releases connections. */
  close(): Promise<void>;
}

/** Thrown by a store that cannot be reached; the configured policy decides what happens. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
