/**
 * Canonical StreamEvents → OpenAI `chat.completion.chunk` SSE. Invariants the SDKs rely on:
 * one id and created for every chunk, role on the first delta, tool-call fragments keyed by
 * index, finish_reason on the last choice chunk, the usage chunk (empty choices) only when the
 * caller asked with stream_options.include_usage, then `data: [DONE]`. Reasoning deltas go out as
 * `reasoning_content` (the DeepSeek/vLLM convention); an error becomes `data: {"error": …}`.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */

import { assertNever, type StreamEvent } from '../../core/canonical.js';
import { sseData } from '../../sse/encode.js';
import { openaiStreamError } from './errors.js';
import { toOpenaiFinishReason } from './stop-reason.js';
import { usageToOpenai } from './usage.js';

export interface OpenaiStreamOptions {
  includeUsage: boolean;
}

export async function* encodeOpenaiStream(
  events: AsyncIterable<StreamEvent>,
  opts: OpenaiStreamOptions,
): AsyncGenerator<string> {
  let head = '';
  /** Canonical block index → OpenAI tool_calls index. */
  const toolIndex = new Map<number, number>();
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sseData(`${head}${JSON.stringify([{ index: 0, delta, logprobs: null, finish_reason: finish }])}}`);

  for await (const ev of events) {
    switch (ev.type) {
      case 'message_start':
        // The fixed prefix of every chunk, serialised once.
        head =
          `{"id":${JSON.stringify(ev.id)},"object":"chat.completion.chunk","created":${ev.created},` +
          `"model":${JSON.stringify(ev.model)},"choices":`;
        yield chunk({ role: 'assistant', content: '' });
        break;
      case 'block_start':
        if (ev.block.kind === 'tool_call') {
          const k = toolIndex.size;
          toolIndex.set(ev.index, k);
          yield chunk({
            tool_calls: [
              { index: k, id: ev.block.id, type: 'function', function: { name: ev.block.name, arguments: '' } },
            ],
          });
        }
        break;
      case 'block_delta': {
        const d = ev.delta;
        // Several text blocks (an Anthropic upstream) simply continue `content`.
        if (d.kind === 'text') {
          if (d.text) yield chunk({ content: d.text });
        } else if (d.kind === 'reasoning') {
          if (d.text) yield chunk({ reasoning_content: d.text });
        } else if (d.kind === 'tool_arguments') {
          if (d.json)
            yield chunk({ tool_calls: [{ index: toolIndex.get(ev.index) ?? 0, function: { arguments: d.json } }] });
        }
        // Signatures have no place in the chat format.
        break;
      }
      case 'block_stop':
        break;
      case 'message_stop':
        // `stopSequence` has no chat-format field.
        yield chunk({}, toOpenaiFinishReason(ev.finish));
        if (opts.includeUsage) yield sseData(`${head}[],"usage":${JSON.stringify(usageToOpenai(ev.usage))}}`);
        yield sseData('[DONE]');
        return;
      case 'error':
        yield openaiStreamError(ev.error);
        return;
      default:
        assertNever(ev);
    }
  }
}
