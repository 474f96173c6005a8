import { describe, expect, it } from 'vitest';
import { listModels } from '../../../src/routing/list-models.js';
import { resolveModel } from '../../../src/routing/resolve-model.js';
import { patternMatches } from '../../../src/routing/role-patterns.js';
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

describe('patternMatches', () => {
  it('matches *, prefix/* and exact ids only', () => {
    expect(patternMatches('*', 'a/x')).toBe(true);
    expect(patternMatches('a/*', 'a/org/z')).toBe(true);
    expect(patternMatches('a/*', 'ab/x')).toBe(false);
    expect(patternMatches('a/x', 'a/x')).toBe(true);
    expect(patternMatches('a/x', 'a/xy')).toBe(false);
  });
});

describe('resolveModel', () => {
  it('resolves a concrete id, splitting at the first slash', () => {
    const r = resolveModel(config, 'a/org/z')!;
    expect(r.kind).toBe('model');
    expect(r.candidates.map((c) => [c.provider.id, c.model.name])).toEqual([['a', 'org/z']]);
  });
  it('expands an alias to targets then fallbacks, recursively, each model once', () => {
    const r = resolveModel(config, 'ns/one')!;
    expect(r.kind).toBe('alias');
    expect(r.candidates.map((c) => [c.model.id, c.fallback])).toEqual([
      ['a/x', false],
      ['a/y', false],
      ['b/w', true],
      ['a/org/z', true],
    ]);
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
    expect(list.find((m) => m.id === 'ns/one')!.targets).toEqual(['a/x', 'a/y']);
  });
  it('lists everything without a role', () => {
    expect(listModels(config).length).toBe(6);
  });
});
