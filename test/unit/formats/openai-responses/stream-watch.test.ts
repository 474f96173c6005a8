import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/core/errors.js';
import { ResponsesStreamWatch } from '../../../../src/formats/openai-responses/stream-watch.js';
import type { SseMessage } from '../../../../src/sse/decode.js';
import { collect, sseFixture } from './load-sse.js';

async function watchFixture(name: string) {
  const watch = new ResponsesStreamWatch();
  const seen: Array<ReturnType<ResponsesStreamWatch['see']>> = [];
  let error: unknown;
  for (const msg of await collect(sseFixture(name))) {
    try {
      seen.push(watch.see(msg));
    } catch (e) {
      error = e;
      break;
    }
  }
  return { watch, seen, error };
}

const ev = (data: Record<string, unknown>): SseMessage => ({ event: String(data.type), data: JSON.stringify(data) });

describe('ResponsesStreamWatch', () => {
  it('a complete stream: complete at response.completed, usage from its response, nothing dropped', async () => {
    const { watch, seen, error } = await watchFixture('text');
    expect(error).toBeUndefined();
    expect(seen.every((s) => s === undefined)).toBe(true);
    expect(watch.complete).toBe(true);
    expect(watch.usage).toEqual({ inputTokens: 288, outputTokens: 11, cacheReadTokens: 1024 });
    expect(watch.output).toEqual(['Hello', '!', ' How can I', ' help you today?']);
    expect(watch.nextSequenceNumber).toBe(seen.length);
  });

  it('collects every kind of generated text: reasoning, function names and arguments, custom input', async () => {
    expect((await watchFixture('reasoning')).watch.output.join('')).toBe(
      '**Comparing decimals**\n\n9.11 vs 9.8: compare tenths.**Answer**\n\n9.8 = 9.80 > 9.11.9.8 is larger.',
    );
    expect((await watchFixture('function-calls')).watch.output).toEqual([
      'get_weather',
      '{"',
      'city',
      '":"',
      'Paris',
      '"}',
      'get_time',
      '{"tz":',
      '"Europe/',
      'Paris"}',
    ]);
    const custom = (await watchFixture('custom-tool')).watch;
    expect(custom.output.join('')).toBe(
      'apply_patch*** Begin Patch\n*** Update File: a.py\n@@\n-print("hi")\n+print("hello")\n*** End Patch',
    );
    expect(custom.usage).toEqual({ inputTokens: 128, outputTokens: 96, cacheReadTokens: 1920, reasoningTokens: 64 });
  });

  it('response.incomplete completes the stream too', async () => {
    const { watch } = await watchFixture('incomplete');
    expect(watch.complete).toBe(true);
    expect(watch.usage).toEqual({ inputTokens: 12, outputTokens: 16 });
  });

  it('response.failed and error events throw the catalogue error; the stream is not complete', async () => {
    const failed = await watchFixture('failed');
    expect(failed.error).toBeInstanceOf(GatewayError);
    expect(failed.error).toMatchObject({ code: 'upstream_error', status: 500 });
    expect(failed.watch.complete).toBe(false);
    const error = await watchFixture('error');
    expect(error.error).toMatchObject({ code: 'upstream_error', status: 429 });
    expect(error.watch.output).toEqual(['Partial']);
    // The error event is the gateway's to re-render: numbered after the events passed on before it.
    expect(error.watch.nextSequenceNumber).toBe(error.seen.length);
  });

  it('data that is not a JSON object is an upstream_error; an empty data line is nothing', () => {
    const watch = new ResponsesStreamWatch();
    expect(watch.see({ data: '' })).toBeUndefined();
    expect(() => watch.see({ data: '{oops' })).toThrow('The upstream sent a stream event that is not JSON.');
    expect(() => watch.see({ data: '"x"' })).toThrow('The upstream sent a stream event that is not a JSON object.');
  });

  it('the event name stands in for a missing type', () => {
    const watch = new ResponsesStreamWatch();
    watch.see({
      event: 'response.completed',
      data: JSON.stringify({ response: { usage: { input_tokens: 3, output_tokens: 1 } } }),
    });
    expect(watch.complete).toBe(true);
    expect(watch.usage).toEqual({ inputTokens: 3, outputTokens: 1 });
    expect(() => watch.see({ event: 'error', data: JSON.stringify({ message: 'm', code: 'server_error' }) })).toThrow(
      GatewayError,
    );
    expect(watch.see(ev({ type: 'response.something_new' }))).toBeUndefined();
  });
});
