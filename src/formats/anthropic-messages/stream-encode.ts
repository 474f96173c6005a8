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
 * Interleaving (an OpenAI upstream may send parallel tool-call fragments interleaved, so its
 * tool-call blocks stay open until the end): blocks are emitted in the order they started. The block at
 * the head of that queue streams live; deltas for later blocks are buffered and written as one
 * delta when their turn comes. The head advances when its canonical block_stop arrives. So that
 * a block left open does not hold everything behind it, an open text or reasoning block is
 * closed early as soon as another block starts; a late delta for it opens a continuation block
 * of the same kind at the back of the queue (several text blocks are valid Anthropic output). A
 * tool_use block is never closed early, since its input cannot be split. Also:
 * - text and thinking blocks open lazily, so an empty text block is never emitted;
 * - a thinking block's signature is buffered and written once, just before its stop (the SDKs
 *   replace, rather than append, the signature on each signature_delta).
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types
 */

import { assertNever, type BlockDelta, type ChatRequest, type StreamEvent, type Usage } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { anthropicStreamError } from './errors.js';
import { anthropicMessageId } from './response.js';
import { toAnthropicStopReason } from './stop-reason.js';
import { deltaUsageToAnthropic, estimateInputTokens, usageToAnthropic } from './usage.js';

type Kind = 'text' | 'reasoning' | 'tool_call';

interface Block {
  canon: number;
  kind: Kind;
  id: string;
  name: string;
  /** Output index, once content_block_start has been written. */
  out?: number;
  /** Text, thinking or partial JSON received but not yet written. */
  pending: string;
  signature: string;
  /** No more deltas will come: canonical block_stop, closed early, or the message ended. */
  closed: boolean;
}

function sse(type: string, payload: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;
}

const ACCEPTS: Record<Kind, ReadonlyArray<BlockDelta['kind']>> = {
  text: ['text'],
  reasoning: ['reasoning', 'signature'],
  tool_call: ['tool_arguments'],
};

export class AnthropicStreamEncoder {
  done = false;
  private started = false;
  private nextOut = 0;
  /** Blocks not yet fully written, in emission order; queue[0] is the one streaming. */
  private readonly queue: Block[] = [];
  /** Canonical index → the block its deltas go to. */
  private readonly live = new Map<number, Block>();
  /** Canonical indices closed early, whose late deltas open a continuation block. */
  private readonly retired = new Map<number, Kind>();

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
        for (const b of this.queue) if (!b.closed && b.kind !== 'tool_call') this.retire(b);
        this.retired.delete(ev.index);
        const bs = ev.block;
        const b: Block = {
          canon: ev.index,
          kind: bs.kind,
          id: bs.kind === 'tool_call' ? bs.id : '',
          name: bs.kind === 'tool_call' ? bs.name : '',
          pending: '',
          signature: '',
          closed: false,
        };
        const reused = this.live.get(ev.index);
        if (reused) reused.closed = true; // an index started twice: the earlier block is over
        this.queue.push(b);
        this.live.set(ev.index, b);
        return head + this.pump();
      }
      case 'block_delta': {
        const head = this.ensureStarted();
        const b = this.target(ev.index, ev.delta.kind);
        if (!b) return head;
        const d = ev.delta;
        if (d.kind === 'signature') b.signature += d.signature;
        else b.pending += d.kind === 'tool_arguments' ? d.json : d.text;
        return head + this.pump();
      }
      case 'block_stop': {
        const b = this.live.get(ev.index);
        if (b) b.closed = true;
        this.live.delete(ev.index);
        this.retired.delete(ev.index);
        return this.pump();
      }
      case 'message_stop': {
        let out = this.ensureStarted();
        for (const b of this.queue) b.closed = true;
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
    return anthropicStreamError(new GatewayError('upstream_unavailable', 'The upstream stream ended early.'));
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

  private retire(b: Block): void {
    b.closed = true;
    if (this.live.get(b.canon) === b) {
      this.live.delete(b.canon);
      this.retired.set(b.canon, b.kind);
    }
  }

  /**
   * The block a delta belongs to: its live block, or a continuation of one closed early. Mismatched
   * kinds are ignored.
   */
  private target(canon: number, kind: BlockDelta['kind']): Block | undefined {
    let b = this.live.get(canon);
    if (!b) {
      const k = this.retired.get(canon);
      if (!k) return undefined;
      b = { canon, kind: k, id: '', name: '', pending: '', signature: '', closed: false };
      this.retired.delete(canon);
      this.queue.push(b);
      this.live.set(canon, b);
    }
    return ACCEPTS[b.kind].includes(kind) ? b : undefined;
  }

  /** Write what the head block has, and move past every head block that is finished. */
  private pump(): string {
    let out = '';
    while (this.queue.length > 0) {
      const b = this.queue[0];
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
      this.queue.shift();
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

  private delta(b: Block, s: string): string {
    const delta =
      b.kind === 'tool_call'
        ? { type: 'input_json_delta', partial_json: s }
        : b.kind === 'reasoning'
          ? { type: 'thinking_delta', thinking: s }
          : { type: 'text_delta', text: s };
    return sse('content_block_delta', { index: b.out, delta });
  }
}

export async function* encodeAnthropicStream(
  events: AsyncIterable<StreamEvent>,
  req: ChatRequest,
): AsyncGenerator<string> {
  const enc = new AnthropicStreamEncoder(req.model, () => estimateInputTokens(req));
  for await (const ev of events) {
    const out = enc.push(ev);
    if (out) yield out;
    // Stop reading: returning from for-await releases (and so aborts) the upstream.
    if (enc.done) return;
  }
  yield enc.endedEarly();
}
