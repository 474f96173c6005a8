/**
 * Canonical ChatRequest → OpenAI chat-completions body for an upstream that speaks this format
 * (OpenAI itself or an OpenAI-compatible server such as vLLM or Ollama). What the chat format
 * cannot carry is refused with a 400 naming it; what is left out because it does not change the
 * conversation's meaning is named in `dropped` (README, "Translation between the two formats").
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */

import { withoutGeminiSignatures } from '../gemini-tool-ids.js';
import { createHash } from 'node:crypto';
import type {
  ChatMessage,
  ChatRequest,
  ContentPart,
  ImageSource,
  ResponseFormat,
  ToolChoice,
} from '../../core/canonical.js';
import { openaiModelReasons } from '../model-traits.js';
import { defaultOutputCap } from '../output-cap.js';
import { isOpenaiStrictSchema } from '../structured-output.js';
import { invalid } from '../field-types.js';
import type { EncodeTarget } from '../types.js';
import type { Json } from '../../core/json.js';

type TextOrImagePart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/** OpenAI's limit on `user`; a longer id is sent as its SHA-256 (64 hex digits), still one per user. */
const MAX_USER_LENGTH = 64;

/** The end-user id as OpenAI takes it (both OpenAI formats share the limit). */
export function openaiUser(user: string): string {
  return user.length > MAX_USER_LENGTH ? createHash('sha256').update(user).digest('hex') : user;
}

export function encodeOpenaiRequest(request: ChatRequest, target: EncodeTarget, dropped: string[] = []): Json {
  const req = withoutGeminiSignatures(request, dropped);
  if (req.topK !== undefined) throw invalid('top_k', 'top_k cannot be sent to an OpenAI-format model.');
  if (req.unmapped.length > 0) {
    const names = req.unmapped.join(', ');
    throw invalid(req.unmapped[0], `The field(s) ${names} cannot be translated to the OpenAI chat format.`);
  }
  dropped.push(...(req.hints ?? []));
  const reasons = openaiModelReasons(target.model, target.reasoning);

  const body: Json = { model: target.model, messages: encodeMessages(req, dropped) };
  if (req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        parameters: t.parameters,
      },
    }));
  }
  // OpenAI rejects tool_choice and parallel_tool_calls on a request without tools (Codex sends
  // `tool_choice: auto` with `tools: []` when it compacts a conversation).
  if (req.toolChoice && req.tools.length > 0) body.tool_choice = encodeToolChoice(req.toolChoice);
  if (req.parallelToolCalls !== undefined && req.tools.length > 0) body.parallel_tool_calls = req.parallelToolCalls;
  // Always a limit (a Responses caller may set none): the upstream cannot bill past what budgets
  // reserved. Never above the model's own limit (the reply cannot be longer anyway, and OpenAI
  // refuses it). Reasoning models take only `max_completion_tokens`; `max_tokens` is what every
  // OpenAI-compatible server knows.
  body[reasons ? 'max_completion_tokens' : 'max_tokens'] = outputLimit(req, target);
  encodeSampling(body, req, reasons, dropped);
  if (req.stop !== undefined && req.stop.length > 0) body.stop = req.stop;
  if (req.user !== undefined) body.user = openaiUser(req.user);
  if (req.reasoning) {
    // A model that does not reason refuses reasoning_effort: the caller's thinking is dropped.
    if (!reasons) dropped.push(...(req.reasoning.fields ?? ['reasoning']));
    else {
      const effort = openaiReasoningEffort(req.reasoning);
      if (effort) body.reasoning_effort = effort;
    }
  }
  if (req.responseFormat) body.response_format = encodeResponseFormat(req.responseFormat);
  if (req.stream) {
    body.stream = true;
    // The gateway always wants usage (budgets, logs), whatever the caller asked for.
    body.stream_options = { include_usage: true };
  }
  return body;
}

/**
 * An explicit effort wins (OpenAI `reasoning_effort`, Anthropic `output_config.effort`); a
 * thinking budget (Anthropic `thinking.budget_tokens`) becomes an effort by bucket: ≤ 2048 low,
 * ≤ 8192 medium, above that high. Adaptive thinking alone leaves the model's default effort.
 */
export function openaiReasoningEffort(r: ChatRequest['reasoning']): string | undefined {
  if (!r) return undefined;
  if (r.effort) return r.effort;
  if (r.budgetTokens === undefined) return undefined;
  if (r.budgetTokens <= 2048) return 'low';
  return r.budgetTokens <= 8192 ? 'medium' : 'high';
}

/**
 * `strict: true` only for a schema OpenAI accepts in strict mode (every object closed, every
 * property required); otherwise the schema guides the reply without constraining decoding.
 */
function encodeResponseFormat(f: ResponseFormat): Json {
  if (f.type === 'json_object') return { type: 'json_object' };
  const js: Json = { name: f.name ?? 'response' };
  if (f.description !== undefined) js.description = f.description;
  js.schema = f.schema;
  js.strict = f.strict ?? isOpenaiStrictSchema(f.schema);
  return { type: 'json_schema', json_schema: js };
}

