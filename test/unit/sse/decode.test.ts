import { describe, expect, it } from 'vitest';
import { SseDecoder, type SseMessage } from '../../../src/sse/decode.js';
import { encodeSse } from '../../../src/sse/encode.js';

function decodeChunks(chunks: Array<string | Uint8Array>): SseMessage[] {
  const d = new SseDecoder();
  const out: SseMessage[] = [];
  for (const c of chunks) out.push(...d.push(c));
  out.push(...d.end());
  return out;
}

describe('SseDecoder', () => {
  it('decodes events, data and ids', () => {
    expect(decodeChunks(['event: ping\ndata: {}\n\nid: 7\ndata: x\n\n'])).toEqual([
      { event: 'ping', data: '{}', id: undefined },
      { event: undefined, data: 'x', id: '7' },
    ]);
  });
  it('handles a CRLF split across chunks', () => {
    expect(decodeChunks(['data: a\r', '\n\r', '\ndata: b\r\n\r\n'])).toEqual([
      { event: undefined, data: 'a', id: undefined },
      { event: undefined, data: 'b', id: undefined },
    ]);
  });
  it('handles bare CR line endings', () => {
    expect(decodeChunks(['data: a\r\rdata: b\r\r']).map((m) => m.data)).toEqual(['a', 'b']);
  });
  it('keeps a multi-byte UTF-8 character split across chunks whole', () => {
    const bytes = new TextEncoder().encode('data: héllo 🙂\n\n');
    const cut = bytes.indexOf(0xf0) + 2; // inside the 4-byte emoji
    expect(decodeChunks([bytes.slice(0, 8), bytes.slice(8, cut), bytes.slice(cut)])[0].data).toBe('héllo 🙂');
  });
  it('skips comment lines and joins multi-line data with newlines', () => {
    expect(decodeChunks([': keep-alive\n', 'data: line1\ndata: line2\n\n'])).toEqual([
      { event: undefined, data: 'line1\nline2', id: undefined },
    ]);
  });
  it('treats a field without a colon as an empty value and strips only one leading space', () => {
    expect(decodeChunks(['data\ndata:  two\n\n'])[0].data).toBe('\n two');
  });
  it('dispatches an unterminated final event at the end of input', () => {
    expect(decodeChunks(['data: [DONE]'])).toEqual([{ event: undefined, data: '[DONE]', id: undefined }]);
  });
  it('ignores blank lines between events', () => {
    expect(decodeChunks(['\n\n\ndata: a\n\n\n\n'])).toHaveLength(1);
  });
});

describe('encodeSse', () => {
  it('round-trips through the decoder, multi-line data included', () => {
    const msgs = [{ event: 'message_start', data: '{"a":1}' }, { data: 'x\ny' }];
    expect(decodeChunks(msgs.map(encodeSse)).map(({ event, data }) => ({ event, data }))).toEqual([
      { event: 'message_start', data: '{"a":1}' },
      { event: undefined, data: 'x\ny' },
    ]);
  });
  it('rejects a line break in an event name', () => {
    expect(() => encodeSse({ event: 'a\nb', data: '' })).toThrow();
  });
});
