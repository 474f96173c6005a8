/**
 * Upstream `chat.completion.chunk` SSE → canonical StreamEvents.
 *
 * OpenAI chunks carry flat deltas (`content`, `tool_calls[]` keyed by `index`); the canonical
 * stream has numbered blocks. Each new block gets the next canonical index. A text or reasoning
 * block closes when another kind of block starts; tool-call blocks stay open until the end, since
 * parallel tool calls may interleave their argument fragments. `finish_reason` comes on one chunk
 * and usage on a later one with empty `choices` (stream_options.include_usage), so message_stop
 * is emitted only at `[DONE]` or at the end of the stream.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */

import type { FinishReason, StreamEvent, Usage } from '../../core/canonical.js';
import { GatewayError, streamEndedEarly } from '../../core/errors.js';
import type { SseMessage } from '../../sse/decode.js';
import { upstreamStreamError } from './errors.js';
import { fromOpenaiFinishReason } from './stop-reason.js';
import { usageFromOpenai } from './usage.js';
import { type Json, isObject } from '../../core/json.js';
import { flatMapIterable } from '../../core/map-iterable.js';
import { plainContentChunk } from './plain-content-chunk.js';

const NONE: readonly StreamEvent[] = [];

export function decodeOpenaiStream(sse: AsyncIterable<SseMessage>): AsyncIterable<StreamEvent> {
  return flatMapIterable(sse, () => {
    const decoder = new OpenaiChunkDecoder();
    return {
      step(msg: SseMessage) {
        if (msg.data === '[DONE]') return { last: decoder.end() };
        if (msg.data.trim().length === 0) return NONE;
        // A plain text delta after the first chunk: what push() would make of it, without JSON.parse.
        const text = decoder.started && msg.event !== 'error' ? plainContentChunk(msg.data) : undefined;
        if (text !== undefined) return decoder.pushText(text);
        let chunk: unknown;
        try {
          chunk = JSON.parse(msg.data);
        } catch {
          throw new GatewayError('upstream_error', 'The upstream sent a stream event that is not JSON.');
        }
        if (!isObject(chunk)) return NONE;
        if ((chunk.error !== undefined && chunk.error !== null) || msg.event === 'error') {
          return { last: [{ type: 'error', error: upstreamStreamError(chunk.error ?? chunk) }] };
        }
        return decoder.push(chunk);
      },
      end() {
        // No [DONE]: a finish_reason still means the answer is complete (some servers omit [DONE]).
        if (!decoder.finished) throw streamEndedEarly();
        return decoder.end();
      },
    };
  });
}

/** The state of one upstream stream: push parsed chunks, get canonical events. */
export class OpenaiChunkDecoder {
  /** Whether the first chunk (the one that names the message) has been read. */
  started = false;
  private nextIndex = 0;
  /** The open text or reasoning block, if any. */
  private current: { kind: 'text' | 'reasoning'; index: number } | undefined;
  /** OpenAI tool_calls index → canonical block index. */
  private readonly tools = new Map<number, number>();
  /** Open canonical blocks, in the order they started. */
  private readonly open: number[] = [];
  private finish: FinishReason | undefined;
  private stopSequence: string | undefined;
  private refused = false;
  private usage: Usage | undefined;

  get finished(): boolean {
    return this.finish !== undefined;
  }

  push(chunk: Json): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (!this.started) this.start(chunk, out);
    if (isObject(chunk.usage)) this.usage = usageFromOpenai(chunk.usage) ?? this.usage;
    // The gateway never asks for n > 1; only the first choice counts.
    const choice = Array.isArray(chunk.choices)
      ? chunk.choices.find((c) => isObject(c) && (c.index ?? 0) === 0)
      : undefined;
    if (!isObject(choice)) return out;
    const delta = isObject(choice.delta) ? choice.delta : {};

