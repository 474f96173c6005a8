/**
 * Canonical StreamEvents → Responses SSE for this format's callers, in the documented order:
 *
 *   response.created (status in_progress, no output), response.in_progress, then per output item
 *   response.output_item.added → the item's events → response.output_item.done, one item at a
 *   time with output_index 0..n-1, then response.completed / response.incomplete /
 *   response.failed with the whole response (the same object as a JSON answer). An `error` event
 *   ends the stream instead. Every event is `event: <type>` + `data: <json>` with its
 *   `sequence_number`, counted from 0; there is no `[DONE]`.
 *
 * An item's events: a message has content_part.added → output_text.delta… → output_text.done →
 * content_part.done; a function call function_call_arguments.delta… → .done; reasoning
 * reasoning_summary_part.added → reasoning_summary_text.delta… → .done →
 * reasoning_summary_part.done (an Anthropic signature goes into `encrypted_content`, see
 * reasoning.ts). A custom tool's input arrives from other formats as the JSON `{"input": …}`, so
 * it is held until the call is complete and written as one custom_tool_call_input.delta → .done.
 *
 * Interleaved canonical blocks become one item at a time in the order they started
 * (../block-queue.ts: later ones held back until their turn; an open text or reasoning block
 * closed early when another starts, a late delta opening a continuation item of the same kind).
 * Empty text and reasoning items are never written.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */

import { assertNever, type ChatRequest, type StreamEvent } from '../../core/canonical.js';
import { streamEndedEarly } from '../../core/errors.js';
import { jsonMembers, sseTypedEvent } from '../../sse/encode.js';
import type { Json } from '../../core/json.js';
import { BlockQueue, type QueuedBlock } from '../block-queue.js';
import type { StreamEncoder } from '../types.js';
import { responsesStreamError } from './errors.js';
import {
  customCallItem,
  customInput,
  functionCallItem,
  isCustomTool,
  messageItem,
  outputText,
} from './output-items.js';
import { itemIdFor } from '../openai-responses-ids.js';
import { reasoningPartToItem } from './reasoning.js';
import { type ResponseHead, responseObject, responsesId } from './response.js';
import { toResponsesStatus } from './stop-reason.js';

interface Item extends QueuedBlock {
  callId: string;
  name: string;
  custom: boolean;
  /** Item id and output_index, once response.output_item.added has been written. */
  id?: string;
  out?: number;
  /** `"item_id":…,"output_index":…` as JSON members, for the delta events. */
  idsJson?: string;
  /** Received but not yet written. */
  pending: string;
  /** Everything received (the `.done` events and the final item repeat it). */
  text: string;
  signature: string;
  summaryOpen: boolean;
}

export class ResponsesStreamEncoder implements StreamEncoder {
  done = false;
  private seq = 0;
  private head: ResponseHead | undefined;
  private nextOut = 0;
  private readonly queue = new BlockQueue<Item>((canon, kind) => ({
    canon,
    kind,
    callId: '',
    name: '',
    custom: false,
    pending: '',
    text: '',
    signature: '',
    summaryOpen: false,
    closed: false,
  }));
  /** The finished output items, for the final response object. */
  private readonly output: Json[] = [];

  constructor(private readonly req: ChatRequest) {}

  push(ev: StreamEvent): string {
    if (this.done) return '';
    switch (ev.type) {
      case 'message_start':
        return this.head ? '' : this.start({ id: ev.id, model: ev.model || this.req.model, created: ev.created });
      case 'block_start': {
        const head = this.ensureStarted();
        const bs = ev.block;
        const b = this.queue.start(ev.index, bs.kind);
        if (bs.kind === 'tool_call') {
          b.callId = bs.id;
          b.name = bs.name;
          b.custom = isCustomTool(this.req, bs.name);
        }
        return head + this.pump();
      }
      case 'block_delta': {
        const head = this.ensureStarted();
        const b = this.queue.target(ev.index, ev.delta.kind);
        if (!b) return head;
        const d = ev.delta;
        if (d.kind === 'signature') b.signature += d.signature;
        else {
          const s = d.kind === 'tool_arguments' ? d.json : d.text;
          // A custom tool's input is written whole when the call is complete (finish).
          if (!b.custom) b.pending += s;
          b.text += s;
        }
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
        const state = toResponsesStatus(ev.finish);
        const response = responseObject(this.head!, this.req, state, this.output, ev.usage);
        return out + this.event(`response.${state.status}`, { response });
      }
      case 'error':
        this.done = true;
        return responsesStreamError(ev.error, this.seq++);
      default:
        return assertNever(ev);
    }
  }

  /** The source ended without message_stop: end the caller's stream with an error, not silently. */
  endedEarly(): string {
    if (this.done) return '';
    this.done = true;
    return responsesStreamError(streamEndedEarly(), this.seq++);
  }

  private event(type: string, payload: Json): string {
    return this.eventOf(type, jsonMembers(payload));
  }

  /** One event from its type and the JSON text of its other members (sseTypedEvent), numbered. */
  private eventOf(type: string, members: string): string {
    const rest = members.length > 0 ? `,${members}` : '';
    return sseTypedEvent(type, `"sequence_number":${this.seq++}${rest}`);
  }

