import { describe, expect, it } from 'vitest';
import { assertAnthropicStreamOrder } from '../../../helpers/anthropic-order.js';
import { parseSse } from './load-sse.js';
import { readFileSync } from 'node:fs';
import { FIXTURES } from './load-sse.js';

const ev = (type: string, data: object = {}) => ({ event: type, data: JSON.stringify({ type, ...data }) });
const start = ev('message_start', { message: { content: [], usage: { input_tokens: 1, output_tokens: 1 } } });
const end = [
  ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }),
  ev('message_stop'),
];
const text = (i: number) => [
  ev('content_block_start', { index: i, content_block: { type: 'text', text: '' } }),
  ev('content_block_delta', { index: i, delta: { type: 'text_delta', text: 'x' } }),
  ev('content_block_stop', { index: i }),
];

describe('assertAnthropicStreamOrder', () => {
  it('accepts the real fixtures', () => {
    for (const name of ['thinking-text-tool', 'overloaded-mid-stream', 'stop-sequence-cache-write']) {
      assertAnthropicStreamOrder(parseSse(readFileSync(`${FIXTURES}${name}.sse`, 'utf8')));
    }
    assertAnthropicStreamOrder([ev('error', { error: { type: 'api_error', message: 'x' } })]);
  });

  it('rejects out-of-order streams', () => {
    const bad = [
      [...text(0), ...end],
      [start, ...text(1), ...end],
      [start, ...text(0).slice(0, 2), ...text(1), ...end],
      [
        start,
        ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'a', name: 'f', input: {} } }),
        ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'x' } }),
        ev('content_block_stop', { index: 0 }),
        ...end,
      ],
      [start, ...text(0), end[1]],
      [start, ...text(0), end[0]],
      [start, ...text(0), end[0], end[0], end[1]],
      [start, ...text(0), end[1], end[0]],
      [start, ...text(0), ev('error', { error: { type: 'api_error', message: 'x' } }), ...end],
    ];
    for (const stream of bad) expect(() => assertAnthropicStreamOrder(stream)).toThrow();
    expect(() =>
      assertAnthropicStreamOrder([start, ev('ping'), ...text(0), ev('ping'), ...text(1), ...end]),
    ).not.toThrow();
  });
});
