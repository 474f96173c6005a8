import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCHEMA_URL, loadSchema, schemaValidator } from '../../../src/config/schema.js';

/** Every subschema, with its JSON pointer. */
function* walk(node: unknown, at = '#'): Generator<[string, Record<string, unknown>]> {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const [i, x] of node.entries()) yield* walk(x, `${at}/${i}`);
    return;
  }
  yield [at, node as Record<string, unknown>];
  for (const [k, v] of Object.entries(node)) yield* walk(v, `${at}/${k}`);
}

describe('schema/gateway.schema.json', () => {
  it('is the shipped file at the package root', () => {
    expect(SCHEMA_URL.pathname).toBe(new URL('../../../schema/gateway.schema.json', import.meta.url).pathname);
    expect(loadSchema()).toEqual(JSON.parse(readFileSync(SCHEMA_URL, 'utf8')));
    expect(loadSchema().$schema).toBe('http://json-schema.org/draft-07/schema#');
  });

  it('compiles in strict mode', () => {
    expect(typeof schemaValidator()).toBe('function');
  });

  it('takes a model kind, chat or embedding, and a positive integer dimensions', () => {
    const validate = schemaValidator();
    const withModel = (model: object) => ({
      providers: { l: { api: 'mock', models: { m: { context_window: 1, ...model } } } },
    });
    expect(validate(withModel({ kind: 'embedding', dimensions: 1536 }))).toBe(true);
    expect(validate(withModel({ kind: 'chat' }))).toBe(true);
    expect(validate(withModel({ kind: 'vector' }))).toBe(false);
    expect(validate(withModel({ kind: 'embedding', dimensions: 1.5 }))).toBe(false);
  });

  it('closes every object that declares properties (additionalProperties: false)', () => {
    const open = [...walk(loadSchema())]
      .filter(([at, s]) => s.properties !== undefined && !/\/(if|then|else)$/.test(at))
      .filter(([, s]) => s.additionalProperties !== false)
      .map(([at]) => at);
    expect(open).toEqual([]);
  });
});
