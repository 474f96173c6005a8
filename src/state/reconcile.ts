/**
 * Settlements the store could not take (it was unreachable) are kept here and retried until it
 * is back, so spend served under `fail_open` (or settled while the store blinked) is recorded
 * late rather than lost. Bounded: past `maxOps` the oldest are dropped, and said so in the log.
 */

import type { Logger } from '../observe/logger.js';
import type { CounterOp, StateStore } from './store.js';

export class ReconcileQueue {
  private pending: CounterOp[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing = false;

  constructor(
    private readonly store: StateStore,
    private readonly logger: Logger,
    private readonly retryMs = 1000,
    private readonly maxOps = 100_000,
  ) {}

  /** Adds ops to the store, or keeps them for later when it cannot be reached. */
  async add(ops: readonly CounterOp[]): Promise<void> {
    if (ops.length === 0) return;
    try {
      await this.store.add(ops);
    } catch (err) {
      this.keep(ops, err);
    }
  }

  get size(): number {
    return this.pending.length;
  }

  private keep(ops: readonly CounterOp[], err: unknown): void {
    // Limits do not apply to recorded amounts; everything else (expiry, ifExists) does.
    this.pending.push(...ops.map(({ limit: _limit, ...op }) => op));
    if (this.pending.length > this.maxOps) {
      const dropped = this.pending.length - this.maxOps;
      this.pending.splice(0, dropped);
      this.logger.log('error', 'state store unreachable for long: oldest pending settlements dropped', { dropped });
    }
    this.logger.log('error', 'state store unreachable: settlement kept to record later', {
      pending: this.pending.length,
      error: (err as Error).message,
    });
    if (!this.timer) {
      this.timer = setInterval(() => void this.flush(), this.retryMs);
      this.timer.unref();
    }
  }

  /** Tries to record what is pending (one batch at a time). */
  async flush(): Promise<void> {
    if (this.flushing || this.pending.length === 0) return;
    this.flushing = true;
    const batch = this.pending.splice(0, 1000);
    try {
      await this.store.add(batch);
      this.logger.log('info', 'state store back: pending settlements recorded', {
        recorded: batch.length,
        pending: this.pending.length,
      });
    } catch {
      this.pending.unshift(...batch);
    } finally {
      this.flushing = false;
    }
    if (this.pending.length === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
