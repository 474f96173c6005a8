/**
 * Canonical ChatRequest → Anthropic Messages body for an upstream that speaks this format (the
 * caller spoke another one). What cannot be carried is refused with a 400 naming it; what is
 * left out because it does not change the conversation's meaning is named in `dropped`:
 * - the request's hints, and reasoning parts without a signature (Anthropic refuses unsigned
 *   thinking blocks in the history; they are the model's scratch work, not dialogue);
 * - thinking, when the model cannot think, when a tool loop continues from an assistant turn that
 *   has no thinking block (Anthropic then refuses thinking; a chat-format caller cannot send one
 *   back), or when structured output forces a tool (Anthropic refuses thinking then);
 * - with thinking on, sampling settings Anthropic refuses with it (temperature other than 1,
 *   top_p below 0.95, top_k).
 * Empty text parts are left out silently (Anthropic rejects empty text blocks).
 * Mid-conversation system messages are appended to the top-level `system`, in order.
 * @see https://docs.anthropic.com/en/api/messages
 */

import { appendAll, flatMapArray } from '../../core/flat-map.js';
import { allSystemParts } from '../system-parts.js';
import { withoutGeminiSignatures } from '../gemini-tool-ids.js';
import type { ChatRequest, ContentPart, ResponseFormat, ToolChoice } from '../../core/canonical.js';
import { anthropicModelHasOutputFormat, anthropicModelThinks } from '../model-traits.js';
import {
  anthropicMaxTokens,
  DEFAULT_OUTPUT_CAP,
  EFFORT_BUDGET_TOKENS,
  MIN_THINKING_BUDGET,
  thinkingBudget,
} from '../output-cap.js';
import { isClosedSchema, OUTPUT_TOOL_NAME } from '../structured-output.js';
import type { EncodeTarget } from '../types.js';
import { invalid } from './request-decode.js';
import { toolArgumentsObject } from '../field-types.js';
import type { Json } from '../../core/json.js';

/** `max_tokens` when the caller gave none (OpenAI callers may omit it; Anthropic requires it). */
export const DEFAULT_MAX_TOKENS = DEFAULT_OUTPUT_CAP;
export { EFFORT_BUDGET_TOKENS };

export function encodeAnthropicRequest(
  request: ChatRequest,
  target: EncodeTarget,
  dropped: string[] = [],
): Record<string, unknown> {
  const req = withoutGeminiSignatures(request, dropped);
  if (req.unmapped.length > 0) {
    throw invalid(req.unmapped[0], `${req.unmapped.join(', ')} cannot be translated to the Anthropic messages format.`);
  }
  if (req.temperature !== undefined && req.temperature > 1) {
    throw invalid(
      'temperature',
      'temperature above 1 cannot be sent to an Anthropic-format model (its range is 0 to 1).',
    );
  }
  dropped.push(...(req.hints ?? []));
  // Never above the model's own limit (Anthropic refuses it).
  const maxTokens = Math.min(anthropicMaxTokens(req, target.maxOutputTokens), target.maxOutputTokens ?? Infinity);
  const out: Json = { model: target.model, max_tokens: maxTokens };
  const messages = encodeMessages(req, dropped);
  const system = encodeSystem(allSystemParts(req));
  if (system !== undefined) out.system = system;
  out.messages = messages;
  const tools: Json[] = req.tools.map((t) => ({
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    input_schema: t.parameters,
  }));
  let choice = tools.length > 0 ? encodeToolChoice(req.toolChoice, req.parallelToolCalls) : undefined;
  if (req.responseFormat) {
    const native = encodeOutputFormat(req.responseFormat, target, dropped);
    if (native) out.output_config = { format: native };
    else choice = addOutputTool(req.responseFormat, tools, choice, req.parallelToolCalls);
  }
  if (tools.length > 0) {
    out.tools = tools;
    // A tool_choice without tools is meaningless to Anthropic (and rejected), so it only goes with tools.
    if (choice) out.tool_choice = choice;
  }
  if (req.stop && req.stop.length > 0) out.stop_sequences = req.stop;
  const budget = thinkingFor(req, target, maxTokens, messages, choice, dropped);
  if (req.temperature !== undefined) {
    if (budget !== undefined && req.temperature !== 1) dropped.push('temperature');
    else out.temperature = req.temperature;
  }
  if (req.topP !== undefined) {
    if (budget !== undefined && req.topP < 0.95) dropped.push('top_p');
    else out.top_p = req.topP;
  }
  if (req.topK !== undefined) {
    if (budget !== undefined) dropped.push('top_k');
    else out.top_k = req.topK;
  }
  if (req.user !== undefined) out.metadata = { user_id: req.user };
  if (budget !== undefined) out.thinking = { type: 'enabled', budget_tokens: budget };
  if (req.stream) out.stream = true;
  return out;
}

