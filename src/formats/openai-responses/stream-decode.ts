/**
 * Upstream Responses SSE → canonical StreamEvents. The stream is a sequence of typed events:
 * `response.created`, then per output item `response.output_item.added` → the item's deltas →
 * `response.output_item.done`, then `response.completed` / `response.incomplete` with the whole
 * response (usage included), or `response.failed` / `error`.
 *
 * Each message content part (text or refusal), function call, custom tool call and reasoning
 * item becomes one canonical block. A custom tool's input streams as the JSON text of
 * `{"input": …}` (the canonical arguments), escaped fragment by fragment. Several reasoning
 * summary parts are paragraphs of one block. An item that arrives whole at
 * `response.output_item.done` (a compatible server that streams nothing for it) is emitted from
 * there. Events that change nothing canonical (`response.in_progress`, the `.done` events that
 * repeat the deltas, annotations, hosted tool progress…) are skipped, as are event types added
 * later. A reasoning item's `encrypted_content` has no place in canonical events and is lost here
 * (a same-format stream passes through untouched).
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */

import type { BlockDelta, BlockStart, ContentPart, StreamEvent, Usage } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { isObject, type Json } from '../../core/json.js';
import type { SseMessage } from '../../sse/decode.js';
import { upstreamErrorEvent, upstreamFailure } from './errors.js';
import { reasoningItemToPart } from './reasoning.js';
import { type OutputNotes, outputItemParts } from './response.js';
import { fromResponsesStatus } from './stop-reason.js';
import { usageFromResponses } from './usage.js';
import { type FlatMapOut, flatMapIterable } from '../../core/map-iterable.js';
import { plainTextDeltaEvent } from './plain-text-delta-event.js';

const NONE: readonly StreamEvent[] = [];

export function decodeResponsesStream(sse: AsyncIterable<SseMessage>): AsyncIterable<StreamEvent> {
  return flatMapIterable(sse, () => {
    const decoder = new ResponsesEventDecoder();
    return {
      step(msg: SseMessage): FlatMapOut<StreamEvent> {
        if (msg.data.length === 0) return NONE;
        // An output text delta in OpenAI's own shape: what push() would make of it, without JSON.parse.
        const fast = plainTextDeltaEvent(msg.data);
        if (fast !== undefined) return decoder.textDelta(fast.outputIndex, fast.contentIndex, fast.delta);
        let data: unknown;
        try {
          data = JSON.parse(msg.data);
        } catch {
          data = undefined;
        }
        const type = isObject(data) && typeof data.type === 'string' ? data.type : msg.event;
        if (!isObject(data) || type === undefined)
          throw new GatewayError('upstream_error', 'The upstream sent a stream event that is not a typed JSON object.');
        const out = decoder.push(type, data);
        return decoder.done ? { last: out } : out;
      },
      end(): never {
        throw new GatewayError('upstream_unavailable', 'The upstream stream ended early (no response.completed).');
      },
    };
  });
}

type Kind = 'text' | 'reasoning' | 'tool_call';

interface Open {
  index: number;
  kind: Kind;
  /** A custom tool call: its input is wrapped as `{"input": …}`. */
  custom: boolean;
  /** Reasoning: the summary part the last delta belonged to, and whether any text came. */
  part: number;
  written: boolean;
}

/** The text of a JSON string literal without its quotes (fragments concatenate to valid JSON). */
function jsonStringBody(s: string): string {
  return JSON.stringify(s).slice(1, -1);
}

/** The state of one upstream stream: push typed events, get canonical events. */
export class ResponsesEventDecoder {
  done = false;
  private started = false;
  private nextIndex = 0;
  /** Open blocks by output item (`"3"`) or message content part (`"3:0"`). */
  private readonly open = new Map<string, Open>();
  /** Output items that produced a block, so a whole item at `.done` is not emitted twice. */
  private readonly seen = new Set<number>();
  private readonly notes: OutputNotes = { refused: false, calledTools: false };

