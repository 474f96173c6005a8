import { Stream } from '@anthropic-ai/sdk/core/streaming';
import { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream';
import { describe, expect, it } from 'vitest';
import type { ChatRequest, StreamEvent } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { decodeAnthropicStream } from '../../../../src/formats/anthropic-messages/stream-decode.js';
import { anthropicMessages } from '../../../../src/formats/anthropic-messages/index.js';
import { encodeEvents } from '../../../helpers/encode-events.js';
import { decodeOpenaiStream } from '../../../../src/formats/openai-chat/stream-decode.js';
import type { SseMessage } from '../../../../src/sse/decode.js';
import { assertAnthropicStreamOrder } from '../../../helpers/anthropic-order.js';
import { collect, FIXTURES, fromArray, parseSse, sseFixture } from './load-sse.js';

const req = { model: 'caller-model' } as ChatRequest;

/** The format's encoder as the render stage drives it. */
const encodeAnthropicStream = (events: Iterable<StreamEvent> | AsyncIterable<StreamEvent>, req: ChatRequest) =>
  encodeEvents(anthropicMessages.streamEncoder(req), events);

async function encode(events: StreamEvent[] | AsyncIterable<StreamEvent>): Promise<string> {
  return (await collect(encodeAnthropicStream(events, req))).join('');
}

/** The official SDK's own accumulation (what `client.messages.stream().finalMessage()` runs). */
function sdkFinalMessage(text: string) {
  const raw = Stream.fromSSEResponse(
    new Response(text, { headers: { 'content-type': 'text/event-stream' } }),
    new AbortController(),
  );
  return MessageStream.fromReadableStream(raw.toReadableStream()).finalMessage();
}

const start: StreamEvent = {
  type: 'message_start',
  id: 'chatcmpl-7',
  model: 'gpt-x',
  created: 1,
  usage: { inputTokens: 30 },
};
const usage = { inputTokens: 30, outputTokens: 20, cacheReadTokens: 64 };

/**
 * What an OpenAI upstream yields for text then two parallel tool calls whose fragments interleave; nothing closes until
 * the end.
 */
const interleaved: StreamEvent[] = [
  start,
  { type: 'block_start', index: 0, block: { kind: 'text' } },
  { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'Checking ' } },
  { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'both.' } },
  { type: 'block_start', index: 1, block: { kind: 'tool_call', id: 'call_a', name: 'get_weather' } },
  { type: 'block_delta', index: 1, delta: { kind: 'tool_arguments', json: '{"ci' } },
  { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 'call_b', name: 'get_time' } },
  { type: 'block_delta', index: 2, delta: { kind: 'tool_arguments', json: '{"tz":' } },
  { type: 'block_delta', index: 1, delta: { kind: 'tool_arguments', json: 'ty":"Paris"}' } },
  { type: 'block_delta', index: 2, delta: { kind: 'tool_arguments', json: '"CET"}' } },
  // A late text fragment for the text block that was closed early when the tools started.
  { type: 'block_delta', index: 0, delta: { kind: 'text', text: ' (late)' } },
  { type: 'block_stop', index: 0 },
  { type: 'block_stop', index: 1 },
  { type: 'block_stop', index: 2 },
  { type: 'message_stop', finish: 'tool_calls', usage },
];

