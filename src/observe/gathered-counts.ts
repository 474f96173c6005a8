/**
 * Counter increments gathered in plain series between scrapes and handed to prom-client when it
 * reads the metric (its collect hook). Per increment this costs one walk of a `SeriesIndex` and an
 * addition; prom-client itself sorts, validates and hashes the label object of every inc() (several
 * µs a request for the handful of counters each request moves).
 */

import type { Counter } from 'prom-client';
import { SeriesIndex } from './series-index.js';

interface PendingCount<L extends string> {
  readonly labels: Record<L, string>;
  value: number;
}

export class GatheredCounts<L extends string> {
  private readonly series: SeriesIndex<L, PendingCount<L>>;

  constructor(labelNames: readonly L[]) {
    this.series = new SeriesIndex(labelNames, (labels) => ({ labels, value: 0 }));
  }

  /** Adds `value` to the series of these label values (given in the order of the label names). */
  add(value: number, a: string, b?: string, c?: string, d?: string, e?: string): void {
    this.series.get(a, b, c, d, e).value += value;
  }

  /** Moves what was gathered into `counter` (called from its collect hook, so every read sees it). */
  flushInto(counter: Counter<L>): void {
    // In first-use order, as the pending map this replaces handed them over, so prom-client keeps its order.
    for (const s of this.series.all) {
      if (s.value === 0) continue;
      counter.inc(s.labels, s.value);
      s.value = 0;
    }
  }
}

/**
 * A gauge's per-label values kept as plain numbers (in-flight requests go up and down twice per
 * request) and set on the gauge when it is read.
 */
export class GatheredLevels {
  readonly values = new Map<string, number>();

  add(key: string, delta: number): void {
    this.values.set(key, (this.values.get(key) ?? 0) + delta);
  }
}
