/**
 * Counter increments gathered in a plain map between scrapes and handed to prom-client when it
 * reads the metric (its collect hook). Per increment this costs a key string and one map update;
 * prom-client itself sorts, validates and hashes the label object of every inc() (several µs a
 * request for the handful of counters each request moves).
 */

import type { Counter } from 'prom-client';

export class GatheredCounts<L extends string> {
  private pending = new Map<string, { labels: Record<L, string>; value: number }>();

  /** `key` must identify the label values (e.g. them joined with "\0"); `labels` makes them once per key. */
  add(key: string, labels: () => Record<L, string>, value = 1): void {
    const entry = this.pending.get(key);
    if (entry) entry.value += value;
    else this.pending.set(key, { labels: labels(), value });
  }

  /** Moves what was gathered into `counter` (called from its collect hook, so every read sees it). */
  flushInto(counter: Counter<L>): void {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    for (const { labels, value } of batch.values()) counter.inc(labels, value);
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