/** The thinking budget to send, or undefined (the caller's reasoning, if any, named in `dropped`). */
function thinkingFor(
  req: ChatRequest,
  target: EncodeTarget,
  maxTokens: number,
  messages: Json[],
  choice: Json | undefined,
  dropped: string[],
): number | undefined {
  const wanted = thinkingBudget(req);
  if (wanted === undefined) return undefined;
  // Thinking counts in max_tokens and must leave room for the answer.
  const budget = Math.min(wanted, maxTokens - 1);
  const forced = choice?.type === 'any' || choice?.type === 'tool';
  if (
    !anthropicModelThinks(target.model, target.reasoning) ||
    budget < MIN_THINKING_BUDGET ||
    forced ||
    continuesToolLoopWithoutThinking(messages)
  ) {
    dropped.push(...(req.reasoning?.fields ?? ['reasoning']));
    return undefined;
  }
  return budget;
}

/** The request ends with tool results answering an assistant turn that does not start with a thinking block. */
function continuesToolLoopWithoutThinking(messages: Json[]): boolean {
  const last = messages[messages.length - 1];
  const prev = messages[messages.length - 2];
  if (!last || !prev || last.role !== 'user' || prev.role !== 'assistant') return false;
  const results = (last.content as Json[]).some((b) => b.type === 'tool_result');
  const first = (prev.content as Json[])[0];
  return results && first?.type !== 'thinking' && first?.type !== 'redacted_thinking';
}

/**
 * Native structured output (`output_config.format`) when the model has it and the schema is one
 * it accepts (every object closed); undefined otherwise (the forced tool answers instead).
 */
function encodeOutputFormat(f: ResponseFormat, target: EncodeTarget, dropped: string[]): Json | undefined {
  if (f.type !== 'json_schema' || !anthropicModelHasOutputFormat(target.model) || !isClosedSchema(f.schema))
    return undefined;
  if (f.description !== undefined) dropped.push('response_format.json_schema.description');
  return { type: 'json_schema', schema: f.schema };
}

/**
 * Structured output through a tool the model must call (structured-output.ts turns the call back
 * into JSON text). With the caller's own tools, the model must call one of them or the output tool.
 */
function addOutputTool(
  f: ResponseFormat,
  tools: Json[],
  choice: Json | undefined,
  parallel: boolean | undefined,
): Json {
  if (tools.some((t) => t.name === OUTPUT_TOOL_NAME)) {
    throw invalid(
      'tools',
      `A tool named "${OUTPUT_TOOL_NAME}" cannot be combined with structured output on this model ` +
        '(the gateway uses that name to carry it).',
    );
  }
  const hadTools = tools.length > 0;
  const description =
    f.type === 'json_schema' && f.description !== undefined ? f.description : 'Give the answer as this JSON object.';
  tools.push({
    name: OUTPUT_TOOL_NAME,
    description,
    input_schema: f.type === 'json_schema' ? f.schema : { type: 'object' },
  });
  const keep = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice?.type === 'tool') return choice;
  if (hadTools && choice?.type !== 'none') return { type: 'any', ...keep };
  return { type: 'tool', name: OUTPUT_TOOL_NAME, ...keep };
}

