import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { foldStream } from '../../../../src/core/fold-stream.js';
import { decodeOpenaiStream } from '../../../../src/formats/openai-chat/stream-decode.js';
import { OpenaiStreamEncoder } from '../../../../src/formats/openai-chat/stream-encode.js';
import { encodeEvents } from '../../../helpers/encode-events.js';
import { SseDecoder } from '../../../../src/sse/decode.js';
import { chunksFixture, collect, fromArray } from './load-chunks.js';

/** What an Anthropic upstream produces: thinking with a signature, two text blocks, two tool calls. */
const anthropicLike: StreamEvent[] = [
  { type: 'message_start', id: 'msg_01', model: 'claude-sonnet-4-5', created: 1736272000, usage: { inputTokens: 10 } },
  { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
  { type: 'block_delta', index: 0, delta: { kind: 'reasoning', text: 'Need both tools.' } },
  { type: 'block_delta', index: 0, delta: { kind: 'signature', signature: 'EqQBCgIYAhIM' } },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { kind: 'text' } },
  { type: 'block_delta', index: 1, delta: { kind: 'text', text: 'Checking ' } },
  { type: 'block_stop', index: 1 },
  { type: 'block_start', index: 2, block: { kind: 'text' } },
  { type: 'block_delta', index: 2, delta: { kind: 'text', text: 'now.' } },
  { type: 'block_stop', index: 2 },
  { type: 'block_start', index: 3, block: { kind: 'tool_call', id: 'toolu_A', name: 'get_weather' } },
  { type: 'block_delta', index: 3, delta: { kind: 'tool_arguments', json: '' } },
  { type: 'block_delta', index: 3, delta: { kind: 'tool_arguments', json: '{"city":' } },
  { type: 'block_delta', index: 3, delta: { kind: 'tool_arguments', json: '"Paris"}' } },
  { type: 'block_stop', index: 3 },
  { type: 'block_start', index: 4, block: { kind: 'tool_call', id: 'toolu_B', name: 'get_time' } },
  { type: 'block_delta', index: 4, delta: { kind: 'tool_arguments', json: '{}' } },
  { type: 'block_stop', index: 4 },
  {
    type: 'message_stop',
    finish: 'tool_calls',
    stopSequence: undefined,
    usage: { inputTokens: 10, outputTokens: 20, cacheReadTokens: 5 },
  },
];

async function encode(events: StreamEvent[], includeUsage: boolean): Promise<string> {
  return (await collect(encodeEvents(new OpenaiStreamEncoder({ includeUsage }), events))).join('');
}

function parse(sse: string): Array<Record<string, any>> {
  const d = new SseDecoder();
  return [...d.push(sse), ...d.end()].map((m) => (m.data === '[DONE]' ? { done: true } : JSON.parse(m.data)));
}

/** The official SDK's strict stream helper, fed our SSE text instead of a network response. */
function sdkFinal(sse: string) {
  const client = new OpenAI({
    apiKey: 'test',
    baseURL: 'http://gateway.test/v1',
    maxRetries: 0,
    fetch: async () => new Response(sse, { headers: { 'content-type': 'text/event-stream' } }),
  });
  return client.chat.completions
    .stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } })
    .finalChatCompletion();
}

