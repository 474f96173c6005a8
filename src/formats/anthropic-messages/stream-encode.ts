/**
 * Canonical StreamEvents → Anthropic SSE for this format's callers. Anthropic's SDKs accumulate
 * by position (`content_block_start` appends, deltas address `content[index]`), so the output
 * must follow the documented order exactly, whatever order the canonical events come in:
 *
 *   message_start, ping, then per block: content_block_start → deltas of that block's own type
 *   → content_block_stop, one block at a time, indices 0..n-1 in emission order, then exactly
 *   one message_delta (stop_reason + cumulative usage) and message_stop. An `error` event ends
 *   the stream instead. message_start's usage is complete (cache_creation included); its
 *   input_tokens is a local estimate when the upstream has not reported one yet.
 *
 * Interleaved canonical blocks go out one at a time in the order they started (../block-queue.ts:
 * later blocks buffer until their turn, an open text or thinking block is closed early when
 * another starts and continues in a new block, which is valid Anthropic output). Also:
 * - text and thinking blocks open lazily, so an empty text block is never emitted;
 * - a thinking block's signature is buffered and written once, just before its stop (the SDKs
 *   replace, rather than append, the signature on each signature_delta).
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types
 */

import { assertNever, type StreamEvent, type Usage } from '../../core/canonical.js';
import { streamEndedEarly } from '../../core/errors.js';
import { jsonMembers, sseTypedEvent } from '../../sse/encode.js';
import { BlockQueue, type QueuedBlock } from '../block-queue.js';
import type { StreamEncoder } from '../types.js';
import { anthropicStreamError } from './errors.js';
import { anthropicMessageId } from './response.js';
import { toAnthropicStopReason } from './stop-reason.js';
import { deltaUsageToAnthropic, usageToAnthropic } from './usage.js';

interface Block extends QueuedBlock {
  id: string;
  name: string;
  /** Output index, once content_block_start has been written. */
  out?: number;
  /** Text, thinking or partial JSON received but not yet written. */
  pending: string;
  signature: string;
}

function sse(type: string, payload: Record<string, unknown>): string {
  return sseTypedEvent(type, jsonMembers(payload));
}

export class AnthropicStreamEncoder implements StreamEncoder {
  done = false;
  private started = false;
  private nextOut = 0;
  private readonly queue = new BlockQueue<Block>((canon, kind) => ({
    canon,
    kind,
    id: '',
    name: '',
    pending: '',
    signature: '',
    closed: false,
  }));

  /** What message_start said about the input when the upstream had not reported it yet. */
  private estimatedInput: number | undefined;

  /**
   * `estimateInput`: the request's input tokens estimated locally, for an upstream that reports usage
   * only at the end.
   */
  constructor(
    private readonly fallbackModel: string,
    private readonly estimateInput: () => number = () => 0,
  ) {}

  push(ev: StreamEvent): string {
    if (this.done) return '';
    switch (ev.type) {
      case 'message_start':
        return this.started ? '' : this.start(ev.id, ev.model, ev.usage);
      case 'block_start': {
        const head = this.ensureStarted();
        const bs = ev.block;
        const b = this.queue.start(ev.index, bs.kind);
        if (bs.kind === 'tool_call') {
          b.id = bs.id;
          b.name = bs.name;
        }
        return head + this.pump();
      }
      case 'block_delta': {
        const head = this.ensureStarted();
        const b = this.queue.target(ev.index, ev.delta.kind);
        if (!b) return head;
        const d = ev.delta;
        if (d.kind === 'signature') b.signature += d.signature;
        else b.pending += d.kind === 'tool_arguments' ? d.json : d.text;
        return head + this.pump();
      }
      case 'block_stop':
        this.queue.stop(ev.index);
        return this.pump();
      case 'message_stop': {
        let out = this.ensureStarted();
        this.queue.closeAll();
        out += this.pump();
        this.done = true;
        const stopSequence = ev.finish === 'stop' ? (ev.stopSequence ?? null) : null;
        const usage = deltaUsageToAnthropic(ev.usage);
        // An upstream that never reported its input: the estimate stands rather than a 0.
        const reported = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
        if (reported === 0 && this.estimatedInput) usage.input_tokens = this.estimatedInput;
        out += sse('message_delta', {
          delta: { stop_reason: toAnthropicStopReason(ev.finish, ev.stopSequence), stop_sequence: stopSequence },
          usage,
        });
        return out + sse('message_stop', {});
      }
      case 'error':
        this.done = true;
        return anthropicStreamError(ev.error);
      default:
        return assertNever(ev);
    }
  }

  /** The source ended without message_stop: end the caller's stream with an error, not silently. */
  endedEarly(): string {
    if (this.done) return '';
    this.done = true;
    return anthropicStreamError(streamEndedEarly());
  }

  private start(id: string, model: string, usage: Partial<Usage> | undefined): string {
    this.started = true;
    const u = usageToAnthropic(usage ?? {});
    // Anthropic reports a small non-zero output count here; 1 when the upstream said nothing.
    u.output_tokens = usage?.outputTokens ?? 1;
    // Anthropic callers (LangChain, the SDKs) read the input count here; an upstream that reports
    // it only at the end (OpenAI) gets a local estimate, corrected by message_delta.
    if (usage?.inputTokens === undefined) {
      this.estimatedInput = this.estimateInput();
      u.input_tokens = this.estimatedInput;
    }
    const message = {
      id: anthropicMessageId(id),
      type: 'message',
      role: 'assistant',
      model: model || this.fallbackModel,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: u,
    };
    return sse('message_start', { message }) + sse('ping', {});
  }

  private ensureStarted(): string {
    return this.started ? '' : this.start('', this.fallbackModel, undefined);
  }

  /** Write what the head block has, and move past every head block that is finished. */
  private pump(): string {
    let out = '';
    const queue = this.queue.blocks;
    while (queue.length > 0) {
      const b = queue[0];
      if (b.kind === 'tool_call') out += this.open(b);
      if (b.pending.length > 0) {
        out += this.open(b) + this.delta(b, b.pending);
        b.pending = '';
      }
      if (!b.closed) break;
      if (b.signature.length > 0)
        out +=
          this.open(b) +
          sse('content_block_delta', { index: b.out, delta: { type: 'signature_delta', signature: b.signature } });
      if (b.out !== undefined) out += sse('content_block_stop', { index: b.out });
      queue.shift();
    }
    return out;
  }

  private open(b: Block): string {
    if (b.out !== undefined) return '';
    b.out = this.nextOut++;
    const block =
      b.kind === 'tool_call'
        ? { type: 'tool_use', id: b.id, name: b.name, input: {} }
        : b.kind === 'reasoning'
          ? { type: 'thinking', thinking: '', signature: '' }
          : { type: 'text', text: '' };
    return sse('content_block_start', { index: b.out, content_block: block });
  }

  /** Every delta: written as text (the bytes `sse` would make of the same object). */
  private delta(b: Block, s: string): string {
    const field =
      b.kind === 'tool_call'
        ? '"input_json_delta","partial_json"'
        : b.kind === 'reasoning'
          ? '"thinking_delta","thinking"'
          : '"text_delta","text"';
    return sseTypedEvent('content_block_delta', `"index":${b.out},"delta":{"type":${field}:${JSON.stringify(s)}}`);
  }
}
