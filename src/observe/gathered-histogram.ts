/**
 * A histogram that counts observations in plain arrays and renders them only when the registry is
 * read. prom-client's Histogram.observe validates and hashes the label object, allocates a closure
 * and turns the bucket bound into a property key on every call; with three or four histograms moved
 * by each request that was the largest part of the metrics' cost per request.
 *
 * prom-client has no public way to set a histogram's counts, so this is a metric of its own that
 * the registry renders: the registry reads a metric's name, help, type and aggregator and the
 * samples of `get()` (the samples' shape documented by its `get()`), and calls `reset()`. The
 * samples are those a prom-client Histogram with the same name, help, labels and buckets gives for
 * the same observations: series in the order of their first observation, cumulative `_bucket`
 * counts with `le` first, then `+Inf`, `_sum` (added up in observation order) and `_count`.
 */

import type { Histogram, Metric, OpenMetricsContentType, PrometheusContentType, Registry } from 'prom-client';
import { SeriesIndex } from './series-index.js';

interface HistogramSeries<L extends string> {
  readonly labels: Record<L, string>;
  /** Observations per bucket (not cumulative): index i counts values v with bounds[i-1] < v <= bounds[i]. */
  readonly counts: number[];
  sum: number;
  count: number;
}

type Sample = Awaited<ReturnType<Histogram['get']>>['values'][number];

export interface GatheredHistogramConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  /** Upper bounds, ascending (+Inf is implied, as in prom-client). */
  buckets: readonly number[];
  registers: readonly (Registry<PrometheusContentType> | Registry<OpenMetricsContentType>)[];
}

export class GatheredHistogram<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly bounds: readonly number[];
  private readonly series: SeriesIndex<L, HistogramSeries<L>>;

  constructor(config: GatheredHistogramConfig<L>) {
    this.name = config.name;
    this.help = config.help;
    this.bounds = [...config.buckets];
    if (this.bounds.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= this.bounds[i - 1])))
      throw new Error(`${config.name}: buckets must be finite and ascending`);
    const width = this.bounds.length;
    this.series = new SeriesIndex(config.labelNames, (labels) => ({
      labels,
      counts: new Array<number>(width).fill(0),
      sum: 0,
      count: 0,
    }));
    // The registry only reads the members above; its type names prom-client's own metric classes.
    for (const r of config.registers) r.registerMetric(this as unknown as Metric);
  }

  /** Counts `value` (finite, seconds) in the series of these label values (in the order of the label names). */
  observe(value: number, a: string, b?: string): void {
    // As prom-client: a value that is not a finite number throws (and is not counted).
    if (!Number.isFinite(value)) throw new TypeError(`${this.name}: value is not a finite number: ${value}`);
    const s = this.series.get(a, b);
    // The first bucket whose bound is >= value; past the last bound only +Inf (the count) holds it.
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        s.counts[i]++;
        break;
      }
    }
    s.sum += value;
    s.count++;
  }

  async get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: Sample[] }> {
    const values: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.series.all) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += s.counts[i];
        // `le` stays a number, as in prom-client, so the registry prints it the same way.
        values.push({ labels: { le: this.bounds[i], ...s.labels }, value: cumulative, metricName: bucket });
      }
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: bucket });
      values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...s.labels }, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.series.clear();
  }
}
