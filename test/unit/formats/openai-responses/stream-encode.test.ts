import { describe, expect, it } from 'vitest';
import type { ChatRequest, StreamEvent } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { foldStream } from '../../../../src/core/fold-stream.js';
import { decodeAnthropicStream } from '../../../../src/formats/anthropic-messages/stream-decode.js';
import { decodeOpenaiStream } from '../../../../src/formats/openai-chat/stream-decode.js';
import { openAnthropicReasoning } from '../../../../src/formats/openai-responses/reasoning.js';
import { encodeResponsesResponse } from '../../../../src/formats/openai-responses/response.js';
import { decodeResponsesStream } from '../../../../src/formats/openai-responses/stream-decode.js';
import { ResponsesStreamEncoder } from '../../../../src/formats/openai-responses/stream-encode.js';
import { encodeEvents } from '../../../helpers/encode-events.js';
import { decodeSse } from '../../../../src/sse/decode.js';
import { chunksFixture } from '../openai-chat/load-chunks.js';
import { chatRequest, collect, fromArray, parseEvents, sseFixture } from './load-sse.js';
import { sseFixture as anthropicFixture } from '../anthropic-messages/load-sse.js';
import { responsesOrderViolations, sseMessages } from '../../../helpers/responses-order.js';

type Ev = Record<string, unknown> & { type: string };

async function encode(events: StreamEvent[] | AsyncIterable<StreamEvent>, req: ChatRequest = chatRequest()) {
  const text = (await collect(encodeEvents(new ResponsesStreamEncoder(req), events))).join('');
  return { text, events: parseEvents(text) as Ev[] };
}

const start: StreamEvent = { type: 'message_start', id: 'chatcmpl-7', model: 'team/fast', created: 1756300000 };
const usage = { inputTokens: 30, outputTokens: 20, cacheReadTokens: 64 };

/** Every event numbered from 0, and each item's events between its added and done, one item at a time. */
function checkOrder(events: Ev[]): void {
  expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  let open: number | undefined;
  let next = 0;
  for (const e of events) {
    if (e.type === 'response.output_item.added') {
      expect(open).toBeUndefined();
      expect(e.output_index).toBe(next);
      open = next++;
    } else if (e.type === 'response.output_item.done') {
      expect(e.output_index).toBe(open);
      open = undefined;
    } else if (typeof e.output_index === 'number') expect(e.output_index).toBe(open);
  }
  expect(open).toBeUndefined();
}

