/**
 * Asserts that SSE messages follow Anthropic's documented stream order — what the official SDK's
 * accumulator relies on (it appends on content_block_start and addresses deltas by index):
 *
 *   message_start (with message.usage) · per block: content_block_start, deltas of that block's
 *   type with its index, content_block_stop · blocks strictly one after another, indices 0..n-1 ·
 *   message_delta once (stop_reason + usage.output_tokens) · message_stop last.
 *
 * `ping` may appear anywhere; an `error` event may end the stream at any point instead.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types
 */

import { expect } from 'vitest';
import type { SseMessage } from '../../src/sse/decode.js';

const DELTAS_FOR: Record<string, string[]> = {
  text: ['text_delta', 'citations_delta'],
  tool_use: ['input_json_delta'],
  thinking: ['thinking_delta', 'signature_delta'],
  redacted_thinking: [],
};

export function assertAnthropicStreamOrder(messages: SseMessage[]): void {
  const events = messages.filter((m) => m.event !== 'ping');
  expect(events.length, 'stream is empty').toBeGreaterThan(0);
  const parsed = events.map((m, i) => {
    const data = JSON.parse(m.data) as Record<string, any>;
    expect(data.type, `event ${i}: data.type matches the event name`).toBe(m.event);
    return data;
  });
  const at = (i: number) => `event ${i} (${events[i].event})`;

  if (parsed[0].type === 'error') {
    expect(events, 'an error that opens the stream is the only event').toHaveLength(1);
    expect(parsed[0].error?.type, `${at(0)}: error.type`).toEqual(expect.any(String));
    return;
  }
  expect(parsed[0].type, 'first event').toBe('message_start');
  expect(parsed[0].message?.usage, 'message_start carries message.usage').toMatchObject({
    input_tokens: expect.any(Number),
    output_tokens: expect.any(Number),
  });
  expect(parsed[0].message?.content, 'message_start has empty content').toEqual([]);

  let nextIndex = 0;
  let open: { index: number; type: string } | undefined;
  let sawDelta = false;
  for (let i = 1; i < parsed.length; i++) {
    const d = parsed[i];
    if (d.type === 'error') {
      expect(i, `${at(i)}: error is the last event`).toBe(parsed.length - 1);
      expect(d.error?.type, `${at(i)}: error.type`).toEqual(expect.any(String));
      return;
    }
    if (sawDelta) {
      expect(d.type, `${at(i)}: only message_stop may follow message_delta`).toBe('message_stop');
      expect(i, `${at(i)}: message_stop is last`).toBe(parsed.length - 1);
      return;
    }
    switch (d.type) {
      case 'content_block_start':
        expect(open, `${at(i)}: block ${open?.index} is still open`).toBeUndefined();
        expect(d.index, `${at(i)}: block indices are contiguous`).toBe(nextIndex);
        expect(Object.keys(DELTAS_FOR), `${at(i)}: known block type`).toContain(d.content_block?.type);
        open = { index: d.index, type: d.content_block.type };
        nextIndex++;
        break;
      case 'content_block_delta':
        expect(open, `${at(i)}: delta outside a block`).toBeDefined();
        expect(d.index, `${at(i)}: delta for the open block`).toBe(open!.index);
        expect(DELTAS_FOR[open!.type], `${at(i)}: delta type fits a ${open!.type} block`).toContain(d.delta?.type);
        break;
      case 'content_block_stop':
        expect(open, `${at(i)}: stop outside a block`).toBeDefined();
        expect(d.index, `${at(i)}: stop for the open block`).toBe(open!.index);
        open = undefined;
        break;
      case 'message_delta':
        expect(open, `${at(i)}: block ${open?.index} still open at message_delta`).toBeUndefined();
        expect(d.delta?.stop_reason, `${at(i)}: stop_reason`).toEqual(expect.any(String));
        expect(d.usage?.output_tokens, `${at(i)}: usage.output_tokens`).toEqual(expect.any(Number));
        sawDelta = true;
        break;
      default:
        throw new Error(`${at(i)}: unexpected event here`);
    }
  }
  throw new Error(sawDelta ? 'stream ended without message_stop' : 'stream ended without message_delta');
}
