/**
 * Canonical ChatRequest → Anthropic Messages body for an upstream that speaks this format (the
 * caller spoke another one). What cannot be carried is refused with a 400 naming it; the only
 * content intentionally left out is listed here:
 * - reasoning parts without a signature (from another provider's reasoning): Anthropic rejects
 *   unsigned thinking blocks in the history, and they are the model's scratch work, not dialogue;
 * - empty text parts (Anthropic rejects empty text blocks) and messages left empty by the above.
 * @see https://docs.anthropic.com/en/api/messages
 */

import type { ChatRequest, ContentPart, ToolChoice } from '../../core/canonical.js';
import { anthropicMaxTokens, DEFAULT_OUTPUT_CAP, EFFORT_BUDGET_TOKENS, thinkingBudget } from '../output-cap.js';
import type { EncodeTarget } from '../types.js';
import { invalid, isObject } from './request-decode.js';

type Json = Record<string, unknown>;

/** `max_tokens` when the caller gave none (OpenAI callers may omit it; Anthropic requires it). */
export const DEFAULT_MAX_TOKENS = DEFAULT_OUTPUT_CAP;
export { EFFORT_BUDGET_TOKENS };

export function encodeAnthropicRequest(req: ChatRequest, target: EncodeTarget): Record<string, unknown> {
  if (req.unmapped.length > 0) {
    throw invalid(req.unmapped[0], `${req.unmapped.join(', ')} cannot be translated to the Anthropic messages format.`);
  }
  if (req.temperature !== undefined && req.temperature > 1) {
    throw invalid('temperature', 'temperature above 1 cannot be sent to an Anthropic-format model (its range is 0 to 1).');
  }
  const budget = thinkingBudget(req);
  const out: Json = { model: target.model, max_tokens: anthropicMaxTokens(req, target.maxOutputTokens) };
  const system = encodeSystem(req.system);
  if (system !== undefined) out.system = system;
  out.messages = encodeMessages(req);
  if (req.tools.length > 0) {
    out.tools = req.tools.map((t) => ({ name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), input_schema: t.parameters }));
    // A tool_choice without tools is meaningless to Anthropic (and rejected), so it only goes with tools.
    const choice = encodeToolChoice(req.toolChoice, req.parallelToolCalls);
    if (choice) out.tool_choice = choice;
  }
  if (req.stop && req.stop.length > 0) out.stop_sequences = req.stop;
  if (req.temperature !== undefined) out.temperature = req.temperature;
  if (req.topP !== undefined) out.top_p = req.topP;
  if (req.topK !== undefined) out.top_k = req.topK;
  if (req.user !== undefined) out.metadata = { user_id: req.user };
  if (budget !== undefined) out.thinking = { type: 'enabled', budget_tokens: budget };
  if (req.stream) out.stream = true;
  return out;
}

/** A lone text part becomes the plain string form, which every Anthropic-compatible host accepts. */
function encodeSystem(system: ContentPart[]): string | Json[] | undefined {
  const blocks = system.map((p, i) => {
    if (p.type !== 'text') throw invalid('system', `system part ${i} (${p.type}) cannot be sent to an Anthropic-format model; only text can.`);
    return p.text;
  }).filter((t) => t.length > 0);
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
function encodeMessages(req: ChatRequest): Json[] {
  const out: Array<{ role: 'user' | 'assistant'; content: Json[] }> = [];
  req.messages.forEach((m, i) => {
    const blocks = m.content.flatMap((part) => encodePart(part, `messages[${i}]`));
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === m.role) last.content.push(...blocks);
    else out.push({ role: m.role, content: blocks });
  });
  if (out.length === 0) throw invalid('messages', 'The conversation has no content that can be sent to an Anthropic-format model.');
  for (const m of out) {
    if (m.role === 'user') m.content = [...m.content.filter((b) => b.type === 'tool_result'), ...m.content.filter((b) => b.type !== 'tool_result')];
  }
  return out;
}

function encodePart(part: ContentPart, at: string): Json[] {
  switch (part.type) {
    case 'text':
      return part.text.length > 0 ? [{ type: 'text', text: part.text }] : [];
    case 'image':
      return [encodeImage(part)];
    case 'tool_call':
      return [{ type: 'tool_use', id: part.id, name: part.name, input: parseArguments(part, at) }];
    case 'tool_result': {
      const block: Json = { type: 'tool_result', tool_use_id: part.toolCallId };
      const content = encodeResultContent(part.content, at);
      if (content !== undefined) block.content = content;
      if (part.isError) block.is_error = true;
      return [block];
    }
    case 'reasoning':
      return part.signature ? [{ type: 'thinking', thinking: part.text, signature: part.signature }] : [];
  }
}

function encodeImage(part: Extract<ContentPart, { type: 'image' }>): Json {
  const s = part.source;
  return { type: 'image', source: s.kind === 'url' ? { type: 'url', url: s.url } : { type: 'base64', media_type: s.mediaType, data: s.data } };
}

/** Tool input must be a JSON object upstream; arguments from other formats are JSON text. */
function parseArguments(part: Extract<ContentPart, { type: 'tool_call' }>, at: string): Json {
  if (part.arguments.trim() === '') return {};
  let input: unknown;
  try {
    input = JSON.parse(part.arguments);
  } catch {
    input = undefined;
  }
  if (!isObject(input)) throw invalid(at, `Tool call "${part.name}" (${part.id}) in ${at} has arguments that are not a JSON object.`);
  return input;
}

function encodeResultContent(parts: ContentPart[], at: string): string | Json[] | undefined {
  const blocks = parts.flatMap((p): Json[] => {
    if (p.type === 'text') return p.text.length > 0 ? [{ type: 'text', text: p.text }] : [];
    if (p.type === 'image') return [encodeImage(p)];
    throw invalid(at, `A tool result in ${at} contains ${p.type} content, which an Anthropic tool result cannot carry.`);
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
  if (parallel === false && out?.type !== 'none') out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}
