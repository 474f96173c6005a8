import { Histogram, type OpenMetricsContentType, type PrometheusContentType, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { GatheredHistogram } from '../../../src/observe/gathered-histogram.js';

const BUCKETS = [0.00005, 0.0001, 0.00025, 0.001, 0.005, 0.1, 0.25, 1, 2.5, 10];
const HELP = 'A test histogram, with a backslash \\ and a\nnewline in its help.';

/** The same histogram twice: prom-client's own and ours, each in a registry of its own. */
function pair(openMetrics = false) {
  const registry = () => {
    if (!openMetrics) return new Registry<PrometheusContentType>();
    const r = new Registry<OpenMetricsContentType>();
    r.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    return r;
  };
  const reference = registry();
  const gathered = registry();
  const config = { name: 'test_duration_seconds', help: HELP, buckets: BUCKETS };
  const theirs = new Histogram({ ...config, labelNames: ['endpoint', 'stream'], registers: [reference] });
  const ours = new GatheredHistogram({ ...config, labelNames: ['endpoint', 'stream'], registers: [gathered] });
  const observe = (value: number, endpoint: string, stream: string) => {
    theirs.observe({ endpoint, stream }, value);
    ours.observe(value, endpoint, stream);
  };
  return { reference, gathered, observe, ours };
}

/** Values on every bound, between bounds, past the last one, and sums that are not exact in binary. */
function feed(observe: (value: number, endpoint: string, stream: string) => void): void {
  const endpoints = ['POST /v1/chat/completions', 'POST /v1/messages', 'odd "quoted" \\ value\nline'];
  const values = [0, 0.1, 0.2, 0.3, 1e-5, 0.00005, 0.00007, 0.0001, 2.5, 2.5000001, 10, 11, 300, 1 / 3, 0.007];
  let n = 0;
  for (let round = 0; round < 40; round++) {
    for (const value of values) {
      // Series first seen in a scattered order, so their order of first observation is not their sort order.
      const endpoint = endpoints[(n * 7 + round) % endpoints.length];
      const stream = n % 5 === 0 ? 'true' : 'false';
      observe(value * (1 + (round % 3)), endpoint, stream);
      n++;
    }
  }
}

function samplesOf(metrics: Awaited<ReturnType<Registry['getMetricsAsJSON']>>) {
  return metrics.map((m) => ({
    name: m.name,
    help: m.help,
    type: m.type,
    aggregator: m.aggregator,
    values: m.values.map(({ labels, value, metricName }: { labels: object; value: number; metricName?: string }) => ({
      labels,
      value,
      metricName,
    })),
  }));
}

describe('GatheredHistogram', () => {
  it('renders exactly the text prom-client renders for the same observations', async () => {
    const { reference, gathered, observe } = pair();
    expect(await gathered.metrics()).toBe(await reference.metrics());
    feed(observe);
    const text = await gathered.metrics();
    expect(text).toBe(await reference.metrics());
    expect(text).toContain('test_duration_seconds_bucket{le="0.00005",endpoint="POST /v1/messages",stream="false"}');
    expect(text).toContain(
      'test_duration_seconds_bucket{le="+Inf",endpoint="POST /v1/chat/completions",stream="true"}',
    );
    // Scraped again after more observations: still the same.
    observe(0.5, 'POST /v1/messages', 'true');
    observe(0.5, 'a new endpoint', 'false');
    expect(await gathered.metrics()).toBe(await reference.metrics());
  });

  it('renders the same OpenMetrics text and the same JSON samples as prom-client', async () => {
    const open = pair(true);
    feed(open.observe);
    expect(await open.gathered.metrics()).toMatch(/# EOF\n$/);
    expect(await open.gathered.metrics()).toBe(await open.reference.metrics());
    expect(samplesOf(await open.gathered.getMetricsAsJSON())).toEqual(
      samplesOf(await open.reference.getMetricsAsJSON()),
    );
  });

  it('forgets every series on a registry reset, as prom-client does', async () => {
    const { reference, gathered, observe } = pair();
    feed(observe);
    reference.resetMetrics();
    gathered.resetMetrics();
    expect(await gathered.metrics()).toBe(
      '# HELP test_duration_seconds A test histogram, with a backslash \\\\ and a\\nnewline in its help.\n' +
        '# TYPE test_duration_seconds histogram\n',
    );
    expect(await gathered.metrics()).toBe(await reference.metrics());
    observe(0.003, 'POST /v1/messages', 'false');
    expect(await gathered.metrics()).toBe(await reference.metrics());
  });

  it('throws on a value that is not a finite number and counts nothing, as prom-client does', async () => {
    const { reference, gathered, observe } = pair();
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => observe(bad, 'e', 'false')).toThrow(TypeError);
    expect(await gathered.metrics()).toBe(await reference.metrics());
    expect(await gathered.metrics()).not.toContain('_count');
  });

  it('refuses buckets that are not ascending and label values that do not match the label names', () => {
    const registers = [new Registry()];
    const base = { name: 'h', help: 'h', labelNames: ['a'] as const, registers };
    expect(() => new GatheredHistogram({ ...base, buckets: [1, 0.5] })).toThrow(/ascending/);
    expect(() => new GatheredHistogram({ ...base, buckets: [1, Number.POSITIVE_INFINITY] })).toThrow(/ascending/);
    const h = new GatheredHistogram({ ...base, name: 'h2', buckets: [1] });
    expect(() => h.observe(1, 'x', 'extra')).toThrow(/more label values/);
  });
});
