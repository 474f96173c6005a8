import { describe, expect, it } from 'vitest';
import { anthropicPassThrough } from '../../../../src/formats/anthropic-messages/pass-through.js';
import { decodeAnthropicStream } from '../../../../src/formats/anthropic-messages/stream-decode.js';
import { usageFromAnthropic, usageToAnthropic } from '../../../../src/formats/anthropic-messages/usage.js';
import type { SseMessage } from '../../../../src/sse/decode.js';
import { collect, fromArray } from './load-sse.js';

const msg = (event: string, data: object): SseMessage => ({ event, data: JSON.stringify({ type: event, ...data }) });

describe('server tool usage', () => {
  it('a response’s server_tool_use counters become canonical serverToolUse (zero counters left out)', () => {
    expect(
      usageFromAnthropic({
        input_tokens: 10,
        output_tokens: 5,
        server_tool_use: { web_search_requests: 2, web_fetch_requests: 0 },
      }),
    ).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      serverToolUse: { webSearchRequests: 2 },
    });
    expect(
      usageFromAnthropic({ input_tokens: 1, output_tokens: 1, server_tool_use: { web_search_requests: 0 } }),
    ).toEqual({ inputTokens: 1, outputTokens: 1 });
    expect(
      anthropicPassThrough.usageFromBody({
        usage: { input_tokens: 1, output_tokens: 1, server_tool_use: { web_fetch_requests: 3 } },
      }),
    ).toEqual({
      inputTokens: 1,
      outputTokens: 1,
      serverToolUse: { webFetchRequests: 3 },
    });
  });

  it('a stream’s message_delta counters reach the canonical message_stop usage', async () => {
    const events = await collect(
      decodeAnthropicStream(
        fromArray([
          msg('message_start', { message: { id: 'msg_1', model: 'm', usage: { input_tokens: 7, output_tokens: 1 } } }),
          msg('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
          msg('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'hi' } }),
          msg('content_block_stop', { index: 0 }),
          msg('message_delta', {
            delta: { stop_reason: 'end_turn' },
            usage: { output_tokens: 4, server_tool_use: { web_search_requests: 1, web_fetch_requests: 2 } },
          }),
          msg('message_stop', {}),
        ]),
      ),
    );
    expect(events.at(-1)).toMatchObject({
      type: 'message_stop',
      usage: { inputTokens: 7, outputTokens: 4, serverToolUse: { webSearchRequests: 1, webFetchRequests: 2 } },
    });
  });

  it('the pass-through stream watch reads them too', () => {
    const watch = anthropicPassThrough.watchStream({} as never);
    watch.see(
      msg('message_start', { message: { id: 'msg_1', model: 'm', usage: { input_tokens: 7, output_tokens: 1 } } }),
    );
    watch.see(
      msg('message_delta', {
        delta: { stop_reason: 'end_turn' },
        usage: { output_tokens: 4, server_tool_use: { web_search_requests: 3 } },
      }),
    );
    expect(watch.usage).toEqual({ inputTokens: 7, outputTokens: 4, serverToolUse: { webSearchRequests: 3 } });
  });

  it('are written back for Anthropic callers only when some ran', () => {
    expect(usageToAnthropic({ inputTokens: 1, outputTokens: 2 })).not.toHaveProperty('server_tool_use');
    expect(
      usageToAnthropic({ inputTokens: 1, outputTokens: 2, serverToolUse: { webSearchRequests: 2 } }).server_tool_use,
    ).toEqual({ web_search_requests: 2, web_fetch_requests: 0 });
  });
});
