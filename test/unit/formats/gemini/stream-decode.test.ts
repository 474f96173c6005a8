import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { decodeGeminiStream } from '../../../../src/formats/gemini/stream-decode.js';
import { signatureFromToolCallId } from '../../../../src/formats/gemini-tool-ids.js';
import type { SseMessage } from '../../../../src/sse/decode.js';
import { collect, sseFixture } from './load-sse.js';

const decode = (name: string, chunkSize?: number) => collect(decodeGeminiStream(sseFixture(name, chunkSize)));
const SIGNATURE = 'CiQBcsjafDxu2nS+0tk1Yx8Vq9Ya3cM6Xq8Zc1hB0YzE9Jw=';

async function* messages(...chunks: unknown[]): AsyncGenerator<SseMessage> {
  for (const c of chunks) yield { data: JSON.stringify(c) };
}

describe('decodeGeminiStream', () => {
  it('thought, text, a signed call → reasoning, text, a tool call; usage from the last chunk', async () => {
    const events = (await decode('thought-text-tool', 7)).map((e) =>
      e.type === 'message_start' ? { ...e, created: 0 } : e,
    );
    const call = events.find((e) => e.type === 'block_start' && e.block.kind === 'tool_call') as Extract<
      StreamEvent,
      { type: 'block_start' }
    >;
    const id = (call.block as { id: string }).id;
    expect(signatureFromToolCallId(id)).toBe(SIGNATURE);
    expect(events).toEqual([
      { type: 'message_start', id: 'Xk0maZ3qLcWvz7IPpsTLqA4', model: 'gemini-2.5-flash', created: 0 },
      { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
      {
        type: 'block_delta',
        index: 0,
        delta: { kind: 'reasoning', text: '**Checking the weather**\n\nThe user wants Paris weather.' },
      },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'text' } },
      { type: 'block_delta', index: 1, delta: { kind: 'text', text: 'Let me look that up.' } },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { kind: 'tool_call', id, name: 'get_weather' } },
      { type: 'block_delta', index: 2, delta: { kind: 'tool_arguments', json: '{"city":"Paris"}' } },
      { type: 'block_stop', index: 2 },
      {
        type: 'message_stop',
        finish: 'tool_calls',
        usage: { inputTokens: 29, outputTokens: 119, cacheReadTokens: 32, reasoningTokens: 97 },
      },
    ]);
  });

  it('consecutive text chunks extend one block; MAX_TOKENS is length', async () => {
    const events = await decode('text-max-tokens', 3);
    expect(events.slice(1)).toEqual([
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'Once upon' } },
      { type: 'block_delta', index: 0, delta: { kind: 'text', text: ' a time' } },
      { type: 'block_stop', index: 0 },
      { type: 'message_stop', finish: 'length', usage: { inputTokens: 8, outputTokens: 4 } },
    ]);
  });

  it('an error chunk ends the stream with an error event carrying its status', async () => {
    const events = await decode('unavailable-mid-stream');
    const last = events[events.length - 1] as Extract<StreamEvent, { type: 'error' }>;
    expect(events.map((e) => e.type)).toEqual(['message_start', 'block_start', 'block_delta', 'error']);
    expect(last.error.status).toBe(503);
    expect(last.error.message).toBe(
      'The upstream reported an error during the stream: ' +
        'The model is overloaded. Please try again later. (UNAVAILABLE)',
    );
  });

  it('a stream that ends without a finish reason is an early end', async () => {
    const it = decodeGeminiStream(messages({ candidates: [{ content: { parts: [{ text: 'Hi' }] } }] }));
    await expect(collect(it)).rejects.toThrow('The upstream stream ended early (no finish reason).');
  });

  it('a blocked prompt is refused before any event', async () => {
    const it = decodeGeminiStream(messages({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } }));
    const err = await collect(it).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).status).toBe(400);
    expect((err as GatewayError).message).toBe(
      "The Gemini model refused the prompt: it was blocked by Google's content filters (PROHIBITED_CONTENT).",
    );
  });

  it('SAFETY is content_filter; MALFORMED_FUNCTION_CALL ends with an error event', async () => {
    const safety = await collect(decodeGeminiStream(messages({ candidates: [{ finishReason: 'SAFETY' }] })));
    expect(safety[safety.length - 1]).toEqual({
      type: 'message_stop',
      finish: 'content_filter',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    const bad = await collect(
      decodeGeminiStream(messages({ candidates: [{ finishReason: 'MALFORMED_FUNCTION_CALL' }] })),
    );
    const last = bad[bad.length - 1] as Extract<StreamEvent, { type: 'error' }>;
    expect(last.type).toBe('error');
    expect(last.error.message).toBe('The Gemini model produced an invalid function call (MALFORMED_FUNCTION_CALL).');
  });

  it('data that is not a JSON object is a malformed stream', async () => {
    async function* bad(): AsyncGenerator<SseMessage> {
      yield { data: '[1]' };
    }
    await expect(collect(decodeGeminiStream(bad()))).rejects.toThrow('not a JSON object');
  });
});
