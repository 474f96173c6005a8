import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/core/errors.js';
import { foldStream } from '../../../../src/core/fold-stream.js';
import { decodeAnthropicStream } from '../../../../src/formats/anthropic-messages/stream-decode.js';
import type { SseMessage } from '../../../../src/sse/decode.js';
import { collect, FIXTURES, fromArray, goldenEvents, sseFixture } from './load-sse.js';

const decode = (name: string, chunkSize?: number) => collect(decodeAnthropicStream(sseFixture(name, chunkSize)));
const msg = (event: string, data: unknown): SseMessage => ({
  event,
  data: JSON.stringify({ type: event, ...(data as object) }),
});

describe('decodeAnthropicStream', () => {
  it.each(['thinking-text-tool', 'overloaded-mid-stream', 'stop-sequence-cache-write'])(
    '%s.sse → golden events',
    async (name) => {
      await expect(goldenEvents(await decode(name))).toMatchFileSnapshot(`${FIXTURES}golden/${name}.events.jsonl`);
    },
  );

  it('thinking + text + tool_use fold into the message Anthropic would have returned', async () => {
    const events = await decode('thinking-text-tool', 5);
    expect(events[0]).toMatchObject({
      type: 'message_start',
      id: 'msg_01Xq7bVZ4pFYc3hG9sKm2wTa',
      model: 'claude-sonnet-4-5-20250929',
      usage: { inputTokens: 472, outputTokens: 3, cacheReadTokens: 1536, cacheWriteTokens: 0 },
    });
    const res = await foldStream(fromArray(events));
    expect(res.content).toEqual([
      {
        type: 'reasoning',
        text: 'The user wants the weather in Paris. I should call get_weather.',
        signature: 'EqQBCkgIARABGAIiQHd2b3JrZXJzLXNpZ25hdHVyZQ==',
      },
      { type: 'text', text: 'Let me check the weather in Paris — one moment.' },
      {
        type: 'tool_call',
        id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        name: 'get_weather',
        arguments: '{"location": "Paris, FR", "unit": "celsius"}',
      },
    ]);
    expect(res.finish).toBe('tool_calls');
    expect(res.usage).toEqual({ inputTokens: 472, outputTokens: 89, cacheReadTokens: 1536 });
  });

  it('merges message_delta usage over message_start (output from the delta, input/cache kept)', async () => {
    const events = await decode('stop-sequence-cache-write');
    expect(events.at(-1)).toEqual({
      type: 'message_stop',
      finish: 'stop',
      stopSequence: ', 4',
      usage: { inputTokens: 9, outputTokens: 8, cacheWriteTokens: 2048 },
    });
  });

  it('an in-stream error becomes a canonical error with the documented status', async () => {
    const events = await decode('overloaded-mid-stream');
    const last = events.at(-1)!;
    expect(last.type).toBe('error');
    const err = (last as { error: GatewayError }).error;
    expect(err).toBeInstanceOf(GatewayError);
    expect([err.code, err.status, err.kind, err.retryable]).toEqual(['upstream_error', 529, 'overloaded', true]);
    const status = async (type: string) => {
      const [ev] = await collect(decodeAnthropicStream(fromArray([msg('error', { error: { type, message: 'x' } })])));
      return ev.type === 'error' ? [ev.error.status, ev.error.kind] : undefined;
    };
    expect(await status('rate_limit_error')).toEqual([429, 'rate_limit']);
    expect(await status('api_error')).toEqual([500, 'upstream']);
    expect(await status('invalid_request_error')).toEqual([400, 'invalid_request']);
    expect(await status('timeout_error')).toEqual([504, 'timeout']);
    expect(await status('authentication_error')).toEqual([502, 'upstream']);
    expect(await status('something_new')).toEqual([500, 'upstream']);
  });

  it('throws when the stream ends without message_stop', async () => {
    const start = msg('message_start', {
      message: { id: 'msg_1', model: 'm', usage: { input_tokens: 1, output_tokens: 1 } },
    });
    const it = decodeAnthropicStream(
      fromArray([start, msg('content_block_start', { index: 0, content_block: { type: 'text', text: '' } })]),
    );
    await expect(collect(it)).rejects.toMatchObject({ code: 'upstream_unavailable' });
  });

  it('skips pings, unknown events and blocks with no canonical form', async () => {
    const events = await collect(
      decodeAnthropicStream(
        fromArray([
          msg('message_start', { message: { id: 'msg_1', model: 'm', usage: { input_tokens: 3, output_tokens: 1 } } }),
          { event: 'ping', data: '' },
          msg('content_block_start', { index: 0, content_block: { type: 'redacted_thinking', data: 'abc' } }),
          msg('content_block_stop', { index: 0 }),
          msg('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
          msg('content_block_delta', { index: 1, delta: { type: 'citations_delta', citation: {} } }),
          msg('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'ok' } }),
          msg('content_block_stop', { index: 1 }),
          msg('some_future_event', {}),
          msg('message_delta', {
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: 2 },
          }),
          msg('message_stop', {}),
        ]),
      ),
    );
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'block_start',
      'block_delta',
      'block_stop',
      'message_stop',
    ]);
    expect(events.at(-1)).toEqual({ type: 'message_stop', finish: 'stop', usage: { inputTokens: 3, outputTokens: 2 } });
  });

  it('rejects data that is not JSON', async () => {
    await expect(
      collect(decodeAnthropicStream(fromArray([{ event: 'message_start', data: '{nope' }]))),
    ).rejects.toMatchObject({ code: 'upstream_error' });
  });
});