    // Reasoning: `reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter, newer vLLM).
    const reasoning = nonEmpty(delta.reasoning_content) ?? nonEmpty(delta.reasoning);
    if (reasoning !== undefined) this.flat('reasoning', reasoning, out);
    const text = nonEmpty(delta.content);
    if (text !== undefined) this.flat('text', text, out);
    // A refusal is shown to the caller as text; the finish becomes content_filter.
    const refusal = nonEmpty(delta.refusal);
    if (refusal !== undefined) {
      this.refused = true;
      this.flat('text', refusal, out);
    }
    if (Array.isArray(delta.tool_calls))
      for (const frag of delta.tool_calls) if (isObject(frag)) this.toolFragment(frag, out);

    if (typeof choice.finish_reason === 'string') this.finish = fromOpenaiFinishReason(choice.finish_reason);
    // vLLM names the matched stop string in `stop_reason`.
    if (typeof choice.stop_reason === 'string') this.stopSequence = choice.stop_reason;
    return out;
  }

  /** A chunk whose only news is content `text` (plain-content-chunk.ts), after the first: as push() reads it. */
  pushText(text: string): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (text.length > 0) this.flat('text', text, out);
    return out;
  }

  /** `[DONE]` or end of stream: close every open block, then message_stop. */
  end(): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (!this.started) this.start({}, out);
    for (const index of this.open) out.push({ type: 'block_stop', index });
    this.open.length = 0;
    this.current = undefined;
    const finish: FinishReason = this.refused
      ? 'content_filter'
      : (this.finish ?? (this.tools.size > 0 ? 'tool_calls' : 'stop'));
    out.push({
      type: 'message_stop',
      finish,
      ...(this.stopSequence !== undefined ? { stopSequence: this.stopSequence } : {}),
      usage: this.usage ?? { inputTokens: 0, outputTokens: 0 },
    });
    return out;
  }

  private start(chunk: Json, out: StreamEvent[]): void {
    this.started = true;
    out.push({
      type: 'message_start',
      id: typeof chunk.id === 'string' ? chunk.id : '',
      model: typeof chunk.model === 'string' ? chunk.model : '',
      created: typeof chunk.created === 'number' ? chunk.created : Math.floor(Date.now() / 1000),
    });
  }

  /** A text or reasoning delta: continue the current block of that kind, or start one. */
  private flat(kind: 'text' | 'reasoning', text: string, out: StreamEvent[]): void {
    if (this.current?.kind !== kind) {
      this.closeCurrent(out);
      this.current = { kind, index: this.openBlock(out, { kind }) };
    }
    out.push({ type: 'block_delta', index: this.current.index, delta: { kind, text } });
  }

  /** The first fragment of an OpenAI tool index carries id and name; later ones only arguments. */
  private toolFragment(frag: Json, out: StreamEvent[]): void {
    const k = typeof frag.index === 'number' ? frag.index : 0;
    const fn = isObject(frag.function) ? frag.function : {};
    let index = this.tools.get(k);
    if (index === undefined) {
      this.closeCurrent(out);
      const id = typeof frag.id === 'string' ? frag.id : `call_${k}`;
      index = this.openBlock(out, { kind: 'tool_call', id, name: typeof fn.name === 'string' ? fn.name : '' });
      this.tools.set(k, index);
    }
    const json = nonEmpty(fn.arguments);
    if (json !== undefined) out.push({ type: 'block_delta', index, delta: { kind: 'tool_arguments', json } });
  }

  private openBlock(out: StreamEvent[], block: Extract<StreamEvent, { type: 'block_start' }>['block']): number {
    const index = this.nextIndex++;
    this.open.push(index);
    out.push({ type: 'block_start', index, block });
    return index;
  }

  private closeCurrent(out: StreamEvent[]): void {
    if (!this.current) return;
    const { index } = this.current;
    this.current = undefined;
    this.open.splice(this.open.indexOf(index), 1);
    out.push({ type: 'block_stop', index });
  }
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}
