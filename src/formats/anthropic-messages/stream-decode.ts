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
import { type FlatMapOut, flatMapIterable } from '../../core/map-iterable.js';
import { plainTextDelta } from './plain-text-delta.js';

const NONE: readonly StreamEvent[] = [];

export function decodeAnthropicStream(sse: AsyncIterable<SseMessage>): AsyncIterable<StreamEvent> {
  return flatMapIterable(sse, () => {
    const decoder = new AnthropicEventDecoder();
    return {
      step: (msg: SseMessage) => decoder.step(msg),
      end(): never {
        throw new GatewayError('upstream_unavailable', 'The upstream stream ended early (no message_stop).');
      },
    };
  });
}

/** The state of one upstream stream: each SSE message in, its canonical events out. */
class AnthropicEventDecoder {
  private startUsage: Partial<Usage> = {};
  private deltaUsage: Partial<Usage> = {};
  private finish: FinishReason = 'other';
  private stopSequence: string | undefined;
  /** Indices of blocks with no canonical form (redacted_thinking, server-tool blocks): their events are skipped. */
  private readonly skipped = new Set<number>();

  step(msg: SseMessage): FlatMapOut<StreamEvent> {
    // Anthropic repeats the event name as `type` in the data; `ping` may come without data.
    if (msg.event === 'ping' || msg.data.length === 0) return NONE;
    const fast = plainTextDelta(msg.data);
    if (fast !== undefined) {
      if (this.skipped.has(fast.index) || fast.text.length === 0) return NONE;
      return [{ type: 'block_delta', index: fast.index, delta: { kind: 'text', text: fast.text } }];
    }
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
      case 'content_block_delta': {
        if (this.skipped.has(index)) return NONE;
        const d = isObject(data.delta) ? data.delta : {};
        // Empty fragments (Anthropic opens tool input with `partial_json: ""`) carry nothing.
        if (d.type === 'text_delta' && nonEmpty(d.text))
          return [{ type: 'block_delta', index, delta: { kind: 'text', text: d.text } }];
        if (d.type === 'input_json_delta' && nonEmpty(d.partial_json))
          return [{ type: 'block_delta', index, delta: { kind: 'tool_arguments', json: d.partial_json } }];
        if (d.type === 'thinking_delta' && nonEmpty(d.thinking))
          return [{ type: 'block_delta', index, delta: { kind: 'reasoning', text: d.thinking } }];
        if (d.type === 'signature_delta' && nonEmpty(d.signature))
          return [{ type: 'block_delta', index, delta: { kind: 'signature', signature: d.signature } }];
        // citations_delta and delta types added later: nothing canonical to carry them.
        return NONE;
      }
      case 'message_start': {
        const m = isObject(data.message) ? data.message : {};
        this.startUsage = partialUsageFromAnthropic(m.usage);
        return [
          {
            type: 'message_start',
            id: typeof m.id === 'string' ? m.id : '',
            model: typeof m.model === 'string' ? m.model : '',
            created: Math.floor(Date.now() / 1000),
            usage: this.startUsage,
          },
        ];
      }
      case 'content_block_start':
        return this.blockStart(index, isObject(data.content_block) ? data.content_block : {});
      case 'content_block_stop':
        return this.skipped.has(index) ? NONE : [{ type: 'block_stop', index }];
      case 'message_delta': {
        const d = isObject(data.delta) ? data.delta : {};
        if (d.stop_reason !== undefined && d.stop_reason !== null) this.finish = fromAnthropicStopReason(d.stop_reason);
        if (typeof d.stop_sequence === 'string') this.stopSequence = d.stop_sequence;
        this.deltaUsage = { ...this.deltaUsage, ...partialUsageFromAnthropic(data.usage) };
        return NONE;
      }
      case 'message_stop': {
        const ev: StreamEvent = {
          type: 'message_stop',
          finish: this.finish,
          usage: combineUsage(this.startUsage, this.deltaUsage),
        };
        if (this.stopSequence !== undefined) ev.stopSequence = this.stopSequence;
        return { last: [ev] };
      }
      case 'error':
        return { last: [{ type: 'error', error: upstreamStreamError(data) }] };
      default:
        // Anthropic may add event types; unknown ones are skipped, as its SDKs do.
        return NONE;
    }
  }

  private blockStart(index: number, b: Json): readonly StreamEvent[] {
    if (b.type === 'text') {
      const start: StreamEvent = { type: 'block_start', index, block: { kind: 'text' } };
      return nonEmpty(b.text)
        ? [start, { type: 'block_delta', index, delta: { kind: 'text', text: b.text } }]
        : [start];
    }
    if (b.type === 'tool_use') {
      const out: StreamEvent[] = [
        {
          type: 'block_start',
          index,
          block: { kind: 'tool_call', id: String(b.id ?? ''), name: String(b.name ?? '') },
        },
      ];
      // The start carries `input: {}`; the real input follows as input_json_delta fragments.
      if (isObject(b.input) && Object.keys(b.input).length > 0)
        out.push({ type: 'block_delta', index, delta: { kind: 'tool_arguments', json: JSON.stringify(b.input) } });
      return out;
    }
    if (b.type === 'thinking') {
      const out: StreamEvent[] = [{ type: 'block_start', index, block: { kind: 'reasoning' } }];
      if (nonEmpty(b.thinking))
        out.push({ type: 'block_delta', index, delta: { kind: 'reasoning', text: b.thinking } });
      if (nonEmpty(b.signature))
        out.push({ type: 'block_delta', index, delta: { kind: 'signature', signature: b.signature } });
      return out;
    }
    this.skipped.add(index);
    return NONE;
  }
}

function nonEmpty(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}