describe('ResponsesStreamEncoder', () => {
  it('text: the documented event sequence, the final response the same object as a JSON answer', async () => {
    const req = chatRequest({ system: [{ type: 'text', text: 'Be brief.' }], maxTokens: 100 });
    const { events } = await encode(
      [
        start,
        { type: 'block_start', index: 0, block: { kind: 'text' } },
        { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'Hel' } },
        { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'lo' } },
        { type: 'block_stop', index: 0 },
        { type: 'message_stop', finish: 'stop', usage },
      ],
      req,
    );
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    checkOrder(events);
    const created = events[0].response as Record<string, unknown>;
    expect(created).toMatchObject({
      id: 'resp_chatcmpl-7',
      object: 'response',
      created_at: 1756300000,
      status: 'in_progress',
      model: 'team/fast',
      output: [],
      usage: null,
      instructions: 'Be brief.',
      max_output_tokens: 100,
    });
    expect(events[1].response).toEqual(created);
    const itemId = (events[2].item as { id: string }).id;
    expect(itemId).toMatch(/^msg_/);
    expect(events[2].item).toEqual({
      id: itemId,
      type: 'message',
      status: 'in_progress',
      content: [],
      role: 'assistant',
    });
    expect(events[3]).toMatchObject({ item_id: itemId, output_index: 0, content_index: 0 });
    expect(events[4]).toEqual({
      type: 'response.output_text.delta',
      sequence_number: 4,
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      delta: 'Hel',
      logprobs: [],
    });
    expect(events[6]).toMatchObject({ text: 'Hello' });
    const final = events[9].response as Record<string, unknown>;
    const json = encodeResponsesResponse(
      {
        id: 'chatcmpl-7',
        model: 'team/fast',
        created: 1756300000,
        content: [{ type: 'text', text: 'Hello' }],
        finish: 'stop',
        usage,
      },
      req,
    );
    expect(final).toEqual({ ...json, output: [events[8].item] });
    expect(events[8].item).toEqual({ ...((json.output as unknown[])[0] as object), id: itemId });
  });

  it('interleaved parallel tool calls from a chat upstream: one item at a time, arguments whole', async () => {
    const { events } = await encode(decodeOpenaiStream(chunksFixture('parallel-tools')));
    checkOrder(events);
    const done = events.filter((e) => e.type === 'response.output_item.done').map((e) => e.item);
    expect(done).toEqual([
      {
        id: expect.stringMatching(/^fc_/),
        type: 'function_call',
        status: 'completed',
        arguments: '{"city": "Paris"}',
        call_id: 'call_Wq1pLx0',
        name: 'get_weather',
      },
      {
        id: expect.stringMatching(/^fc_/),
        type: 'function_call',
        status: 'completed',
        arguments: '{"tz": "Europe/Paris"}',
        call_id: 'call_Zr8mNb3',
        name: 'get_time',
      },
    ]);
    const args = events.filter((e) => e.type === 'response.function_call_arguments.done');
    expect(args.map((e) => [e.output_index, e.name, e.arguments])).toEqual([
      [0, 'get_weather', '{"city": "Paris"}'],
      [1, 'get_time', '{"tz": "Europe/Paris"}'],
    ]);
    expect(events.at(-1)).toMatchObject({
      type: 'response.completed',
      response: { status: 'completed', output: done, usage: { input_tokens: 1230, output_tokens: 48 } },
    });
  });

  it('a text block closed early by a tool call, and its late delta: a continuation message after it', async () => {
    const { events } = await encode([
      start,
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'Checking.' } },
      { type: 'block_start', index: 1, block: { kind: 'tool_call', id: 'call_a', name: 'f' } },
      { type: 'block_delta', index: 1, delta: { kind: 'tool_arguments', json: '{}' } },
      { type: 'block_delta', index: 0, delta: { kind: 'text', text: ' (late)' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_stop', index: 1 },
      // An empty text block writes nothing.
      { type: 'block_start', index: 2, block: { kind: 'text' } },
      { type: 'block_stop', index: 2 },
      { type: 'message_stop', finish: 'tool_calls', usage },
    ]);
    checkOrder(events);
    const done = events.filter((e) => e.type === 'response.output_item.done').map((e) => e.item as Ev);
    expect(done.map((i) => [i.type, i.type === 'message' ? (i.content as Ev[])[0].text : i.arguments])).toEqual([
      ['message', 'Checking.'],
      ['function_call', '{}'],
      ['message', ' (late)'],
    ]);
  });

  it('a custom tool: the {"input": …} arguments held, then the input as one delta and done', async () => {
    const req = chatRequest({ tools: [{ name: 'apply_patch', parameters: {}, custom: true }] });
    const { events } = await encode(
      [
        start,
        { type: 'block_start', index: 0, block: { kind: 'tool_call', id: 'toolu_1', name: 'apply_patch' } },
        { type: 'block_delta', index: 0, delta: { kind: 'tool_arguments', json: '{"input": "*** Begin' } },
        { type: 'block_delta', index: 0, delta: { kind: 'tool_arguments', json: ' Patch\\n"}' } },
        { type: 'block_stop', index: 0 },
        { type: 'message_stop', finish: 'tool_calls', usage },
      ],
      req,
    );
    checkOrder(events);
    const id = (events[2].item as Ev).id;
    expect(events.slice(2, -1)).toEqual([
      {
        type: 'response.output_item.added',
        sequence_number: 2,
        output_index: 0,
        item: {
          id,
          type: 'custom_tool_call',
          status: 'in_progress',
          call_id: 'toolu_1',
          name: 'apply_patch',
          input: '',
        },
      },
      {
        type: 'response.custom_tool_call_input.delta',
        sequence_number: 3,
        item_id: id,
        output_index: 0,
        delta: '*** Begin Patch\n',
      },
      {
        type: 'response.custom_tool_call_input.done',
        sequence_number: 4,
        item_id: id,
        output_index: 0,
        input: '*** Begin Patch\n',
      },
      {
        type: 'response.output_item.done',
        sequence_number: 5,
        output_index: 0,
        item: {
          id,
          type: 'custom_tool_call',
          status: 'completed',
          call_id: 'toolu_1',
          name: 'apply_patch',
          input: '*** Begin Patch\n',
        },
      },
    ]);
  });

  it('Anthropic thinking: summary events, then the signed part sealed in encrypted_content', async () => {
    const { events } = await encode(decodeAnthropicStream(anthropicFixture('thinking-text-tool')));
    checkOrder(events);
    const types = events.map((e) => e.type);
    expect(types.slice(2, 9)).toEqual([
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
    ]);
    const item = events[8].item as { id: string; summary: unknown; encrypted_content: string };
    expect(item.id).toMatch(/^rs_/);
    const text = 'The user wants the weather in Paris. I should call get_weather.';
    expect(item.summary).toEqual([{ type: 'summary_text', text }]);
    expect(openAnthropicReasoning(item.encrypted_content)).toEqual({
      type: 'reasoning',
      text,
      signature: 'EqQBCkgIARABGAIiQHd2b3JrZXJzLXNpZ25hdHVyZQ==',
    });
    expect(events.at(-1)).toMatchObject({ type: 'response.completed', response: { status: 'completed' } });
  });

  it('incomplete and failed finishes end with their own event', async () => {
    const cut = await encode([start, { type: 'message_stop', finish: 'length', usage }]);
    expect(cut.events.at(-1)).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [] },
    });
    const failed = await encode([start, { type: 'message_stop', finish: 'error', usage }]);
    expect(failed.events.at(-1)).toMatchObject({ type: 'response.failed', response: { status: 'failed' } });
  });

  it('an error event ends the stream: an error event numbered in sequence, nothing after', async () => {
    const err = new GatewayError('upstream_error', 'The upstream reported an error mid-stream: overloaded', {
      status: 529,
      kind: 'overloaded',
    });
    const { events } = await encode([
      start,
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'Par' } },
      { type: 'error', error: err },
      { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'tial' } },
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'error',
    ]);
    expect(events.at(-1)).toMatchObject({
      sequence_number: 5,
      code: 'upstream_error',
      message: 'The upstream reported an error mid-stream: overloaded',
      error: { type: 'overloaded_error' },
    });
  });

  it('a source that ends without message_stop ends with an error, not a clean-looking end', async () => {
    const { events } = await encode([start]);
    expect(events.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', 'error']);
    expect(events[2]).toMatchObject({ sequence_number: 2, code: 'upstream_unavailable' });
  });

  it('without message_start the caller still gets response.created first, named after its request', async () => {
    const { events } = await encode(
      [{ type: 'message_stop', finish: 'stop', usage }],
      chatRequest({ model: 'team/x' }),
    );
    expect(events.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', 'response.completed']);
    expect(events[0].response).toMatchObject({ model: 'team/x', id: expect.stringMatching(/^resp_/) });
    const ids = events.map((e) => (e.response as { id: string }).id);
    expect(new Set(ids).size).toBe(1);
  });

  it.each(['text', 'function-calls', 'reasoning', 'custom-tool', 'incomplete'])(
    'round trip: %s.sse → canonical → Responses SSE → canonical gives the same reply',
    async (name) => {
      const req = chatRequest({ tools: [{ name: 'apply_patch', parameters: {}, custom: true }] });
      const first = await collect(decodeResponsesStream(sseFixture(name)));
      const { text } = await encode(first, req);
      async function* bytes() {
        yield Buffer.from(text);
      }
      const again = await foldStream(decodeResponsesStream(decodeSse(bytes())));
      const original = await foldStream(fromArray(first));
      // Reasoning blocks with nothing readable are not written (their encrypted content never reached the events).
      const readable = original.content.filter((p) => p.type !== 'reasoning' || p.text.length > 0);
      expect(again).toEqual({
        ...original,
        id: `resp_${original.id}`.replace('resp_resp_', 'resp_'),
        content: readable,
      });
    },
  );

  describe('what the state layer relies on: the documented order, and the stream equal to the stored response', () => {
    const ULID = '01JZ8X6Q9ZK3M4N5P6R7S8T9VW';
    const req = chatRequest({ tools: [{ name: 'apply_patch', parameters: {}, custom: true }] });
    /** Each source as the conversation stage passes it on: the response named `resp_<correlation id>`. */
    const sources: Record<string, () => AsyncIterable<StreamEvent>> = {
      'Responses text': () => decodeResponsesStream(sseFixture('text')),
      'Responses reasoning': () => decodeResponsesStream(sseFixture('reasoning')),
      'Responses custom tool': () => decodeResponsesStream(sseFixture('custom-tool')),
      'Responses incomplete': () => decodeResponsesStream(sseFixture('incomplete')),
      'Anthropic thinking, text, tool': () => decodeAnthropicStream(anthropicFixture('thinking-text-tool')),
      'chat parallel tools': () => decodeOpenaiStream(chunksFixture('parallel-tools')),
      'chat reasoning': () => decodeOpenaiStream(chunksFixture('reasoning')),
    };
    it.each(Object.keys(sources))('%s', async (name) => {
      const events = (await collect(sources[name]())).map((e) =>
        e.type === 'message_start' ? { ...e, id: `resp_${ULID}` } : e,
      );
      const { text, events: out } = await encode(events, req);
      expect(responsesOrderViolations(sseMessages(text))).toEqual([]);
      const stored = encodeResponsesResponse(await foldStream(fromArray(events)), req);
      expect(out.at(-1)?.response).toEqual(stored);
      expect((stored.output as unknown[]).length).toBeGreaterThan(0);
    });
  });
});