  private start(head: ResponseHead): string {
    // One id for every event, also when the source gave none (responsesId makes a fresh one).
    this.head = { ...head, id: responsesId(head.id) };
    const state = { status: 'in_progress' as const, incomplete_details: null };
    const response = responseObject(this.head, this.req, state, [], undefined);
    return this.event('response.created', { response }) + this.event('response.in_progress', { response });
  }

  private ensureStarted(): string {
    return this.head ? '' : this.start({ id: '', model: this.req.model, created: Math.floor(Date.now() / 1000) });
  }

  /** Write what the head item has, and finish every head item that is closed. */
  private pump(): string {
    let out = '';
    const queue = this.queue.blocks;
    while (queue.length > 0) {
      const b = queue[0];
      if (b.kind === 'tool_call' && !b.custom) out += this.open(b);
      if (b.pending.length > 0) {
        out += this.open(b) + this.delta(b, b.pending);
        b.pending = '';
      }
      if (!b.closed) break;
      out += this.finish(b);
      queue.shift();
    }
    return out;
  }

  private open(b: Item): string {
    if (b.out !== undefined) return '';
    b.out = this.nextOut++;
    const output_index = b.out;
    switch (b.kind) {
      case 'text': {
        b.id = itemIdFor('message', this.head!.id, output_index);
        const item_id = b.id;
        return (
          this.event('response.output_item.added', {
            output_index,
            item: messageItem(b.id, 'in_progress', undefined),
          }) +
          this.event('response.content_part.added', { item_id, output_index, content_index: 0, part: outputText('') })
        );
      }
      case 'reasoning':
        b.id = itemIdFor('reasoning', this.head!.id, output_index);
        return this.event('response.output_item.added', {
          output_index,
          item: { id: b.id, type: 'reasoning', summary: [] },
        });
      case 'tool_call':
        b.id = itemIdFor(b.custom ? 'custom_tool_call' : 'function_call', this.head!.id, output_index);
        return this.event('response.output_item.added', {
          output_index,
          item: b.custom
            ? customCallItem(b.id, 'in_progress', b.callId, b.name, '')
            : functionCallItem(b.id, 'in_progress', b.callId, b.name, ''),
        });
    }
  }

  private delta(b: Item, delta: string): string {
    // Every delta event: written as text, the item's ids serialised once per item.
    b.idsJson ??= `"item_id":${JSON.stringify(b.id)},"output_index":${b.out}`;
    if (b.kind === 'text') {
      const members = `${b.idsJson},"content_index":0,"delta":${JSON.stringify(delta)},"logprobs":[]`;
      return this.eventOf('response.output_text.delta', members);
    }
    if (b.kind === 'tool_call')
      return this.eventOf('response.function_call_arguments.delta', `${b.idsJson},"delta":${JSON.stringify(delta)}`);
    const ids = { item_id: b.id, output_index: b.out };
    let out = '';
    if (!b.summaryOpen) {
      b.summaryOpen = true;
      const part = { type: 'summary_text', text: '' };
      out += this.event('response.reasoning_summary_part.added', { ...ids, summary_index: 0, part });
    }
    const members = `${b.idsJson},"summary_index":0,"delta":${JSON.stringify(delta)}`;
    return out + this.eventOf('response.reasoning_summary_text.delta', members);
  }

  /** The closing events of a complete item; nothing for an empty text or reasoning item. */
  private finish(b: Item): string {
    if (b.out === undefined && b.kind !== 'tool_call' && b.text.length === 0 && b.signature.length === 0) return '';
    let out = this.open(b);
    const ids = { item_id: b.id!, output_index: b.out! };
    let item: Json;
    if (b.kind === 'text') {
      out +=
        this.event('response.output_text.done', { ...ids, content_index: 0, text: b.text, logprobs: [] }) +
        this.event('response.content_part.done', { ...ids, content_index: 0, part: outputText(b.text) });
      item = messageItem(ids.item_id, 'completed', b.text);
    } else if (b.kind === 'reasoning') {
      if (b.summaryOpen) {
        const part = { type: 'summary_text', text: b.text };
        out +=
          this.event('response.reasoning_summary_text.done', { ...ids, summary_index: 0, text: b.text }) +
          this.event('response.reasoning_summary_part.done', { ...ids, summary_index: 0, part });
      }
      const signature = b.signature.length > 0 ? { signature: b.signature } : {};
      item = reasoningPartToItem({ type: 'reasoning', text: b.text, ...signature }, ids.item_id);
    } else if (b.custom) {
      const input = customInput(b.text);
      if (input.length > 0) out += this.event('response.custom_tool_call_input.delta', { ...ids, delta: input });
      out += this.event('response.custom_tool_call_input.done', { ...ids, input });
      item = customCallItem(ids.item_id, 'completed', b.callId, b.name, input);
    } else {
      out += this.event('response.function_call_arguments.done', { ...ids, name: b.name, arguments: b.text });
      item = functionCallItem(ids.item_id, 'completed', b.callId, b.name, b.text);
    }
    this.output.push(item);
    return out + this.event('response.output_item.done', { output_index: ids.output_index, item });
  }
}
