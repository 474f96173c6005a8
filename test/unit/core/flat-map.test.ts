import { describe, expect, it } from 'vitest';
import { appendAll, flatMapArray } from '../../../src/core/flat-map.js';
import { encodeAnthropicRequest } from '../../../src/formats/anthropic-messages/request-encode.js';
import { decodeOpenaiRequest } from '../../../src/formats/openai-chat/request-decode.js';
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

describe('many content parts (a 4 MB body holds more than a spread call can pass)', () => {
  const parts = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'text', text: `p${i}` }));

  it('appendAll appends past the spread limit', () => {
    const target = [0];
    appendAll(target, new Array(300_000).fill(1));
    expect(target).toHaveLength(300_001);
  });

  it('a system message of 200,000 parts decodes, and translates with another system and user turn', () => {
    const chat = decodeOpenaiRequest({
      model: 'm',
      messages: [
        { role: 'system', content: parts(200_000) },
        { role: 'user', content: 'hi' },
        { role: 'system', content: parts(200_000) },
        { role: 'user', content: parts(200_000) },
        { role: 'user', content: parts(200_000) },
      ],
    });
    expect(chat.system).toHaveLength(200_000);
    expect(allSystemParts(chat)).toHaveLength(400_000);
    const body = encodeAnthropicRequest(chat, { model: 'claude' }, []) as { messages: Array<{ content: unknown[] }> };
    // The user turns merge into one (the system message between them is hoisted): 'hi' and 2 × 200,000.
    expect(body.messages.at(-1)?.content).toHaveLength(400_001);
  });
});
