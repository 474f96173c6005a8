/**
 * Watches a relayed Anthropic messages stream (same format on both sides): every event's data
 * must be a JSON object; `error` is the upstream's in-stream error; usage is read from
 * message_start (input and cache counters) and message_delta (cumulative output); the stream is
 * complete at message_stop; generated text is kept for billing a stream cut before its usage.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types
 */

import type { Usage } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import type { SseMessage } from '../../sse/decode.js';
import type { StreamWatch } from '../types.js';
import { upstreamStreamError } from './errors.js';
import { plainTextDelta } from './plain-text-delta.js';
import { combineUsage, partialUsageFromAnthropic } from './usage.js';
import type { Json } from '../../core/json.js';

export class AnthropicStreamWatch implements StreamWatch {
  complete = false;
  usage: Usage | undefined;
  readonly output: string[] = [];
  private sofar: Partial<Usage> = {};

  see(msg: SseMessage): undefined {
    if (msg.data.length === 0 && msg.event === 'ping') return undefined;
    const fast = plainTextDelta(msg.data);
    if (fast !== undefined) {
      if (fast.text.length > 0) this.output.push(fast.text);
      return undefined;
    }
    let data: unknown;
    try {
      data = JSON.parse(msg.data);
    } catch {
      throw new GatewayError('upstream_error', 'The upstream sent a stream event that is not JSON.');
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      throw new GatewayError('upstream_error', 'The upstream sent a stream event that is not a JSON object.');
    }
    const d = data as Json;
    const type = typeof d.type === 'string' ? d.type : msg.event;
    switch (type) {
      case 'error':
        throw upstreamStreamError(d);
      case 'message_start':
        // A new message (e.g. a retried attempt) starts its usage afresh.
        this.sofar = partialUsageFromAnthropic((d.message as Json | undefined)?.usage);
        this.usage = combineUsage(this.sofar);
        break;
      case 'message_delta':
        this.sofar = { ...this.sofar, ...partialUsageFromAnthropic(d.usage) };
        this.usage = combineUsage(this.sofar);
        break;
      case 'content_block_start':
        this.blockStart(d.content_block);
        break;
      case 'content_block_delta':
        this.delta(d.delta);
        break;
      case 'message_stop':
        this.complete = true;
        break;
      default:
        // ping, content_block_stop, and event types Anthropic adds later: nothing to read.
        break;
    }
    return undefined;
  }

  private blockStart(block: unknown): void {
    if (typeof block !== 'object' || block === null) return;
    const b = block as Json;
    if (typeof b.text === 'string' && b.text.length > 0) this.output.push(b.text);
    if (typeof b.name === 'string') this.output.push(b.name);
  }

  private delta(delta: unknown): void {
    if (typeof delta !== 'object' || delta === null) return;
    const d = delta as Json;
    for (const field of ['text', 'partial_json', 'thinking'] as const) {
      const v = d[field];
      if (typeof v === 'string' && v.length > 0) this.output.push(v);
    }
  }
}
