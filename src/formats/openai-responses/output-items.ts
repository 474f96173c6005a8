/**
 * The output items a Responses caller receives, built the same way for a complete response and
 * for a stream (whose `response.completed` repeats them). Item ids are the gateway's
 * (openai-responses-ids.ts): made from the response id and the output index, so a stream and the
 * same response stored for the next turn (encoded separately) name every item alike.
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-output
 */

import type { ChatRequest } from '../../core/canonical.js';
import { isObject, type Json } from '../../core/json.js';

export type ItemStatus = 'in_progress' | 'completed';

export function outputText(text: string): Json {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

export function messageItem(id: string, status: ItemStatus, text: string | undefined): Json {
  return { id, type: 'message', status, content: text === undefined ? [] : [outputText(text)], role: 'assistant' };
}

export function functionCallItem(id: string, status: ItemStatus, callId: string, name: string, args: string): Json {
  return { id, type: 'function_call', status, arguments: args, call_id: callId, name };
}

export function customCallItem(id: string, status: ItemStatus, callId: string, name: string, input: string): Json {
  return { id, type: 'custom_tool_call', status, call_id: callId, name, input };
}

/** Whether the caller declared `name` as a free-form (custom) tool. */
export function isCustomTool(req: ChatRequest, name: string): boolean {
  return req.tools.some((t) => t.custom === true && t.name === name);
}

/**
 * A custom tool's input from canonical arguments, which other formats produce as `{"input": …}`
 * (the function the tool becomes there). Arguments of another shape (cut off by the output
 * limit, say) are passed on as their text, so nothing the model wrote is lost.
 */
export function customInput(args: string): string {
  try {
    const v: unknown = JSON.parse(args);
    if (isObject(v) && typeof v.input === 'string') return v.input;
  } catch {
    // not JSON: the text as it is
  }
  return args;
}

/** Canonical arguments of a custom tool call (the inverse of customInput). */
export function customArguments(input: string): string {
  return JSON.stringify({ input });
}
