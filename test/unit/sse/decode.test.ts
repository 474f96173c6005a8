import { describe, expect, it } from 'vitest';
import { decodeSse, SseDecoder, type SseMessage } from '../../../src/sse/decode.js';
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

describe('decodeSse (an async byte stream)', () => {
  const source = (parts: string[], fail?: Error) => {
    const state = { closed: false, read: 0 };
    const iterable: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          if (state.read < parts.length) return { done: false, value: Buffer.from(parts[state.read++]) };
          if (fail) throw fail;
          return { done: true, value: undefined };
        },
        return: async () => {
          state.closed = true;
          return { done: true, value: undefined };
        },
      }),
    };
    return { iterable, state };
  };
  const all = async (it: AsyncIterable<SseMessage>) => {
    const out: string[] = [];
    for await (const m of it) out.push(`${m.event ?? ''}:${m.data}`);
    return out;
  };

  it('hands out every event of a read in order, across reads, and an unterminated last one', async () => {
    const { iterable } = source(['data: a\n\ndata: b\n\nevent: x\nda', 'ta: c\n', '\n', ': ping\n\n', 'data: d']);
    expect(await all(decodeSse(iterable))).toEqual([':a', ':b', 'x:c', ':d']);
  });
  it('stays done after the end', async () => {
    const it = decodeSse(source(['data: a\n\n']).iterable)[Symbol.asyncIterator]();
    expect((await it.next()).value?.data).toBe('a');
    expect(await it.next()).toEqual({ done: true, value: undefined });
    expect(await it.next()).toEqual({ done: true, value: undefined });
  });
  it('closes the source when the consumer stops early, and only then', async () => {
    const early = source(['data: a\n\ndata: b\n\n', 'data: c\n\n']);
    for await (const m of decodeSse(early.iterable)) if (m.data === 'a') break;
    expect(early.state).toEqual({ closed: true, read: 1 });
    const whole = source(['data: a\n\n']);
    await all(decodeSse(whole.iterable));
    expect(whole.state.closed).toBe(false);
  });
  it("passes on the source's failure after the events before it", async () => {
    const seen: string[] = [];
    const run = async () => {
      for await (const m of decodeSse(source(['data: a\n\n'], new Error('reset')).iterable)) seen.push(m.data);
    };
    await expect(run()).rejects.toThrow('reset');
    expect(seen).toEqual(['a']);
  });
});
