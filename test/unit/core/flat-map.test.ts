import { describe, expect, it } from 'vitest';
import { flatMapArray } from '../../../src/core/flat-map.js';
import { allSystemParts } from '../../../src/formats/system-parts.js';
import type { ChatRequest } from '../../../src/core/canonical.js';

describe('flatMapArray', () => {
  it('is Array.prototype.flatMap for callbacks that return arrays (index passed, one level flattened)', () => {
    const items = [3, 0, 1, 2];
    const f = (n: number, i: number) => Array.from({ length: n }, (_, k) => [i, k]);
    expect(flatMapArray(items, f)).toEqual(items.flatMap(f));
    expect(flatMapArray([], f)).toEqual([]);
    expect(flatMapArray([[1], [2, [3]]], (x) => x)).toEqual([1, 2, [3]]);
  });
});

describe('allSystemParts', () => {
  it("is the request's system parts, then those of its system messages in order", () => {
    const req = {
      system: [{ type: 'text', text: 'a' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'u' }] },
        {
          role: 'system',
          content: [
            { type: 'text', text: 'b' },
            { type: 'text', text: 'c' },
          ],
        },
        { role: 'system', content: [{ type: 'text', text: 'd' }] },
      ],
    } as unknown as ChatRequest;
    expect(allSystemParts(req).map((p) => (p as { text: string }).text)).toEqual(['a', 'b', 'c', 'd']);
    expect(req.system).toHaveLength(1); // not changed
  });
});