describe('anthropicMessages.streamEncoder', () => {
  it('interleaved parallel tool calls come out one block at a time (golden)', async () => {
    const text = await encode(interleaved);
    await expect(text).toMatchFileSnapshot(`${FIXTURES}golden/encode-interleaved-tools.sse`);
    assertAnthropicStreamOrder(parseSse(text));
    const message = await sdkFinalMessage(text);
    expect(message).toMatchObject({
      id: 'msg_chatcmpl-7',
      model: 'gpt-x',
      role: 'assistant',
      stop_reason: 'tool_use',
      stop_sequence: null,
      content: [
        { type: 'text', text: 'Checking both.' },
        { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'call_b', name: 'get_time', input: { tz: 'CET' } },
        { type: 'text', text: ' (late)' },
      ],
      usage: { input_tokens: 30, output_tokens: 20, cache_read_input_tokens: 64, cache_creation_input_tokens: 0 },
    });
  });

  it('streams the head block live and buffers the others', async () => {
    const out: string[] = [];
    const it = encodeAnthropicStream(fromArray(interleaved), req)[Symbol.asyncIterator]();
    for (let r = await it.next(); !r.done; r = await it.next()) out.push(r.value);
    // One output chunk per canonical event that produced output: the first tool's fragments are
    // written as they come, the second tool's are held until the first closes.
    const firstTool = out.findIndex((c) => c.includes('"partial_json":"{\\"ci"'));
    const secondTool = out.findIndex((c) => c.includes('"id":"call_b"'));
    expect(firstTool).toBeGreaterThan(0);
    expect(secondTool).toBeGreaterThan(firstTool);
    expect(out[secondTool]).toContain('"partial_json":"{\\"tz\\":\\"CET\\"}"');
  });

  it('text, signed thinking and a stop sequence', async () => {
    const text = await encode([
      {
        type: 'message_start',
        id: 'msg_1',
        model: 'claude-x',
        created: 1,
        usage: { inputTokens: 5, outputTokens: 2, cacheWriteTokens: 100 },
      },
      { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
      { type: 'block_delta', index: 0, delta: { kind: 'reasoning', text: 'hmm' } },
      { type: 'block_delta', index: 0, delta: { kind: 'signature', signature: 'sig-' } },
      { type: 'block_delta', index: 0, delta: { kind: 'signature', signature: 'part2' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'text' } },
      { type: 'block_delta', index: 1, delta: { kind: 'text', text: '1, 2, 3' } },
      { type: 'block_stop', index: 1 },
      {
        type: 'message_stop',
        finish: 'stop',
        stopSequence: ', 4',
        usage: { inputTokens: 5, outputTokens: 9, cacheWriteTokens: 100 },
      },
    ]);
    assertAnthropicStreamOrder(parseSse(text));
    const message = await sdkFinalMessage(text);
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'hmm', signature: 'sig-part2' },
      { type: 'text', text: '1, 2, 3' },
    ]);
    expect([message.stop_reason, message.stop_sequence]).toEqual(['stop_sequence', ', 4']);
    expect(message.usage).toMatchObject({ input_tokens: 5, output_tokens: 9, cache_creation_input_tokens: 100 });
  });

  it('never emits empty text blocks, and keeps indices contiguous', async () => {
    const text = await encode([
      start,
      { type: 'block_start', index: 5, block: { kind: 'text' } },
      { type: 'block_delta', index: 5, delta: { kind: 'text', text: '' } },
      { type: 'block_stop', index: 5 },
      { type: 'block_start', index: 7, block: { kind: 'reasoning' } },
      { type: 'block_stop', index: 7 },
      { type: 'block_start', index: 9, block: { kind: 'tool_call', id: 'call_1', name: 'noargs' } },
      { type: 'block_stop', index: 9 },
      { type: 'block_start', index: 11, block: { kind: 'text' } },
      { type: 'block_delta', index: 11, delta: { kind: 'text', text: 'done' } },
      { type: 'message_stop', finish: 'stop', usage },
    ]);
    const messages = parseSse(text);
    assertAnthropicStreamOrder(messages);
    expect(
      messages.filter((m) => m.event === 'content_block_start').map((m) => JSON.parse(m.data).content_block.type),
    ).toEqual(['tool_use', 'text']);
    expect((await sdkFinalMessage(text)).content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'noargs', input: {} },
      { type: 'text', text: 'done' },
    ]);
  });

  it('synthesises message_start when the source has none', async () => {
    const text = await encode([
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'x' } },
      { type: 'message_stop', finish: 'length', usage },
    ]);
    const messages = parseSse(text);
    assertAnthropicStreamOrder(messages);
    expect(JSON.parse(messages[0].data).message).toMatchObject({
      id: expect.stringMatching(/^msg_/),
      model: 'caller-model',
      usage: { output_tokens: 1 },
    });
    expect((await sdkFinalMessage(text)).stop_reason).toBe('max_tokens');
  });

  it('an error event ends the stream, and the SDK raises the matching APIError', async () => {
    const err = new GatewayError(
      'upstream_error',
      'The upstream reported an error during the stream (overloaded_error): Overloaded',
      { status: 529, kind: 'overloaded' },
    );
    const text = await encode([
      start,
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'Hel' } },
      { type: 'error', error: err },
      { type: 'message_stop', finish: 'stop', usage },
    ]);
    const messages = parseSse(text);
    assertAnthropicStreamOrder(messages);
    expect(messages.at(-1)).toEqual({
      event: 'error',
      data: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: err.message } }),
      id: undefined,
    });
    await expect(sdkFinalMessage(text)).rejects.toMatchObject({
      error: { type: 'error', error: { type: 'overloaded_error' } },
    });
  });

  it('a source that ends without message_stop ends with an error event', async () => {
    const text = await encode([
      start,
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'Hel' } },
    ]);
    const messages = parseSse(text);
    assertAnthropicStreamOrder(messages);
    expect(JSON.parse(messages.at(-1)!.data)).toEqual({
      type: 'error',
      error: { type: 'api_error', message: 'The upstream stream ended early.' },
    });
  });

  it('Anthropic upstream → canonical → Anthropic caller keeps the content', async () => {
    const text = await encode(decodeAnthropicStream(sseFixture('thinking-text-tool')));
    assertAnthropicStreamOrder(parseSse(text));
    const message = await sdkFinalMessage(text);
    expect(message.content).toEqual([
      {
        type: 'thinking',
        thinking: 'The user wants the weather in Paris. I should call get_weather.',
        signature: 'EqQBCkgIARABGAIiQHd2b3JrZXJzLXNpZ25hdHVyZQ==',
      },
      { type: 'text', text: 'Let me check the weather in Paris — one moment.' },
      {
        type: 'tool_use',
        id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        name: 'get_weather',
        input: { location: 'Paris, FR', unit: 'celsius' },
      },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 472, output_tokens: 89, cache_read_input_tokens: 1536 });
  });

  it('OpenAI upstream with interleaved parallel tool calls → an Anthropic caller', async () => {
    const { readFileSync } = await import('node:fs');
    const lines = readFileSync(
      new URL('../../../fixtures/formats/openai-chat/parallel-tools.chunks.txt', import.meta.url),
      'utf8',
    )
      .split('\n')
      .filter(Boolean);
    const text = await encode(decodeOpenaiStream(fromArray(lines.map((data): SseMessage => ({ data })))));
    assertAnthropicStreamOrder(parseSse(text));
    const message = await sdkFinalMessage(text);
    expect(message.content.map((b) => (b.type === 'tool_use' ? [b.id, b.input] : b.type))).toEqual([
      ['call_Wq1pLx0', { city: 'Paris' }],
      ['call_Zr8mNb3', { tz: 'Europe/Paris' }],
    ]);
    expect(message.stop_reason).toBe('tool_use');
  });
});