describe('OpenaiStreamEncoder', () => {
  it('turns Anthropic-shaped events into valid chunks', async () => {
    const chunks = parse(await encode(anthropicLike, true));
    expect(chunks.at(-1)).toEqual({ done: true });
    const body = chunks.slice(0, -1);
    expect(new Set(body.map((c) => `${c.id}|${c.created}|${c.model}|${c.object}`))).toEqual(
      new Set(['msg_01|1736272000|claude-sonnet-4-5|chat.completion.chunk']),
    );
    expect(body[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });

    const deltas = body.flatMap((c) => c.choices.map((ch: any) => ch.delta));
    expect(deltas.map((d) => d.content ?? '').join('')).toBe('Checking now.');
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe('Need both tools.');
    expect(JSON.stringify(deltas)).not.toContain('EqQBCgIYAhIM');
    const toolFrags = deltas.flatMap((d) => d.tool_calls ?? []);
    expect(toolFrags.filter((t) => t.id)).toEqual([
      { index: 0, id: 'toolu_A', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 1, id: 'toolu_B', type: 'function', function: { name: 'get_time', arguments: '' } },
    ]);
    // Empty argument deltas are not sent.
    expect(toolFrags.filter((t) => !t.id).map((t) => [t.index, t.function.arguments])).toEqual([
      [0, '{"city":'],
      [0, '"Paris"}'],
      [1, '{}'],
    ]);

    const finishes = body.flatMap((c) => c.choices.map((ch: any) => ch.finish_reason));
    expect(finishes.filter((f) => f !== null)).toEqual(['tool_calls']);
    const usageChunk = body.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toEqual({
      prompt_tokens: 15,
      completion_tokens: 20,
      total_tokens: 35,
      prompt_tokens_details: { cached_tokens: 5 },
    });
  });

  it('no usage chunk unless the caller asked for it', async () => {
    const chunks = parse(await encode(anthropicLike, false));
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.some((c) => 'usage' in c)).toBe(false);
  });

  it('an error event becomes an in-stream error and ends the stream', async () => {
    const err = new GatewayError('upstream_error', 'The upstream reported an error mid-stream: overloaded', {
      status: 503,
      kind: 'overloaded',
    });
    const chunks = parse(
      await encode(
        [anthropicLike[0], anthropicLike[5], anthropicLike[6], { type: 'error', error: err }, anthropicLike.at(-1)!],
        true,
      ),
    );
    expect(chunks.at(-1)).toEqual({
      error: { message: err.message, type: 'overloaded_error', param: null, code: 'upstream_error' },
    });
    expect(chunks.some((c) => c.done)).toBe(false);
  });

  it('the official SDK accepts the output', async () => {
    const completion = await sdkFinal(await encode(anthropicLike, true));
    expect(completion.choices[0].message.content).toBe('Checking now.');
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(
      completion.choices[0].message.tool_calls?.map(
        (t) => t.type === 'function' && [t.id, t.function.name, t.function.arguments],
      ),
    ).toEqual([
      ['toolu_A', 'get_weather', '{"city":"Paris"}'],
      ['toolu_B', 'get_time', '{}'],
    ]);
    expect(completion.usage?.prompt_tokens).toBe(15);
  });

  it('the official SDK raises an APIError for an in-stream error', async () => {
    const err = new GatewayError('upstream_error', 'mid-stream failure', { status: 502 });
    const sse = await encode(
      [anthropicLike[0], anthropicLike[5], anthropicLike[6], { type: 'error', error: err }],
      true,
    );
    await expect(sdkFinal(sse)).rejects.toBeInstanceOf(OpenAI.APIError);
  });
});

describe('decodeOpenaiStream → OpenaiStreamEncoder', () => {
  it.each(['text', 'parallel-tools', 'reasoning'])(
    '%s: reproduces text, reasoning, tool calls, finish and usage',
    async (name) => {
      const decoded = await collect(decodeOpenaiStream(chunksFixture(name)));
      const sse = await encode(decoded, true);
      const again = await collect(
        decodeOpenaiStream(fromArray(parse(sse).map((c) => ({ data: c.done ? '[DONE]' : JSON.stringify(c) })))),
      );
      expect(await foldStream(fromArray(again))).toEqual(await foldStream(fromArray(decoded)));
      const sdk = await sdkFinal(sse);
      expect(sdk.choices[0].finish_reason).toBe((await foldStream(fromArray(decoded))).finish);
    },
  );

  it('interleaved parallel tool-call fragments come out with their own tool index', async () => {
    const sse = await encode(await collect(decodeOpenaiStream(chunksFixture('parallel-tools'))), true);
    const completion = await sdkFinal(sse);
    expect(completion.choices[0].message.tool_calls?.map((t) => t.type === 'function' && t.function.arguments)).toEqual(
      ['{"city": "Paris"}', '{"tz": "Europe/Paris"}'],
    );
  });
});