/** A lone text part becomes the plain string form, which every Anthropic-compatible host accepts. */
function encodeSystem(system: ContentPart[]): string | Json[] | undefined {
  const blocks = system
    .map((p, i) => {
      if (p.type !== 'text')
        throw invalid(
          'system',
          `system part ${i} (${p.type}) cannot be sent to an Anthropic-format model; only text can.`,
        );
      return p.text;
    })
    .filter((t) => t.length > 0);
  if (blocks.length === 0) return undefined;
  if (blocks.length === 1) return blocks[0];
  return blocks.map((text) => ({ type: 'text', text }));
}

/**
 * Anthropic wants alternating turns with tool results first in their user turn: consecutive
 * messages of one role are merged (as Anthropic itself would combine them) and, within a user
 * turn, tool_result blocks are moved before other blocks, keeping each group's order. A history
 * that opens with an assistant turn is sent as it is; the upstream decides whether it accepts it.
 */
function encodeMessages(req: ChatRequest, dropped: string[]): Json[] {
  const out: Array<{ role: 'user' | 'assistant'; content: Json[] }> = [];
  req.messages.forEach((m, i) => {
    if (m.role === 'system') return; // hoisted into `system`
    const role = m.role;
    const blocks = flatMapArray(m.content, (part) => encodePart(part, `messages[${i}]`, dropped));
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) appendAll(last.content, blocks);
    else out.push({ role, content: blocks });
  });
  if (out.length === 0)
    throw invalid('messages', 'The conversation has no content that can be sent to an Anthropic-format model.');
  for (const m of out) {
    if (m.role === 'user')
      m.content = [
        ...m.content.filter((b) => b.type === 'tool_result'),
        ...m.content.filter((b) => b.type !== 'tool_result'),
      ];
  }
  return out;
}

function encodePart(part: ContentPart, at: string, dropped: string[]): Json[] {
  switch (part.type) {
    case 'text':
      return part.text.length > 0 ? [{ type: 'text', text: part.text }] : [];
    case 'image':
      return [encodeImage(part)];
    case 'tool_call':
      return [{ type: 'tool_use', id: part.id, name: part.name, input: toolArgumentsObject(part, at) }];
    case 'tool_result': {
      const block: Json = { type: 'tool_result', tool_use_id: part.toolCallId };
      const content = encodeResultContent(part.content, at);
      if (content !== undefined) block.content = content;
      if (part.isError) block.is_error = true;
      return [block];
    }
    case 'reasoning':
      if (part.redacted !== undefined) return [{ type: 'redacted_thinking', data: part.redacted }];
      if (part.signature) return [{ type: 'thinking', thinking: part.text, signature: part.signature }];
      if (!dropped.includes('messages.thinking')) dropped.push('messages.thinking');
      return [];
  }
}

function encodeImage(part: Extract<ContentPart, { type: 'image' }>): Json {
  const s = part.source;
  return {
    type: 'image',
    source: s.kind === 'url' ? { type: 'url', url: s.url } : { type: 'base64', media_type: s.mediaType, data: s.data },
  };
}

function encodeResultContent(parts: ContentPart[], at: string): string | Json[] | undefined {
  const blocks = flatMapArray(parts, (p): Json[] => {
    if (p.type === 'text') return p.text.length > 0 ? [{ type: 'text', text: p.text }] : [];
    if (p.type === 'image') return [encodeImage(p)];
    throw invalid(
      at,
      `A tool result in ${at} contains ${p.type} content, which an Anthropic tool result cannot carry.`,
    );
  });
  if (blocks.length === 0) return undefined;
  if (blocks.length === 1 && blocks[0].type === 'text') return blocks[0].text as string;
  return blocks;
}

function encodeToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined): Json | undefined {
  let out: Json | undefined;
  switch (choice?.type) {
    case undefined:
      break;
    case 'auto':
    case 'none':
      out = { type: choice.type };
      break;
    case 'required':
      out = { type: 'any' };
      break;
    case 'tool':
      out = { type: 'tool', name: choice.name };
      break;
  }
  // Anthropic spells "no parallel calls" on tool_choice; "none" has nothing to parallelise.
  if (parallel === false && out?.type !== 'none')
    out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}
