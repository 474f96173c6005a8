import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { foldStream } from '../../../../src/core/fold-stream.js';
import { decodeOpenaiStream } from '../../../../src/formats/openai-chat/stream-decode.js';
import type { SseMessage } from '../../../../src/sse/decode.js';
import { chunksFixture, collect, FIXTURES, fromArray, goldenText } from './load-chunks.js';

const decode = (name: string) => collect(decodeOpenaiStream(chunksFixture(name)));
const sse = (chunks: unknown[]): AsyncGenerator<SseMessage> =>
  fromArray(chunks.map((c) => ({ data: typeof c === 'string' ? c : JSON.stringify(c) })));
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'c',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

describe('decodeOpenaiStream', () => {
  it.each(['text', 'parallel-tools', 'reasoning', 'error'])('%s.chunks.txt → golden events', async (name) => {
    await expect(goldenText(await decode(name))).toMatchFileSnapshot(`${FIXTURES}golden/${name}.events.jsonl`);
  });

  it('text: one text block, finish and usage on message_stop', async () => {
    const events = await decode('text');
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'block_start',
      'block_delta',
      'block_delta',
      'block_delta',
      'block_delta',
      'block_stop',
      'message_stop',
    ]);
    expect(events[0]).toEqual({
      type: 'message_start',
      id: 'chatcmpl-AnTxt01',
      model: 'gpt-4o-mini-2024-07-18',
      created: 1736272000,
    });
    expect(events.at(-1)).toEqual({
      type: 'message_stop',
      finish: 'stop',
      usage: { inputTokens: 19, outputTokens: 9 },
    });
  });

  it(
    'parallel tools: interleaved fragments keep their canonical index; ' + 'cached tokens become cacheReadTokens',
    async () => {
      const events = await decode('parallel-tools');
      const res = await foldStream(fromArray(events));
      expect(res.content).toEqual([
        { type: 'tool_call', id: 'call_Wq1pLx0', name: 'get_weather', arguments: '{"city": "Paris"}' },
        { type: 'tool_call', id: 'call_Zr8mNb3', name: 'get_time', arguments: '{"tz": "Europe/Paris"}' },
      ]);
      expect(res.finish).toBe('tool_calls');
      expect(res.usage).toEqual({ inputTokens: 206, outputTokens: 48, cacheReadTokens: 1024 });
      // Both blocks stay open until the end, then close in order before message_stop.
      expect(events.slice(-3)).toMatchObject([
        { type: 'block_stop', index: 0 },
        { type: 'block_stop', index: 1 },
        { type: 'message_stop' },
      ]);
    },
  );

  it('reasoning: a reasoning block, closed before the text block starts', async () => {
    const events = await decode('reasoning');
    expect(events.filter((e) => e.type === 'block_start' || e.type === 'block_stop')).toEqual([
      { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'text' } },
      { type: 'block_stop', index: 1 },
    ]);
    const res = await foldStream(fromArray(events));
    expect(res.content).toEqual([
      { type: 'reasoning', text: 'The user asks 9.11 vs 9.8. 9.8 = 9.80 > 9.11.' },
      { type: 'text', text: '9.8 is larger.' },
    ]);
    expect(res.usage).toEqual({ inputTokens: 15, outputTokens: 40 });
  });

  it('in-stream error: an error event with the upstream status, then nothing', async () => {
    const events = await decode('error');
    const last = events.at(-1) as Extract<StreamEvent, { type: 'error' }>;
    expect(last.type).toBe('error');
    expect(last.error).toBeInstanceOf(GatewayError);
    expect(last.error).toMatchObject({ code: 'upstream_error', status: 429, kind: 'rate_limit' });
    expect(last.error.message).toContain('Rate limit reached');
    expect(events.some((e) => e.type === 'message_stop')).toBe(false);
  });

  it('in-stream error without a known type or code → 502; a numeric code is the status', async () => {
    const [a] = await collect(decodeOpenaiStream(sse([{ error: { message: 'boom' } }])));
    expect(a).toMatchObject({ type: 'error', error: { status: 502, kind: 'upstream' } });
    const [b] = await collect(decodeOpenaiStream(sse([{ error: { message: 'overloaded', code: 503 } }])));
    expect(b).toMatchObject({ type: 'error', error: { status: 503, kind: 'overloaded' } });
  });

  it('a stream cut before finish_reason and [DONE] throws upstream_unavailable', async () => {
    await expect(decode('truncated')).rejects.toMatchObject({
      code: 'upstream_unavailable',
      message: 'The upstream stream ended early.',
    });
  });

  it('finish_reason without [DONE] still completes (zero usage when none came)', async () => {
    const events = await collect(decodeOpenaiStream(sse([chunk({ content: 'hi' }), chunk({}, 'length')])));
    expect(events.at(-1)).toEqual({
      type: 'message_stop',
      finish: 'length',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
  });

  it('text after a tool call opens a new text block; a refusal finishes with content_filter', async () => {
    const events = await collect(
      decodeOpenaiStream(
        sse([
          chunk({ content: 'a' }),
          chunk({ tool_calls: [{ index: 0, id: 't', function: { name: 'f', arguments: '{}' } }] }),
          chunk({ content: 'b' }),
          chunk({ refusal: 'no' }),
          chunk({}, 'stop'),
          '[DONE]',
        ]),
      ),
    );
    expect(events.filter((e) => e.type === 'block_start').map((e) => e.index)).toEqual([0, 1, 2]);
    expect(events.filter((e) => e.type === 'block_stop').map((e) => e.index)).toEqual([0, 1, 2]);
    expect(events.at(-1)).toMatchObject({ finish: 'content_filter' });
    const res = await foldStream(fromArray(events));
    expect(res.content).toEqual([
      { type: 'text', text: 'a' },
      { type: 'tool_call', id: 't', name: 'f', arguments: '{}' },
      { type: 'text', text: 'bno' },
    ]);
  });

  it('malformed JSON is an upstream_error', async () => {
    await expect(collect(decodeOpenaiStream(sse(['{not json'])))).rejects.toMatchObject({ code: 'upstream_error' });
  });
});
