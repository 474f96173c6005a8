/**
 * OpenAI `chat.completion` object ⇄ canonical ChatResponse.
 * @see https://platform.openai.com/docs/api-reference/chat/object
 */

import type { ChatResponse, ContentPart, Usage } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { fromOpenaiFinishReason, toOpenaiFinishReason } from './stop-reason.js';
import { usageFromOpenai, usageToOpenai } from './usage.js';
import { isObject } from '../../core/json.js';

/** Canonical response → OpenAI `chat.completion` object. */
export function encodeOpenaiResponse(res: ChatResponse) {
  let text = '';
  let reasoning = '';
  const toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> = [];
  for (const part of res.content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'reasoning') reasoning += part.text;
    else if (part.type === 'tool_call')
      toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
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

/**
 * Upstream `chat.completion` → canonical. Only the first choice counts (the gateway never asks
 * for `n > 1`). Reasoning comes first, from `reasoning_content` (DeepSeek, vLLM) or `reasoning`
 * (OpenRouter, newer vLLM); a `refusal` becomes text with finish `content_filter`.
 */
export function decodeOpenaiResponse(body: unknown): ChatResponse {
  const b = isObject(body) ? body : {};
  const choice = Array.isArray(b.choices) ? b.choices[0] : undefined;
  if (!isObject(choice)) throw new GatewayError('upstream_error', 'The upstream response has no choices.');
  return openaiResponseOf(b, choice, usageFromOpenai(b.usage as Parameters<typeof usageFromOpenai>[0]));
}

/**
 * The canonical response from an answer's top-level members, its first choice and its usage read
 * already (the complete-answer fast path, plain-answer.ts, reads them from its own captures).
 */
export function openaiResponseOf(
  b: Record<string, unknown>,
  choice: Record<string, unknown>,
  usage: Usage | undefined,
): ChatResponse {
  const message = isObject(choice.message) ? choice.message : {};

  const content: ContentPart[] = [];
  const reasoning = nonEmpty(message.reasoning_content) ?? nonEmpty(message.reasoning);
  if (reasoning !== undefined) content.push({ type: 'reasoning', text: reasoning });
  const text = nonEmpty(message.content);
  if (text !== undefined) content.push({ type: 'text', text });
  const refusal = nonEmpty(message.refusal);
  if (refusal !== undefined) content.push({ type: 'text', text: refusal });
  if (Array.isArray(message.tool_calls)) {
    for (const tc of message.tool_calls) {
      const fn = isObject(tc) && isObject(tc.function) ? tc.function : undefined;
      if (!isObject(tc) || !fn || typeof fn.name !== 'string') continue;
      content.push({
        type: 'tool_call',
        id: typeof tc.id === 'string' ? tc.id : '',
        name: fn.name,
        arguments: typeof fn.arguments === 'string' ? fn.arguments : '',
      });
    }
  }

  const res: ChatResponse = {
    id: typeof b.id === 'string' ? b.id : '',
    model: typeof b.model === 'string' ? b.model : '',
    created: typeof b.created === 'number' ? b.created : Math.floor(Date.now() / 1000),
    content,
    finish: refusal !== undefined ? 'content_filter' : fromOpenaiFinishReason(choice.finish_reason as string | null),
    usage: usage ?? { inputTokens: 0, outputTokens: 0 },
  };
  // vLLM names the matched stop string in `stop_reason` (a number there is a stop token id).
  if (typeof choice.stop_reason === 'string') res.stopSequence = choice.stop_reason;
  return res;
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}
