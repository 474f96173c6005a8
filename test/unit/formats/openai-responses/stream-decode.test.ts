import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../../src/core/canonical.js';
import { foldStream } from '../../../../src/core/fold-stream.js';
import { decodeResponsesStream } from '../../../../src/formats/openai-responses/stream-decode.js';
import type { SseMessage } from '../../../../src/sse/decode.js';
import { collect, FIXTURES, fromArray, goldenEvents, sseFixture } from './load-sse.js';

const decode = (name: string) => collect(decodeResponsesStream(sseFixture(name)));
const events = (...data: Array<Record<string, unknown>>): AsyncGenerator<SseMessage> =>
  fromArray(data.map((d) => ({ event: String(d.type), data: JSON.stringify(d) })));
const created = { type: 'response.created', response: { id: 'resp_1', model: 'm', created_at: 7 } };
const completed = (usage: unknown = null) => ({ type: 'response.completed', response: { status: 'completed', usage } });

describe('decodeResponsesStream', () => {
  it.each(['text', 'function-calls', 'reasoning', 'custom-tool', 'incomplete', 'failed', 'error'])(
    '%s.sse → golden events',
    async (name) => {
      await expect(goldenEvents(await decode(name))).toMatchFileSnapshot(`${FIXTURES}golden/${name}.events.jsonl`);
    },
  );

  it('text: message_start from response.created, one text block, usage without the cached tokens', async () => {
    const evs = await decode('text');
    expect(evs[0]).toEqual({
      type: 'message_start',
      id: 'resp_68af0c1e5a3c8190a1b2c3d4e5f60718',
      model: 'gpt-4.1-mini-2025-04-14',
      created: 1756300000,
    });
    expect(evs.map((e) => e.type)).toEqual([
      'message_start',
      'block_start',
      'block_delta',
      'block_delta',
      'block_delta',
      'block_delta',
      'block_stop',
      'message_stop',
    ]);
    expect(evs.at(-1)).toEqual({
      type: 'message_stop',
      finish: 'stop',
      usage: { inputTokens: 288, outputTokens: 11, cacheReadTokens: 1024 },
    });
  });

  it('function calls: one block per call, finish tool_calls', async () => {
    const res = await foldStream(fromArray(await decode('function-calls')));
    expect(res.content).toEqual([
      { type: 'tool_call', id: 'call_Wq1pLx0TzV8mNb3r', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'tool_call', id: 'call_Zr8mNb3Kd2Yx7Qw1', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
    ]);
    expect(res.finish).toBe('tool_calls');
    expect(res.usage).toEqual({ inputTokens: 206, outputTokens: 48 });
  });

  it('reasoning: the summary parts as paragraphs of one block, reasoning tokens in usage', async () => {
    const res = await foldStream(fromArray(await decode('reasoning')));
    expect(res.content).toEqual([
      {
        type: 'reasoning',
        text: '**Comparing decimals**\n\n9.11 vs 9.8: compare tenths.\n\n**Answer**\n\n9.8 = 9.80 > 9.11.',
      },
      { type: 'text', text: '9.8 is larger.' },
    ]);
    expect(res.usage).toEqual({ inputTokens: 15, outputTokens: 148, reasoningTokens: 128 });
  });

  it('custom tool: the input streams as the JSON arguments {"input": …}', async () => {
    const evs = await decode('custom-tool');
    const res = await foldStream(fromArray(evs));
    const input = '*** Begin Patch\n*** Update File: a.py\n@@\n-print("hi")\n+print("hello")\n*** End Patch';
    expect(res.content).toEqual([
      { type: 'reasoning', text: '' },
      { type: 'tool_call', id: 'call_Pa7chX1y2z3', name: 'apply_patch', arguments: JSON.stringify({ input }) },
    ]);
    expect(res.finish).toBe('tool_calls');
    expect(res.usage).toEqual({ inputTokens: 128, outputTokens: 96, cacheReadTokens: 1920, reasoningTokens: 64 });
  });

  it('incomplete at max_output_tokens → length', async () => {
    const res = await foldStream(fromArray(await decode('incomplete')));
    expect(res.content).toEqual([{ type: 'text', text: 'Once upon a time, in a land far away, there' }]);
    expect(res.finish).toBe('length');
  });

  it('response.failed → an error event with the upstream message, then nothing', async () => {
    const evs = await decode('failed');
    expect(evs.map((e) => e.type)).toEqual(['message_start', 'error']);
    expect(evs[1]).toMatchObject({ error: { code: 'upstream_error', status: 500, kind: 'upstream' } });
    expect((evs[1] as Extract<StreamEvent, { type: 'error' }>).error.message).toBe(
      'The upstream response failed (server_error): The server had an error while processing your request. ' +
        'Sorry about that!',
    );
  });

  it('an error event (nested error object) → a catalogue error with the status of its type', async () => {
    const evs = await decode('error');
    expect(evs.at(-1)).toMatchObject({ type: 'error', error: { code: 'upstream_error', status: 429 } });
    expect(evs.some((e) => e.type === 'message_stop')).toBe(false);
  });

  it('an error event with the documented flat members', async () => {
    const [ev] = await collect(
      decodeResponsesStream(events({ type: 'error', code: 'server_error', message: 'boom', param: null })),
    );
    expect(ev).toMatchObject({ type: 'error', error: { status: 500, message: expect.stringContaining('boom') } });
  });

  it('a refusal is text that finishes with content_filter', async () => {
    const evs = await collect(
      decodeResponsesStream(
        events(
          created,
          { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: 'msg_1' } },
          { type: 'response.content_part.added', output_index: 0, content_index: 0, part: { type: 'refusal' } },
          { type: 'response.refusal.delta', output_index: 0, content_index: 0, delta: "I can't help." },
          { type: 'response.content_part.done', output_index: 0, content_index: 0, part: { type: 'refusal' } },
          completed(),
        ),
      ),
    );
    const res = await foldStream(fromArray(evs));
    expect(res.content).toEqual([{ type: 'text', text: "I can't help." }]);
    expect(res.finish).toBe('content_filter');
  });

  it('an item that arrives whole at output_item.done is emitted from there; an empty block is filled', async () => {
    const evs = await collect(
      decodeResponsesStream(
        events(
          created,
          {
            type: 'response.output_item.done',
            output_index: 0,
            item: { type: 'message', content: [{ type: 'output_text', text: 'all at once' }] },
          },
          {
            type: 'response.output_item.added',
            output_index: 1,
            item: { type: 'function_call', call_id: 'c', name: 'f', arguments: '' },
          },
          {
            type: 'response.output_item.done',
            output_index: 1,
            item: { type: 'function_call', call_id: 'c', name: 'f', arguments: '{"a":1}' },
          },
          completed(),
        ),
      ),
    );
    expect(evs.slice(1, -1)).toEqual([
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'all at once' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'tool_call', id: 'c', name: 'f' } },
      { type: 'block_delta', index: 1, delta: { kind: 'tool_arguments', json: '{"a":1}' } },
      { type: 'block_stop', index: 1 },
    ]);
    expect(evs.at(-1)).toEqual({
      type: 'message_stop',
      finish: 'tool_calls',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
  });

  it('skips documented events that change nothing, and event types added later', async () => {
    const evs = await collect(
      decodeResponsesStream(
        events(
          created,
          { type: 'response.in_progress', response: {} },
          { type: 'response.output_text.annotation.added', output_index: 0 },
          { type: 'response.web_search_call.searching', output_index: 0 },
          { type: 'response.something_new' },
          completed(),
        ),
      ),
    );
    expect(evs.map((e) => e.type)).toEqual(['message_start', 'message_stop']);
  });

  it('a malformed event and a stream cut before its end are errors', async () => {
    await expect(collect(decodeResponsesStream(fromArray([{ data: '{not json' }])))).rejects.toMatchObject({
      code: 'upstream_error',
    });
    await expect(collect(decodeResponsesStream(fromArray([{ data: '[1]' }])))).rejects.toMatchObject({
      code: 'upstream_error',
    });
    await expect(collect(decodeResponsesStream(events(created)))).rejects.toMatchObject({
      code: 'upstream_unavailable',
      message: 'The upstream stream ended early (no response.completed).',
    });
  });
});
