/**
 * Upstream Anthropic SSE → canonical StreamEvents. The two models are nearly the same shape, so
 * this is mostly renaming; the work is in usage (message_delta's counters are cumulative and may
 * omit the input side, so they are merged over message_start's) and in failing loudly: an
 * in-stream `error` event becomes a canonical error, and a stream that ends without
 * message_stop throws, so nobody mistakes a cut connection for a complete answer.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types
 */

import type { FinishReason, StreamEvent, Usage } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import type { SseMessage } from '../../sse/decode.js';
import { upstreamStreamError } from './errors.js';
import { isObject } from './request-decode.js';
import { fromAnthropicStopReason } from './stop-reason.js';
import { combineUsage, partialUsageFromAnthropic } from './usage.js';
import type { Json } from '../../core/json.js';

export async function* decodeAnthropicStream(sse: AsyncIterable<SseMessage>): AsyncGenerator<StreamEvent> {
  let startUsage: Partial<Usage> = {};
  let deltaUsage: Partial<Usage> = {};
  let finish: FinishReason = 'other';
  let stopSequence: string | undefined;
  /** Indices of blocks with no canonical form (redacted_thinking, server-tool blocks): their events are skipped. */
  const skipped = new Set<number>();

  for await (const msg of sse) {
    // Anthropic repeats the event name as `type` in the data; `ping` may come without data.
    if (msg.event === 'ping' || msg.data.length === 0) continue;
    let data: Json;
    try {
      const parsed: unknown = JSON.parse(msg.data);
      if (!isObject(parsed)) throw new Error('not an object');
      data = parsed;
    } catch {
      throw new GatewayError('upstream_error', 'The upstream sent an event stream message that is not a JSON object.');
    }
    const type = typeof data.type === 'string' ? data.type : msg.event;
    const index = typeof data.index === 'number' ? data.index : -1;
    switch (type) {
      case 'message_start': {
        const m = isObject(data.message) ? data.message : {};
        startUsage = partialUsageFromAnthropic(m.usage);
        yield {
          type: 'message_start',
          id: typeof m.id === 'string' ? m.id : '',
          model: typeof m.model === 'string' ? m.model : '',
          created: Math.floor(Date.now() / 1000),
          usage: startUsage,
        };
        break;
      }
      case 'content_block_start': {
        const b = isObject(data.content_block) ? data.content_block : {};
        if (b.type === 'text') {
          yield { type: 'block_start', index, block: { kind: 'text' } };
          if (nonEmpty(b.text)) yield { type: 'block_delta', index, delta: { kind: 'text', text: b.text } };
        } else if (b.type === 'tool_use') {
          yield {
            type: 'block_start',
            index,
            block: { kind: 'tool_call', id: String(b.id ?? ''), name: String(b.name ?? '') },
          };
          // The start carries `input: {}`; the real input follows as input_json_delta fragments.
          if (isObject(b.input) && Object.keys(b.input).length > 0) {
            yield { type: 'block_delta', index, delta: { kind: 'tool_arguments', json: JSON.stringify(b.input) } };
          }
        } else if (b.type === 'thinking') {
          yield { type: 'block_start', index, block: { kind: 'reasoning' } };
          if (nonEmpty(b.thinking))
            yield { type: 'block_delta', index, delta: { kind: 'reasoning', text: b.thinking } };
          if (nonEmpty(b.signature))
            yield { type: 'block_delta', index, delta: { kind: 'signature', signature: b.signature } };
        } else {
          skipped.add(index);
        }
        break;
      }
      case 'content_block_delta': {
        if (skipped.has(index)) break;
        const d = isObject(data.delta) ? data.delta : {};
        // Empty fragments (Anthropic opens tool input with `partial_json: ""`) carry nothing.
        if (d.type === 'text_delta' && nonEmpty(d.text))
          yield { type: 'block_delta', index, delta: { kind: 'text', text: d.text } };
        else if (d.type === 'input_json_delta' && nonEmpty(d.partial_json))
          yield { type: 'block_delta', index, delta: { kind: 'tool_arguments', json: d.partial_json } };
        else if (d.type === 'thinking_delta' && nonEmpty(d.thinking))
          yield { type: 'block_delta', index, delta: { kind: 'reasoning', text: d.thinking } };
        else if (d.type === 'signature_delta' && nonEmpty(d.signature))
          yield { type: 'block_delta', index, delta: { kind: 'signature', signature: d.signature } };
        // citations_delta and delta types added later: nothing canonical to carry them.
        break;
      }
      case 'content_block_stop':
        if (!skipped.has(index)) yield { type: 'block_stop', index };
        break;
      case 'message_delta': {
        const d = isObject(data.delta) ? data.delta : {};
        if (d.stop_reason !== undefined && d.stop_reason !== null) finish = fromAnthropicStopReason(d.stop_reason);
        if (typeof d.stop_sequence === 'string') stopSequence = d.stop_sequence;
        deltaUsage = { ...deltaUsage, ...partialUsageFromAnthropic(data.usage) };
        break;
      }
      case 'message_stop': {
        const ev: StreamEvent = { type: 'message_stop', finish, usage: combineUsage(startUsage, deltaUsage) };
        if (stopSequence !== undefined) ev.stopSequence = stopSequence;
        yield ev;
        return;
      }
      case 'error':
        yield { type: 'error', error: upstreamStreamError(data) };
        return;
      default:
        // Anthropic may add event types; unknown ones are skipped, as its SDKs do.
        break;
    }
  }
  throw new GatewayError('upstream_unavailable', 'The upstream stream ended early (no message_stop).');
}

function nonEmpty(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}
