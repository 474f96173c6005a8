import { describe, expect, it } from 'vitest';
import { jsonString, perName } from '../../../src/core/json-string.js';

describe('perName', () => {
  it('makes each name once, and starts again past its bound (invented names cannot grow it)', () => {
    const made: string[] = [];
    const upper = perName((name) => {
      made.push(name);
      return name.toUpperCase();
    });
    expect(upper('a')).toBe('A');
    expect(upper('a')).toBe('A');
    expect(made).toEqual(['a']);
    for (let i = 0; i < 1024; i++) upper(`n${i}`);
    expect(made).toHaveLength(1025);
    upper('a'); // forgotten when the memo started again
    expect(made).toHaveLength(1026);
  });
});

describe('jsonString', () => {
  it('is JSON.stringify of the name', () => {
    for (const name of ['gpt-4o', 'a"b\\c', 'é 漢 🙂', '\u0000\n', ''])
      expect(jsonString(name)).toBe(JSON.stringify(name));
  });
});
