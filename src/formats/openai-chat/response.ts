import type { ChatResponse } from '../../core/canonical.js';
import { toOpenaiFinishReason } from './finish-reason.js';
import { usageToOpenai } from './usage.js';

/** Canonical response → OpenAI `chat.completion` object. */
export function encodeOpenaiResponse(res: ChatResponse) {
  let text = '';
  let reasoning = '';
  const toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> = [];
  for (const part of res.content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'reasoning') reasoning += part.text;
    else if (part.type === 'tool_call') toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
  }
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text.length > 0 || toolCalls.length === 0 ? text : null,
    refusal: null,
  };
  if (reasoning) message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id: res.id,
    object: 'chat.completion',
    created: res.created,
    model: res.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: toOpenaiFinishReason(res.finish) }],
    usage: usageToOpenai(res.usage),
  };
}