  push(type: string, data: Json): StreamEvent[] {
    const out: StreamEvent[] = [];
    const item = isObject(data.item) ? data.item : {};
    const at = typeof data.output_index === 'number' ? data.output_index : -1;
    const partKey = `${at}:${typeof data.content_index === 'number' ? data.content_index : 0}`;
    switch (type) {
      case 'response.created':
      case 'response.queued':
      case 'response.in_progress':
        this.start(data, out);
        break;
      case 'response.output_item.added':
        this.start(data, out);
        this.itemAdded(item, at, out);
        break;
      case 'response.content_part.added':
      case 'response.content_part.done': {
        // `.done` repeats the whole part: its text is used only when no delta came.
        const part = isObject(data.part) ? data.part : {};
        if (part.type === 'refusal') this.notes.refused = true;
        const b = this.open.get(partKey);
        if ((part.type === 'output_text' || part.type === 'refusal') && !b?.written)
          this.text(partKey, at, part.type === 'refusal' ? part.refusal : part.text, out);
        if (type === 'response.content_part.done') this.close(partKey, out);
        break;
      }
      case 'response.refusal.delta':
        this.notes.refused = true;
        this.text(partKey, at, data.delta, out);
        break;
      case 'response.output_text.delta':
        this.text(partKey, at, data.delta, out);
        break;
      case 'response.function_call_arguments.delta':
        this.delta(String(at), data.delta, out);
        break;
      case 'response.custom_tool_call_input.delta':
        if (typeof data.delta === 'string') this.delta(String(at), jsonStringBody(data.delta), out);
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        this.reasoning(at, data, out);
        break;
      case 'response.output_item.done':
        this.itemDone(item, at, out);
        break;
      case 'response.completed':
      case 'response.incomplete':
        this.finish(type === 'response.completed' ? 'completed' : 'incomplete', data, out);
        break;
      case 'response.failed':
        this.done = true;
        out.push({ type: 'error', error: upstreamFailure(isObject(data.response) ? data.response.error : undefined) });
        break;
      case 'error':
        this.done = true;
        out.push({ type: 'error', error: upstreamErrorEvent(data) });
        break;
    }
    return out;
  }

  /** An output text delta (plain-text-delta-event.ts): as push() reads one. */
  textDelta(at: number, contentIndex: number, text: string): StreamEvent[] {
    const out: StreamEvent[] = [];
    this.text(`${at}:${contentIndex}`, at, text, out);
    return out;
  }

  private start(data: Json, out: StreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    const r = isObject(data.response) ? data.response : {};
    out.push({
      type: 'message_start',
      id: typeof r.id === 'string' ? r.id : '',
      model: typeof r.model === 'string' ? r.model : '',
      created: typeof r.created_at === 'number' ? r.created_at : Math.floor(Date.now() / 1000),
    });
  }

  private blockStart(at: number, block: BlockStart, out: StreamEvent[]): number {
    const index = this.nextIndex++;
    this.seen.add(at);
    out.push({ type: 'block_start', index, block });
    return index;
  }

  private openBlock(key: string, at: number, block: BlockStart, out: StreamEvent[]): Open {
    const b: Open = {
      index: this.blockStart(at, block, out),
      kind: block.kind,
      custom: false,
      part: 0,
      written: false,
    };
    this.open.set(key, b);
    return b;
  }

