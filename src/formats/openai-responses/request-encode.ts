/**
 * Canonical ChatRequest → OpenAI Responses body for an upstream that speaks this format (the
 * caller spoke another one). What the format cannot carry is refused with a 400 naming it; what
 * is left out because it does not change the conversation's meaning is named in `dropped`:
 * - the request's hints; reasoning from earlier turns that is not OpenAI's own (only an item
 *   with `encrypted_content` can be sent back: the upstream keeps no state, `store: false`);
 * - on a reasoning model, the caller's reasoning when the model does not reason, and sampling
 *   settings it refuses (temperature and top_p other than 1), as the chat encoder does.
 * The upstream is asked not to store anything (a translated caller's state is the gateway's) and,
 * on a reasoning model, to return its reasoning encrypted, so the next turn can send it back.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */

import { flatMapArray } from '../../core/flat-map.js';
import { withoutGeminiSignatures } from '../gemini-tool-ids.js';
import type { ChatMessage, ChatRequest, ContentPart, ResponseFormat, ToolChoice } from '../../core/canonical.js';
import type { Json } from '../../core/json.js';
import { invalid } from '../field-types.js';
import { openaiModelReasons } from '../model-traits.js';
import { encodeSampling, openaiReasoningEffort, openaiUser, outputLimit } from '../openai-chat/request-encode.js';
import { isOpenaiStrictSchema } from '../structured-output.js';
import type { EncodeTarget } from '../types.js';
import { customInput, isCustomTool } from './output-items.js';

export function encodeResponsesRequest(request: ChatRequest, target: EncodeTarget, dropped: string[] = []): Json {
  const req = withoutGeminiSignatures(request, dropped);
  if (req.topK !== undefined) throw invalid('top_k', 'top_k cannot be sent to an OpenAI Responses model.');
  if (req.unmapped.length > 0) {
    const names = req.unmapped.join(', ');
    throw invalid(req.unmapped[0], `The field(s) ${names} cannot be translated to the OpenAI Responses format.`);
  }
  if (req.stop !== undefined && req.stop.length > 0)
    throw invalid('stop', 'Stop sequences cannot be sent to an OpenAI Responses model (the format has none).');
  dropped.push(...(req.hints ?? []));
  const reasons = openaiModelReasons(target.model, target.reasoning);

  const body: Json = { model: target.model };
  const instructions = systemText(req.system, 'system');
  if (instructions !== undefined) body.instructions = instructions;
  body.input = encodeInput(req, dropped);
  if (req.tools.length > 0) {
    body.tools = req.tools.map((t) =>
      t.custom
        ? { type: 'custom', name: t.name, ...(t.description !== undefined ? { description: t.description } : {}) }
        : {
            type: 'function',
            name: t.name,
            ...(t.description !== undefined ? { description: t.description } : {}),
            parameters: t.parameters,
            // The Responses API makes function tools strict by default; the other formats' are not.
            strict: false,
          },
    );
    // Only with tools: a tool_choice without them is meaningless (and refused).
    if (req.toolChoice) body.tool_choice = encodeToolChoice(req.toolChoice, req);
    if (req.parallelToolCalls !== undefined) body.parallel_tool_calls = req.parallelToolCalls;
  }
  if (req.responseFormat) body.text = { format: encodeFormat(req.responseFormat) };
  if (req.reasoning) {
    // A model that does not reason refuses `reasoning`: the caller's thinking is dropped.
    if (!reasons) dropped.push(...(req.reasoning.fields ?? ['reasoning']));
    else {
      const effort = openaiReasoningEffort(req.reasoning);
      if (effort) body.reasoning = { effort };
    }
  }
  // Always a limit, never above the model's own: the upstream cannot bill past what budgets reserved.
  body.max_output_tokens = outputLimit(req, target);
  encodeSampling(body, req, reasons, dropped);
  if (req.user !== undefined) body.user = openaiUser(req.user);
  body.store = false;
  if (reasons) body.include = ['reasoning.encrypted_content'];
  if (req.stream) body.stream = true;
  return body;
}

/** Text parts only, joined as paragraphs; undefined when there are none. */
function systemText(content: ContentPart[], at: string): string | undefined {
  const texts = content.map((p, i) => {
    if (p.type !== 'text')
      throw invalid(`${at}[${i}]`, `A system part of type '${p.type}' cannot be sent to an OpenAI Responses model.`);
    return p.text;
  });
  return texts.length === 0 ? undefined : texts.join('\n\n');
}

function encodeToolChoice(tc: ToolChoice, req: ChatRequest): unknown {
  if (tc.type !== 'tool') return tc.type;
  return { type: isCustomTool(req, tc.name) ? 'custom' : 'function', name: tc.name };
}

