import { describe, expect, it } from 'vitest';
import { MemoryDocs } from '../../../src/state/memory-docs.js';

describe('MemoryDocs', () => {
  it('keeps a document until its expiry, then reads as absent', async () => {
    let now = 1000;
    const docs = new MemoryDocs(() => now);
    await docs.putDoc('a', 'one', 500);
    expect(await docs.getDoc('a')).toBe('one');
    now = 1499;
    expect(await docs.getDoc('a')).toBe('one');
    now = 1500;
    expect(await docs.getDoc('a')).toBeUndefined();
    expect(await docs.deleteDoc('a')).toBe(false);
  });

  it('replaces a document and deletes it once', async () => {
    const docs = new MemoryDocs(() => 0);
    await docs.putDoc('a', 'one', 10);
    await docs.putDoc('a', 'two', 10);
    expect(await docs.getDoc('a')).toBe('two');
    expect(await docs.deleteDoc('a')).toBe(true);
    expect(await docs.deleteDoc('a')).toBe(false);
    expect(await docs.getDoc('a')).toBeUndefined();
  });

  it('drops the oldest documents when the bound would be passed', async () => {
    const docs = new MemoryDocs(() => 0, 30); // key + value characters
    await docs.putDoc('k1', 'x'.repeat(8), 100); // 10
    await docs.putDoc('k2', 'x'.repeat(8), 100); // 20
    await docs.putDoc('k3', 'x'.repeat(8), 100); // 30: fits exactly
    expect(await docs.getDoc('k1')).toBeDefined();
    await docs.putDoc('k4', 'x'.repeat(8), 100); // k1 goes
    expect(await docs.getDoc('k1')).toBeUndefined();
    expect(await docs.getDoc('k2')).toBeDefined();
    expect(await docs.getDoc('k4')).toBeDefined();
    await docs.putDoc('k5', 'x'.repeat(18), 100); // 20 characters: k2 and k3 go
    expect(await docs.getDoc('k2')).toBeUndefined();
    expect(await docs.getDoc('k3')).toBeUndefined();
    expect(await docs.getDoc('k4')).toBeDefined();
    expect(await docs.getDoc('k5')).toBeDefined();
  });

  it('does not keep a document larger than the whole bound, and keeps the others', async () => {
    const docs = new MemoryDocs(() => 0, 20);
    await docs.putDoc('k1', 'small', 100);
    await docs.putDoc('big', 'x'.repeat(40), 100);
    expect(await docs.getDoc('big')).toBeUndefined();
    expect(await docs.getDoc('k1')).toBe('small');
  });
});