  private itemAdded(item: Json, at: number, out: StreamEvent[]): void {
    const key = String(at);
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      if (typeof item.call_id !== 'string' || typeof item.name !== 'string') return;
      this.notes.calledTools = true;
      const b = this.openBlock(key, at, { kind: 'tool_call', id: item.call_id, name: item.name }, out);
      if (item.type === 'custom_tool_call') {
        b.custom = true;
        out.push({ type: 'block_delta', index: b.index, delta: { kind: 'tool_arguments', json: '{"input":"' } });
        this.delta(key, typeof item.input === 'string' ? jsonStringBody(item.input) : '', out);
      } else this.delta(key, item.arguments, out);
    } else if (item.type === 'reasoning') {
      this.openBlock(key, at, { kind: 'reasoning' }, out);
    }
  }

  /** Text of a message content part, opening its block on the first (non-empty) text. */
  private text(key: string, at: number, text: unknown, out: StreamEvent[]): void {
    const b = this.open.get(key) ?? this.openBlock(key, at, { kind: 'text' }, out);
    if (typeof text !== 'string' || text.length === 0) return;
    b.written = true;
    out.push({ type: 'block_delta', index: b.index, delta: { kind: 'text', text } });
  }

  private delta(key: string, json: unknown, out: StreamEvent[]): void {
    const b = this.open.get(key);
    if (b?.kind !== 'tool_call' || typeof json !== 'string' || json.length === 0) return;
    b.written = true;
    out.push({ type: 'block_delta', index: b.index, delta: { kind: 'tool_arguments', json } });
  }

  /** A summary (or raw reasoning) delta; a new summary part starts a new paragraph. */
  private reasoning(at: number, data: Json, out: StreamEvent[]): void {
    const b = this.open.get(String(at));
    if (b?.kind !== 'reasoning' || typeof data.delta !== 'string' || data.delta.length === 0) return;
    const part = typeof data.summary_index === 'number' ? data.summary_index : b.part;
    const text = b.written && part !== b.part ? `\n\n${data.delta}` : data.delta;
    b.part = part;
    b.written = true;
    out.push({ type: 'block_delta', index: b.index, delta: { kind: 'reasoning', text } });
  }

  private close(key: string, out: StreamEvent[]): void {
    const b = this.open.get(key);
    if (!b) return;
    this.open.delete(key);
    if (b.custom) out.push({ type: 'block_delta', index: b.index, delta: { kind: 'tool_arguments', json: '"}' } });
    out.push({ type: 'block_stop', index: b.index });
  }

  /**
   * Closes the item's blocks. What the item holds is emitted from here when nothing of it was
   * streamed: the whole item, or the arguments or reasoning of a block opened but left empty.
   */
  private itemDone(item: Json, at: number, out: StreamEvent[]): void {
    const b = this.open.get(String(at));
    if (b && !b.written) this.fill(b, item, out);
    else if (!this.seen.has(at)) for (const part of outputItemParts(item, this.notes)) this.whole(at, part, out);
    for (const key of [...this.open.keys()]) if (key === String(at) || key.startsWith(`${at}:`)) this.close(key, out);
  }

  private whole(at: number, part: ContentPart, out: StreamEvent[]): void {
    let block: BlockStart;
    let delta: BlockDelta | undefined;
    if (part.type === 'tool_call') {
      block = { kind: 'tool_call', id: part.id, name: part.name };
      if (part.arguments.length > 0) delta = { kind: 'tool_arguments', json: part.arguments };
    } else if (part.type === 'text' || part.type === 'reasoning') {
      block = { kind: part.type };
      if (part.text.length > 0) delta = { kind: part.type, text: part.text };
    } else return;
    const index = this.blockStart(at, block, out);
    if (delta) out.push({ type: 'block_delta', index, delta });
    out.push({ type: 'block_stop', index });
  }

  private fill(b: Open, item: Json, out: StreamEvent[]): void {
    if (b.kind === 'reasoning') {
      const text = reasoningItemToPart(item).text;
      if (text.length > 0) out.push({ type: 'block_delta', index: b.index, delta: { kind: 'reasoning', text } });
      return;
    }
    const raw = b.custom ? item.input : item.arguments;
    const json = typeof raw !== 'string' ? '' : b.custom ? jsonStringBody(raw) : raw;
    if (json.length > 0) out.push({ type: 'block_delta', index: b.index, delta: { kind: 'tool_arguments', json } });
  }

  private finish(status: 'completed' | 'incomplete', data: Json, out: StreamEvent[]): void {
    this.start(data, out);
    for (const key of [...this.open.keys()]) this.close(key, out);
    const r = isObject(data.response) ? data.response : {};
    const details = isObject(r.incomplete_details) ? r.incomplete_details : {};
    const usage: Usage = usageFromResponses(r.usage) ?? { inputTokens: 0, outputTokens: 0 };
    out.push({
      type: 'message_stop',
      finish: this.notes.refused
        ? 'content_filter'
        : fromResponsesStatus(status, details.reason, this.notes.calledTools),
      usage,
    });
    this.done = true;
  }
}
