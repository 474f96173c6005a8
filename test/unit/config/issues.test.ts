import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, formatPath, pointerToSegments } from '../../../src/config/issues.js';

describe('did you mean', () => {
  it('counts transpositions as one edit', () => {
    expect(editDistance('contex_window', 'context_window')).toBe(1);
    expect(editDistance('moedls', 'models')).toBe(1);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'ab')).toBe(2);
  });

  it('suggests close names, prefixes, and nothing for unrelated ones', () => {
    const props = ['api', 'base_url', 'api_key', 'headers', 'timeouts', 'byok', 'mock', 'models'];
    expect(didYouMean('base-url', props)).toBe('base_url');
    expect(didYouMean('baseUrl', props)).toBe('base_url');
    expect(didYouMean('apikey', props)).toBe('api_key');
    expect(didYouMean('timeout', props)).toBe('timeouts');
    expect(didYouMean('head', props)).toBe('headers'); // prefix match
    expect(didYouMean('xyz', props)).toBeUndefined();
    expect(didYouMean('q', ['a', 'b'])).toBeUndefined(); // one-letter names are all "close"
  });
});

describe('paths', () => {
  it('formats dotted paths with indices and quotes ambiguous keys', () => {
    expect(formatPath([])).toBe('');
    expect(formatPath(['roles', 'dev', 'models', 2])).toBe('roles.dev.models[2]');
    expect(formatPath(['keys', 0, 'key'])).toBe('keys[0].key');
    expect(formatPath(['aliases', 'team/fast'])).toBe('aliases.team/fast');
    expect(formatPath(['providers', 'openai', 'models', 'gpt-3.5-turbo'])).toBe(
      'providers.openai.models["gpt-3.5-turbo"]',
    );
  });

  it('decodes JSON pointers, telling array indices from numeric keys', () => {
    const data = { keys: [{ id: 'a' }], providers: { '0': { models: { 'a/b': {} } } } };
    expect(pointerToSegments('/keys/0/id', data)).toEqual(['keys', 0, 'id']);
    expect(pointerToSegments('/providers/0/models/a~1b', data)).toEqual(['providers', '0', 'models', 'a/b']);
    expect(pointerToSegments('', data)).toEqual([]);
  });
});
