import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { findKey } from '../../../src/config/access.js';
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
});