/** `strict: true` only for a schema OpenAI accepts in strict mode, as in the chat format. */
function encodeFormat(f: ResponseFormat): Json {
  if (f.type === 'json_object') return { type: 'json_object' };
  return {
    type: 'json_schema',
    name: f.name ?? 'response',
    ...(f.description !== undefined ? { description: f.description } : {}),
    schema: f.schema,
    strict: f.strict ?? isOpenaiStrictSchema(f.schema),
  };
}

/**
 * The conversation as items, in order: a user turn's tool results first (each a
 * `function_call_output`, or `custom_tool_call_output` for a custom tool's call), then its
 * message; an assistant turn's parts in their order (reasoning items, messages, calls); a
 * mid-conversation system message as a `system` message at its place.
 */
function encodeInput(req: ChatRequest, dropped: string[]): Json[] {
  const customCalls = new Set(
    flatMapArray(req.messages, (m) =>
      flatMapArray(m.content, (p) => (p.type === 'tool_call' && isCustomTool(req, p.name) ? [p.id] : [])),
    ),
  );
  const out: Json[] = [];
  req.messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    if (m.role === 'user') encodeUserTurn(m, at, customCalls, out);
    else if (m.role === 'system') {
      const text = systemText(m.content, `${at}.content`);
      if (text !== undefined) out.push(message('system', [{ type: 'input_text', text }]));
    } else encodeAssistantTurn(m, at, req, dropped, out);
  });
  return out;
}

function message(role: string, content: Json[]): Json {
  return { type: 'message', role, content };
}

function encodeUserTurn(m: ChatMessage, at: string, customCalls: Set<string>, out: Json[]): void {
  const rest: Json[] = [];
  m.content.forEach((part, j) => {
    const p = `${at}.content[${j}]`;
    if (part.type === 'tool_result') {
      // `isError` has no field in this format; the output itself says what went wrong.
      out.push({
        type: customCalls.has(part.toolCallId) ? 'custom_tool_call_output' : 'function_call_output',
        call_id: part.toolCallId,
        output: toolOutput(part.content, p),
      });
    } else if (part.type === 'text' || part.type === 'image') rest.push(inputPart(part));
    else throw invalid(p, `A user message part of type '${part.type}' cannot be sent to an OpenAI Responses model.`);
  });
  if (rest.length > 0) out.push(message('user', rest));
}

function inputPart(part: Extract<ContentPart, { type: 'text' | 'image' }>): Json {
  if (part.type === 'text') return { type: 'input_text', text: part.text };
  const s = part.source;
  const url = s.kind === 'url' ? s.url : `data:${s.mediaType};base64,${s.data}`;
  return { type: 'input_image', image_url: url, detail: 'auto' };
}

/** A lone text is sent as a string; text and images as a list of input parts. */
function toolOutput(content: ContentPart[], at: string): string | Json[] {
  const parts = content.map((c, k) => {
    if (c.type === 'text' || c.type === 'image') return inputPart(c);
    throw invalid(
      `${at}.content[${k}]`,
      `A tool result part of type '${c.type}' cannot be sent to an OpenAI Responses model.`,
    );
  });
  if (parts.length === 0) return '';
  return parts.length === 1 && parts[0].type === 'input_text' ? (parts[0].text as string) : parts;
}

/**
 * Assistant history. Reasoning goes up only in OpenAI's own form (an item with
 * `encrypted_content`); other reasoning (Anthropic-signed, or readable only) is dropped and listed.
 */
function encodeAssistantTurn(m: ChatMessage, at: string, req: ChatRequest, dropped: string[], out: Json[]): void {
  let text: Json[] | undefined;
  m.content.forEach((part, j) => {
    if (part.type === 'text') {
      if (text === undefined) {
        text = [];
        out.push(message('assistant', text));
      }
      text.push({ type: 'output_text', text: part.text });
      return;
    }
    text = undefined;
    if (part.type === 'tool_call') {
      out.push(
        isCustomTool(req, part.name)
          ? { type: 'custom_tool_call', call_id: part.id, name: part.name, input: customInput(part.arguments) }
          : { type: 'function_call', call_id: part.id, name: part.name, arguments: part.arguments },
      );
    } else if (part.type === 'reasoning') {
      if (part.encrypted !== undefined) {
        out.push({
          type: 'reasoning',
          ...(part.id !== undefined ? { id: part.id } : {}),
          summary: part.text.length > 0 ? [{ type: 'summary_text', text: part.text }] : [],
          encrypted_content: part.encrypted,
        });
      } else {
        const name = part.redacted !== undefined ? 'messages.redacted_thinking' : 'messages.thinking';
        if (!dropped.includes(name)) dropped.push(name);
      }
    } else {
      throw invalid(
        `${at}.content[${j}]`,
        `An assistant message part of type '${part.type}' cannot be sent to an OpenAI Responses model.`,
      );
    }
  });
}
