import { describe, expect, it } from 'vitest';
import type { ChatResponse, StreamEvent } from '../../../src/core/canonical.js';
import { foldStream } from '../../../src/core/fold-stream.js';
import {
  isClosedSchema,
  isOpenaiStrictSchema,
  OUTPUT_TOOL_NAME,
  unwrapOutputToolEvents,
  unwrapOutputToolResponse,
} from '../../../src/formats/structured-output.js';

const closed = {
  type: 'object',
  properties: {
    a: { type: 'string' },
    b: { type: 'object', properties: { c: { type: 'integer' } }, required: ['c'], additionalProperties: false },
  },
  required: ['a', 'b'],
  additionalProperties: false,
};

describe('schema checks', () => {
  it('closed: every object, nested ones, array items and $defs included', () => {
    expect(isClosedSchema(closed)).toBe(true);
    expect(isClosedSchema({ type: 'object', properties: {} })).toBe(false);
    expect(
      isClosedSchema({
        type: 'object',
        additionalProperties: false,
        properties: { l: { type: 'array', items: { type: 'object', properties: {} } } },
      }),
    ).toBe(false);
    expect(isClosedSchema({ type: 'object', additionalProperties: false, $defs: { x: { type: 'object' } } })).toBe(
      false,
    );
    expect(
      isClosedSchema({
        type: 'object',
        additionalProperties: false,
        properties: { u: { anyOf: [{ type: 'string' }, { type: 'object', additionalProperties: false }] } },
      }),
    ).toBe(true);
    expect(isClosedSchema({ type: 'string' })).toBe(true);
  });

  it('OpenAI strict: closed and every property required', () => {
    expect(isOpenaiStrictSchema(closed)).toBe(true);
    expect(isOpenaiStrictSchema({ ...closed, required: ['a'] })).toBe(false);
    expect(isOpenaiStrictSchema({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] })).toBe(
      false,
    );
  });
});

async function* from(events: StreamEvent[]): AsyncGenerator<StreamEvent> {
  yield* events;
}

describe('the output tool turned back into JSON text', () => {
  const usage = { inputTokens: 5, outputTokens: 9 };

  it('a stream: the tool block becomes a text block, its argument fragments text deltas, finish stop', async () => {
    const events: StreamEvent[] = [
      { type: 'message_start', id: 'm', model: 'c', created: 1 },
      { type: 'block_start', index: 0, block: { kind: 'tool_call', id: 'toolu_1', name: OUTPUT_TOOL_NAME } },
      { type: 'block_delta', index: 0, delta: { kind: 'tool_arguments', json: '{"a":' } },
      { type: 'block_delta', index: 0, delta: { kind: 'tool_arguments', json: '1}' } },
      { type: 'block_stop', index: 0 },
      { type: 'message_stop', finish: 'tool_calls', usage },
    ];
    const out: StreamEvent[] = [];
    for await (const e of unwrapOutputToolEvents(from(events))) out.push(e);
    expect(out[1]).toEqual({ type: 'block_start', index: 0, block: { kind: 'text' } });
    expect(out.at(-1)).toEqual({ type: 'message_stop', finish: 'stop', usage });
    const folded = await foldStream(unwrapOutputToolEvents(from(events)));
    expect(folded.content).toEqual([{ type: 'text', text: '{"a":1}' }]);
  });

  it('other tool calls stay tool calls, and the finish stays tool_calls', async () => {
    const events: StreamEvent[] = [
      { type: 'block_start', index: 0, block: { kind: 'tool_call', id: 't', name: 'lookup' } },
      { type: 'block_delta', index: 0, delta: { kind: 'tool_arguments', json: '{}' } },
      { type: 'block_stop', index: 0 },
      { type: 'message_stop', finish: 'tool_calls', usage },
    ];
    const out: StreamEvent[] = [];
    for await (const e of unwrapOutputToolEvents(from(events))) out.push(e);
    expect(out).toEqual(events);
  });

  it('a whole response', () => {
    const res: ChatResponse = {
      id: 'm',
      model: 'c',
      created: 1,
      finish: 'tool_calls',
      usage,
      content: [{ type: 'tool_call', id: 't', name: OUTPUT_TOOL_NAME, arguments: '{"a":1}' }],
    };
    expect(unwrapOutputToolResponse(res)).toEqual({
      ...res,
      finish: 'stop',
      content: [{ type: 'text', text: '{"a":1}' }],
    });
    const plain: ChatResponse = { ...res, finish: 'stop', content: [{ type: 'text', text: 'hi' }] };
    expect(unwrapOutputToolResponse(plain)).toBe(plain);
  });
});
