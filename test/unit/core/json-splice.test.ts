import { describe, expect, it } from 'vitest';
import {
  arrayElementSpans,
  type MemberOffsets,
  objectSpans,
  removeTopLevel,
  removeTopLevelWhere,
  replaceSpans,
  spliceTopLevel,
  topLevelSpans,
} from '../../../src/core/json-splice.js';
import { parseJsonStrictMembers } from '../../../src/core/parse-json-strict.js';

const splice = (s: string, replace: Record<string, string>, insert?: Record<string, string>) =>
  spliceTopLevel(Buffer.from(s), replace, insert).toString();

describe('spliceTopLevel', () => {
  it('replaces only the top-level member, keeping every other byte', () => {
    const src = '{ "messages": [{"model": "inner"}], "model" : "a/b",\n "x": {"model": 1} }';
    expect(splice(src, { model: '"b"' })).toBe(
      '{ "messages": [{"model": "inner"}], "model" : "b",\n "x": {"model": 1} }',
    );
  });
  it('copes with escapes, braces inside strings and unicode', () => {
    const src = '{"note":"a \\" } { [ ] \\\\","model":"m","é":"ü"}';
    const out = splice(src, { model: '"n"' });
    expect(JSON.parse(out)).toEqual({ note: 'a " } { [ ] \\', model: 'n', é: 'ü' });
  });
  it('inserts a member that is missing and replaces one that exists', () => {
    expect(JSON.parse(splice('{"model":"m"}', {}, { stream_options: '{"include_usage":true}' }))).toEqual({
      model: 'm',
      stream_options: { include_usage: true },
    });
    expect(splice('{"stream_options":{"x":1},"model":"m"}', { stream_options: '{"x":1,"include_usage":true}' })).toBe(
      '{"stream_options":{"x":1,"include_usage":true},"model":"m"}',
    );
    expect(splice('{}', {}, { a: '1' })).toBe('{"a":1}');
  });
  it('handles numbers, literals and escaped keys', () => {
    const spans = topLevelSpans(Buffer.from('{"a":-1.5e3,"b":true,"c":null,"m\\u006fdel":"x"}'));
    expect([...spans.keys()]).toEqual(['a', 'b', 'c', 'model']);
    expect(splice('{"a":-1.5e3,"model":"x","b":false}', { model: '"y"' })).toBe('{"a":-1.5e3,"model":"y","b":false}');
  });
});

describe('removeTopLevel', () => {
  const remove = (s: string, keys: string[]) => removeTopLevel(Buffer.from(s), keys).toString();
  it('removes a first, middle or last member with its comma, keeping every other byte', () => {
    expect(remove('{"model":"m", "a":1}', ['model'])).toBe('{"a":1}');
    expect(remove('{"a":1, "model" : "m",\n "b":{"model":2}}', ['model'])).toBe('{"a":1, "b":{"model":2}}');
    expect(remove('{"a":[1], "model":"m" }', ['model'])).toBe('{"a":[1] }');
    expect(remove('{ "model":"m" }', ['model'])).toBe('{  }');
  });
  it('removes every occurrence and escaped spellings; leaves a body without it as it is', () => {
    expect(remove('{"model":"a","x":1,"m\\u006fdel":"b"}', ['model'])).toBe('{"x":1}');
    expect(remove('{"x":1}', ['model'])).toBe('{"x":1}');
    expect(JSON.parse(remove('{"model":"a","x":{"y":"}"},"stream":true}', ['model', 'stream']))).toEqual({
      x: { y: '}' },
    });
  });
});

describe('removeTopLevelWhere, arrayElementSpans, objectSpans, replaceSpans', () => {
  it('removes the members a predicate picks, every other byte kept', () => {
    const src = '{"a":1, "b":{"a":2},\n"c":[3],"d":"a"}';
    const picked: string[] = [];
    const out = removeTopLevelWhere(Buffer.from(src), (key) => {
      picked.push(key);
      return key === 'a' || key === 'd';
    });
    expect(out.toString()).toBe('{"b":{"a":2},\n"c":[3]}');
    expect(removeTopLevelWhere(Buffer.from(src), () => false).toString()).toBe(src);
    expect(new Set(picked)).toEqual(new Set(['a', 'b', 'c', 'd']));
  });
  it('finds the elements of a nested array and the members of an object in it', () => {
    const b = Buffer.from('{"m":[ {"role":"system","x":"]"} , 2,"s",[1]\n]}');
    const at = topLevelSpans(b).get('m')![0];
    const els = arrayElementSpans(b, at).map(([s, e]) => b.toString('utf8', s, e));
    expect(els).toEqual(['{"role":"system","x":"]"}', '2', '"s"', '[1]']);
    expect(arrayElementSpans(Buffer.from('[ ]'), 0)).toEqual([]);
    const role = objectSpans(b, arrayElementSpans(b, at)[0][0]).get('role')!;
    expect(replaceSpans(b, [{ span: role, text: '"user"' }]).toString()).toBe(
      '{"m":[ {"role":"user","x":"]"} , 2,"s",[1]\n]}',
    );
  });
});

describe('members found by the strict parse', () => {
  // parse-json-strict.ts gives where an object body's members are; the splicer uses them instead of walking it.
  const bodies = [
    '{ "messages": [{"model": "inner"}], "model" : "a/b",\n "x": {"model": 1} }',
    '{"note":"a \\" } { [ ] \\\\","model":"m","é":"ü"}',
    '{"a":-1.5e3,"b":true,"c":null,"m\\u006fdel":"x"}',
    '{"stream_options":{"x":1},"model":"m"}',
    '  {"a":[1, [2, {"b": []}]] , "model":"m" , "z" : {} }  ',
    '{"model":"m"}',
    '{}',
    `{${Array.from({ length: 40 }, (_, i) => `"k${i}":[${i},{"v":"${'x'.repeat(i)}"}]`).join(',')},"model":"m"}`,
  ];
  const edits = [
    (b: Buffer, m?: MemberOffsets) => spliceTopLevel(b, { model: '"y"' }, { stream_options: '{"x":true}' }, m),
    (b: Buffer, m?: MemberOffsets) => spliceTopLevel(b, { model: '"y"', a: '2', é: '3' }, { a: '1', n: 'null' }, m),
  ];
  it('give every edit the same bytes as a walk of the body', () => {
    for (const text of bodies) {
      const { members } = parseJsonStrictMembers(Buffer.from(text));
      expect(members, text).toBeDefined();
      for (const edit of edits) {
        expect(edit(Buffer.from(text), members).toString(), text).toBe(edit(Buffer.from(text)).toString());
      }
    }
  });
  it('are not given for a body that is not an object', () => {
    expect(parseJsonStrictMembers(Buffer.from('[{"a":1}]')).members).toBeUndefined();
    expect(parseJsonStrictMembers(Buffer.from(' "x" ')).members).toBeUndefined();
  });
});
