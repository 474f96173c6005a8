import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { findKey, RECENT_KEYS } from '../../../src/config/access.js';
import { keyDigest } from '../../../src/config/raw-data.js';
import type { KeyConfig } from '../../../src/config/types.js';

const entry = (id: string, written: string): KeyConfig => ({ id, role: 'r', sha256: keyDigest(written) as Buffer });

describe('findKey', () => {
  const hex = createHash('sha256').update('second-key-0002').digest('hex');
  const keys = [entry('a', 'first-key-0001'), entry('b', `sha256:${hex}`), entry('dup', 'first-key-0001')];

  it('finds a plain key and a key configured by its sha256 digest; the first of two equal entries wins', () => {
    expect(findKey(keys, 'first-key-0001')?.id).toBe('a');
    expect(findKey(keys, 'second-key-0002')?.id).toBe('b');
  });

  it('finds nothing for an unknown key, a prefix of a key, or the digest text itself', () => {
    expect(findKey(keys, 'first-key-000')).toBeUndefined();
    expect(findKey(keys, `sha256:${hex}`)).toBeUndefined();
    expect(findKey(keys, '')).toBeUndefined();
  });

  it('each key list is indexed on its own (a reloaded config sees its own keys)', () => {
    const other = [entry('z', 'first-key-0001')];
    expect(findKey(other, 'first-key-0001')?.id).toBe('z');
    expect(findKey(keys, 'first-key-0001')?.id).toBe('a');
  });

  it('a key found before is found again, and an unknown or near key is still refused after it', () => {
    const list = [entry('a', 'first-key-0001')];
    for (let i = 0; i < 3; i++) expect(findKey(list, 'first-key-0001')?.id).toBe('a');
    expect(findKey(list, 'first-key-0002')).toBeUndefined();
    expect(findKey(list, 'first-key-000')).toBeUndefined();
    expect(findKey(list, 'first-key-00011')).toBeUndefined();
  });

  it('more matched keys than are remembered are all still found, the first ones again after the rest', () => {
    const list = Array.from({ length: RECENT_KEYS + 10 }, (_, i) => entry(`k${i}`, `key-number-${i}`));
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < list.length; i++) expect(findKey(list, `key-number-${i}`)?.id).toBe(`k${i}`);
    }
    expect(findKey(list, `key-number-${list.length}`)).toBeUndefined();
  });
});