function encodeToolChoice(tc: ToolChoice): unknown {
  return tc.type === 'tool' ? { type: 'function', function: { name: tc.name } } : tc.type;
}

/** The system prompt first; a mid-conversation system message stays a `system` message at its place. */
function encodeMessages(req: ChatRequest, dropped: string[]): Json[] {
  const out: Json[] = [];
  if (req.system.length > 0) out.push(encodeSystem(req.system, 'system'));
  req.messages.forEach((m, i) => {
    if (m.role === 'user') encodeUserTurn(m, `messages[${i}]`, out);
    else if (m.role === 'system') {
      if (m.content.length > 0) out.push(encodeSystem(m.content, `messages[${i}]`));
    } else out.push(encodeAssistantTurn(m, `messages[${i}]`, dropped));
  });
  return out;
}

function encodeSystem(content: ContentPart[], at: string): Json {
  const parts = content.map((p, i) => {
    if (p.type !== 'text')
      throw invalid(`${at}[${i}]`, `A system prompt part of type '${p.type}' cannot be sent to an OpenAI chat model.`);
    return { type: 'text' as const, text: p.text };
  });
  return { role: 'system', content: parts.length === 1 ? parts[0].text : parts };
}

/**
 * A user turn becomes its tool results first (one `role: tool` message each, in order, right
 * after the assistant's tool calls as OpenAI requires), then a user message with the rest.
 */
function encodeUserTurn(m: ChatMessage, at: string, out: Json[]): void {
  const rest: TextOrImagePart[] = [];
  m.content.forEach((part, j) => {
    const p = `${at}.content[${j}]`;
    switch (part.type) {
      case 'tool_result':
        // `isError` has no field in the chat format; the text itself says what went wrong.
        out.push({ role: 'tool', tool_call_id: part.toolCallId, content: toolResultText(part.content, p) });
        break;
      case 'text':
        rest.push({ type: 'text', text: part.text });
        break;
      case 'image':
        rest.push({ type: 'image_url', image_url: { url: imageUrl(part.source) } });
        break;
      default:
        throw invalid(p, `A user message part of type '${part.type}' cannot be sent to an OpenAI chat model.`);
    }
  });
  if (rest.length === 0) return;
  const only = rest[0];
  out.push({ role: 'user', content: rest.length === 1 && only.type === 'text' ? only.text : rest });
}

/** Chat-format tool messages carry text only. */
function toolResultText(content: ContentPart[], at: string): string {
  return content
    .map((c, k) => {
      if (c.type === 'text') return c.text;
      throw invalid(
        `${at}.content[${k}]`,
        `Tool result '${at}' contains ${c.type === 'image' ? 'an image' : `a '${c.type}' part`}; ` +
          'OpenAI chat tool messages carry text only.',
      );
    })
    .join('\n');
}

/**
 * Assistant history: text + tool calls. Reasoning from earlier turns (thinking and
 * redacted_thinking blocks) is dropped and listed: the chat format has no request field for it
 * (OpenAI keeps its own reasoning server-side; compatible servers ignore it).
 */
function encodeAssistantTurn(m: ChatMessage, at: string, dropped: string[]): Json {
  let text = '';
  const toolCalls: Json[] = [];
  m.content.forEach((part, j) => {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'tool_call')
      toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
    else if (part.type === 'reasoning') {
      const name = part.redacted !== undefined ? 'messages.redacted_thinking' : 'messages.thinking';
      if (!dropped.includes(name)) dropped.push(name);
    } else {
      throw invalid(
        `${at}.content[${j}]`,
        `An assistant message part of type '${part.type}' cannot be sent to an OpenAI chat model.`,
      );
    }
  });
  const msg: Json = { role: 'assistant', content: text.length === 0 && toolCalls.length > 0 ? null : text };
  if (toolCalls.length > 0) msg.tool_calls = toolCalls;
  return msg;
}

function imageUrl(src: ImageSource): string {
  return src.kind === 'url' ? src.url : `data:${src.mediaType};base64,${src.data}`;
}

/** The output limit an OpenAI request always carries: the caller's, else the default cap; never above the model's. */
export function outputLimit(req: ChatRequest, target: EncodeTarget): number {
  return Math.min(req.maxTokens ?? defaultOutputCap(target.maxOutputTokens), target.maxOutputTokens ?? Infinity);
}

/** `temperature` and `top_p`: reasoning models sample at their own and refuse another value (dropped, listed). */
export function encodeSampling(body: Json, req: ChatRequest, reasons: boolean, dropped: string[]): void {
  if (req.temperature !== undefined) {
    if (reasons && req.temperature !== 1) dropped.push('temperature');
    else body.temperature = req.temperature;
  }
  if (req.topP !== undefined) {
    if (reasons && req.topP !== 1) dropped.push('top_p');
    else body.top_p = req.topP;
  }
}
