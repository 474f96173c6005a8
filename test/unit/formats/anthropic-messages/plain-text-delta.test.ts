import { describe, expect, it } from 'vitest';
import { JSON_TEXT_PIECES, random, seededText } from '../../../helpers/seeded-text.js';
import { plainTextDelta } from '../../../../src/formats/anthropic-messages/plain-text-delta.js';

const ALPHABET = [...JSON_TEXT_PIECES, '\ud800', '}}', '"}}', '\\"'];

const delta = (index: unknown, text: string) =>
  JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });

describe('plainTextDelta (the Anthropic decoder fast path)', () => {
  it('reads a plain text delta as written by Anthropic', () => {
    expect(plainTextDelta(delta(0, ' tok1'))).toEqual({ index: 0, text: ' tok1' });
    expect(plainTextDelta(delta(12, 'Hello, é 漢 🙂'))).toEqual({ index: 12, text: 'Hello, é 漢 🙂' });
    expect(plainTextDelta(delta(3, ''))).toEqual({ index: 3, text: '' });
  });

  it('agrees with JSON.parse on 5,000 seeded texts, or leaves them to it', () => {
    const next = random(42);
    let fast = 0;
    for (let n = 0; n < 5000; n++) {
      const text = seededText(next, ALPHABET);
      const index = Math.floor(next() * 20);
      const data = delta(index, text);
      const got = plainTextDelta(data);
      if (got === undefined) continue;
      fast++;
      const parsed = JSON.parse(data);
      expect(got).toEqual({ index: parsed.index, text: parsed.delta.text });
    }
    // Most texts without escapes take the fast path; the others were checked to fall back.
    expect(fast).toBeGreaterThan(500);
  });

  it('leaves to JSON.parse every other shape, spacing, order, index or escape', () => {
    const others = [
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\nb"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\"b"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\tb"}}',
      '{"type": "content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}',
      '{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}',
      '{"type":"content_block_delta","index":0,"delta":{"text":"a","type":"text_delta"}}',
      '{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"a"}}',
      '{"type":"content_block_delta","index":-1,"delta":{"type":"text_delta","text":"a"}}',
      '{"type":"content_block_delta","index":1e3,"delta":{"type":"text_delta","text":"a"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"x":{"k":"v"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","x":"b"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}} ',
      '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a"}}',
    ];
    for (const data of others) expect(plainTextDelta(data), data).toBeUndefined();
  });
});
