import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { GatheredCounts } from '../../../src/observe/gathered-counts.js';
import { SeriesIndex } from '../../../src/observe/series-index.js';

describe('SeriesIndex', () => {
  it('finds one series per combination of label values, made once, listed in first-lookup order', () => {
    const made: Record<string, string>[] = [];
    const index = new SeriesIndex(['model', 'provider'] as const, (labels) => {
      made.push(labels);
      return { labels };
    });
    const a = index.get('m1', 'p1');
    const b = index.get('m1', 'p2');
    const c = index.get('p1', 'm1');
    expect(index.get('m1', 'p1')).toBe(a);
    expect(new Set([a, b, c]).size).toBe(3);
    expect(made).toEqual([
      { model: 'm1', provider: 'p1' },
      { model: 'm1', provider: 'p2' },
      { model: 'p1', provider: 'm1' },
    ]);
    expect(index.all).toEqual([a, b, c]);
    index.clear();
    expect(index.all).toEqual([]);
    expect(index.get('m1', 'p1')).not.toBe(a);
  });

  it('refuses fewer or more label values than label names', () => {
    const index = new SeriesIndex(['model', 'provider'] as const, (labels) => labels);
    expect(() => index.get('m1')).toThrow(/no value for label provider/);
    expect(() => index.get('m1', 'p1', 'x')).toThrow(/more label values/);
    expect(() => new SeriesIndex([], () => 0)).toThrow(/1 to 5 labels/);
  });
});

describe('GatheredCounts', () => {
  it('gives a counter the same series and values as incrementing it directly', async () => {
    const reference = new Registry();
    const gathered = new Registry();
    const config = { name: 'test_total', help: 'Test.', labelNames: ['model', 'provider', 'kind'] as const };
    const direct = new Counter({ ...config, registers: [reference] });
    const counts = new GatheredCounts(config.labelNames);
    const counter: Counter<'model' | 'provider' | 'kind'> = new Counter({
      ...config,
      registers: [gathered],
      collect: () => counts.flushInto(counter),
    });
    const add = (n: number, model: string, provider: string, kind: string) => {
      direct.inc({ model, provider, kind }, n);
      counts.add(n, model, provider, kind);
    };
    for (let i = 0; i < 30; i++) add(0.1 * (i % 4) + 0.0012, ['a', 'b', 'c'][i % 3], i % 2 ? 'p' : 'q', 'input');
    // Sums of fractions can differ in the last bit depending on the order they are added in; compare parsed.
    const parse = (text: string) =>
      text.split('\n').map((line) => {
        const m = /^(.*\}) (\S+)$/.exec(line);
        return m ? [m[1], Number(m[2]).toPrecision(12)] : [line];
      });
    expect(parse(await gathered.metrics())).toEqual(parse(await reference.metrics()));
    add(5, 'new', 'p', 'output');
    expect(parse(await gathered.metrics())).toEqual(parse(await reference.metrics()));
    expect(await gathered.metrics()).toContain('test_total{model="new",provider="p",kind="output"} 5');
  });
});