describe('message_start usage when the upstream has not reported the input yet', () => {
  const prompt: ChatRequest = {
    model: 'caller-model',
    system: [{ type: 'text', text: 'x'.repeat(400) }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'y'.repeat(400) }] }],
    tools: [],
    stream: true,
    includeUsage: false,
    unmapped: [],
  };
  const body = (final: StreamEvent): StreamEvent[] => [
    { type: 'message_start', id: 'chatcmpl-1', model: 'gpt-x', created: 1 },
    { type: 'block_start', index: 0, block: { kind: 'text' } },
    { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'hi' } },
    final,
  ];
  const run = async (events: StreamEvent[]) =>
    parseSse((await collect(encodeAnthropicStream(fromArray(events), prompt))).join('')).map((m) => JSON.parse(m.data));

  it(
    'a local estimate (about four characters per token), complete with cache_creation; message_delta has the real ' +
      'count',
    async () => {
      const out = await run(
        body({
          type: 'message_stop',
          finish: 'stop',
          usage: { inputTokens: 180, outputTokens: 1, cacheReadTokens: 20 },
        }),
      );
      expect(out[0].message.usage).toEqual({
        input_tokens: 200,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        output_tokens: 1,
      });
      expect(out.find((e) => e.type === 'message_delta').usage).toEqual({
        input_tokens: 180,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 20,
        output_tokens: 1,
      });
    },
  );

  it('an upstream that never reports its input: the estimate stands in message_delta rather than 0', async () => {
    const out = await run(body({ type: 'message_stop', finish: 'stop', usage: { inputTokens: 0, outputTokens: 0 } }));
    expect(out.find((e) => e.type === 'message_delta').usage.input_tokens).toBe(200);
  });
});
