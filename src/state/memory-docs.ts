/**
 * The embedded store's documents: in memory only (not in the state file, which holds counters and
 * is rewritten whole), bounded in total size. When a new document would pass the bound, the
 * oldest are dropped first; an expired one is dropped when read or when space is needed.
 */

import type { DocStore } from './store.js';

interface Doc {
  value: string;
  expiresAt: number;
}

/** Default bound of the documents kept by one embedded store (UTF-16 code units, ~2 bytes each). */
export const DEFAULT_MAX_DOC_CHARS = 64 * 1024 * 1024;

export class MemoryDocs implements DocStore {
  /** Insertion order is age order: Map iterates oldest first. */
  private readonly docs = new Map<string, Doc>();
  private chars = 0;

  constructor(
    private readonly now: () => number,
    private readonly maxChars = DEFAULT_MAX_DOC_CHARS,
  ) {}

  async putDoc(key: string, value: string, ttlMs: number): Promise<void> {
    this.drop(key);
    const size = key.length + value.length;
    if (size > this.maxChars) return; // larger than the whole bound: not kept (a later read says absent)
    const now = this.now();
    for (const [k, d] of this.docs) {
      if (this.chars + size <= this.maxChars && d.expiresAt > now) break;
      this.drop(k);
    }
    this.docs.set(key, { value, expiresAt: now + ttlMs });
    this.chars += size;
  }

  async getDoc(key: string): Promise<string | undefined> {
    const d = this.docs.get(key);
    if (!d) return undefined;
    if (d.expiresAt <= this.now()) {
      this.drop(key);
      return undefined;
    }
    return d.value;
  }

  async deleteDoc(key: string): Promise<boolean> {
    const live = (await this.getDoc(key)) !== undefined;
    this.drop(key);
    return live;
  }

  private drop(key: string): void {
    const d = this.docs.get(key);
    if (!d) return;
    this.docs.delete(key);
    this.chars -= key.length + d.value.length;
  }
}
