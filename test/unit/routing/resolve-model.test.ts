import { describe, expect, it } from 'vitest';
import { listModels } from '../../../src/routing/list-models.js';
import { resolveModel } from '../../../src/routing/resolve-model.js';
import { patternCovers } from '../../../src/config/model-patterns.js';
import { loadTestConfig } from '../../helpers/start-gateway.js';

const config = loadTestConfig(`
providers:
  a: { api: mock, models: { x: { context_window: 100 }, y: { context_window: 50 }, "org/z": { context_window: 10 } } }
  b: { api: openai, base_url: "http://127.0.0.1:1/v1", models: { w: { context_window: 1000 } } }
aliases:
  ns/one: { targets: [ a/x, { model: a/y, weight: 2 } ], fallbacks: [ ns/two, a/x ] }
  ns/two: { targets: [ b/w ], fallbacks: [ a/org/z ] }
roles:
  r: { models: ["ns/*", "a/x"] }
  all: { models: ["*"] }
keys: [ { id: k, key: "key-key-key-key", role: r } ]
`);

describe('patternCovers', () => {
  it('matches *, prefix/* and exact ids only', () => {
    expect(patternCovers('*', 'a/x')).toBe(true);
    expect(patternCovers('a/*', 'a/org/z')).toBe(true);
    expect(patternCovers('a/*', 'ab/x')).toBe(false);
    expect(patternCovers('a/x', 'a/x')).toBe(true);
    expect(patternCovers('a/x', 'a/xy')).toBe(false);
  });
});

describe('resolveModel', () => {
  it('resolves a concrete id, splitting at the first slash', () => {
    const r = resolveModel(config, 'a/org/z')!;
    expect(r.kind).toBe('model');
    expect(r.candidates.map((c) => [c.provider.id, c.model.name])).toEqual([['a', 'org/z']]);
  });
  it('expands an alias to targets then fallbacks, recursively, each model once', () => {
    // random 0.9 for a/x (weight 1) beats 0.5^(1/2) ≈ 0.71 for a/y (weight 2)
    const draws = [0.9, 0.5];
    const r = resolveModel(config, 'ns/one', () => draws.shift() ?? 0.5)!;
    expect(r.kind).toBe('alias');
    expect(r.candidates.map((c) => [c.model.id, c.fallback])).toEqual([
      ['a/x', false],
      ['a/y', false],
      ['b/w', true],
      ['a/org/z', true],
    ]);
  });
  it('orders weighted targets so each comes first with probability weight / total', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let yFirst = 0;
    const n = 3000;
    for (let i = 0; i < n; i++) if (resolveModel(config, 'ns/one', random)!.candidates[0].model.id === 'a/y') yFirst++;
    // a/y has weight 2 of 3: expect about 2000; a 5-sigma band keeps this deterministic seed far from the edges
    expect(yFirst).toBeGreaterThan(2000 - 130);
    expect(yFirst).toBeLessThan(2000 + 130);
  });
  it('keeps config order for strategy ordered', () => {
    const ordered = loadTestConfig(`
providers:
  a: { api: mock, models: { x: { context_window: 100 }, y: { context_window: 50 } } }
aliases:
  ns/o: { strategy: ordered, targets: [ { model: a/y, weight: 1 }, { model: a/x, weight: 100 } ] }
roles: { r: { models: ["*"] } }
keys: [ { id: k, key: "key-key-key-key", role: r } ]
`);
    for (let i = 0; i < 20; i++)
      expect(resolveModel(ordered, 'ns/o')!.candidates.map((c) => c.model.id)).toEqual(['a/y', 'a/x']);
  });
  it('returns undefined for an unknown name', () => {
    expect(resolveModel(config, 'ns/three')).toBeUndefined();
    expect(resolveModel(config, 'x')).toBeUndefined();
  });
});

describe('listModels', () => {
  it('lists what a role may use with the alias context window the smallest of its targets', () => {
    const list = listModels(config, 'r');
    expect(list.map((m) => m.id)).toEqual(['a/x', 'ns/one', 'ns/two']);
    expect(list.find((m) => m.id === 'ns/one')!.contextWindow).toBe(50);
    // a/y is outside the role: routed to, but not named to the caller.
    expect(list.find((m) => m.id === 'ns/one')!.targets).toEqual(['a/x']);
  });
  it('lists everything without a role', () => {
    expect(listModels(config).length).toBe(6);
  });
});
