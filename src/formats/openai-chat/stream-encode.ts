/**
 * Canonical StreamEvents → OpenAI `chat.completion.chunk` SSE. Invariants the SDKs rely on:
 * one id and created for every chunk, role on the first delta, tool-call fragments keyed by
 * index, finish_reason on the last choice chunk, the usage chunk (empty choices) only when the
 * caller asked with stream_options.include_usage, then `data: [DONE]`. Reasoning deltas go out as
 * `reasoning_content` (the DeepSeek/vLLM convention); an error becomes `data: {"error": …}`.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */

import { assertNever, type StreamEvent } from '../../core/canonical.js';
import { streamEndedEarly } from '../../core/errors.js';
import { sseData } from '../../sse/encode.js';
import type { StreamEncoder } from '../types.js';
import { openaiStreamError } from './errors.js';
import { toOpenaiFinishReason } from './stop-reason.js';
import { usageToOpenai } from './usage.js';

export interface OpenaiStreamOptions {
  includeUsage: boolean;
}

export class OpenaiStreamEncoder implements StreamEncoder {
  done = false;
  /** The fixed prefix of every chunk, serialised once (at message_start). */
  private head = '';
  /** Canonical block index → OpenAI tool_calls index. */
  private readonly toolIndex = new Map<number, number>();

  constructor(private readonly opts: OpenaiStreamOptions) {}

  push(ev: StreamEvent): string {
    if (this.done) return '';
    switch (ev.type) {
      case 'message_start':
        this.head =
          `{"id":${JSON.stringify(ev.id)},"object":"chat.completion.chunk","created":${ev.created},` +
          `"model":${JSON.stringify(ev.model)},"choices":`;
        return this.chunk('{"role":"assistant","content":""}');
      case 'block_start': {
        if (ev.block.kind !== 'tool_call') return '';
        const k = this.toolIndex.size;
        this.toolIndex.set(ev.index, k);
        const call = { index: k, id: ev.block.id, type: 'function', function: { name: ev.block.name, arguments: '' } };
        return this.chunk(JSON.stringify({ tool_calls: [call] }));
      }
      case 'block_delta': {
        const d = ev.delta;
        // Several text blocks (an Anthropic upstream) simply continue `content`.
        if (d.kind === 'text') return d.text ? this.chunk(`{"content":${JSON.stringify(d.text)}}`) : '';
        if (d.kind === 'reasoning') return d.text ? this.chunk(`{"reasoning_content":${JSON.stringify(d.text)}}`) : '';
        if (d.kind === 'tool_arguments' && d.json) {
          const call = { index: this.toolIndex.get(ev.index) ?? 0, function: { arguments: d.json } };
          return this.chunk(JSON.stringify({ tool_calls: [call] }));
        }
        // Signatures have no place in the chat format.
        return '';
      }
      case 'block_stop':
        return '';
      case 'message_stop': {
        this.done = true;
        // `stopSequence` has no chat-format field.
        let out = this.chunk('{}', toOpenaiFinishReason(ev.finish));
        if (this.opts.includeUsage)
          out += sseData(`${this.head}[],"usage":${JSON.stringify(usageToOpenai(ev.usage))}}`);
        return out + sseData('[DONE]');
      }
      case 'error':
        this.done = true;
        return openaiStreamError(ev.error);
      default:
        return assertNever(ev);
    }
  }

  endedEarly(): string {
    if (this.done) return '';
    this.done = true;
    return openaiStreamError(streamEndedEarly());
  }

  /**
   * A choice chunk around the delta's JSON, written as text: the same bytes as stringifying the
   * choice object, without building it per event.
   */
  private chunk(deltaJson: string, finish: string | null = null): string {
    return sseData(
      `${this.head}[{"index":0,"delta":${deltaJson},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]}`,
    );
  }
}
