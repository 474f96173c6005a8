/**
 * OpenAI chat-completions request → canonical ChatRequest, validating what the gateway relies on
 * and naming the field at fault. Unknown top-level fields are allowed: they pass through when the
 * upstream speaks the same format and are listed in `unmapped` (see unmapped-fields.ts).
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */

import type { ChatMessage, ChatRequest, ContentPart, ToolChoice, ToolSpec } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { findUnmappedFields } from './unmapped-fields.js';

type Json = Record<string, unknown>;

function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optNumber(body: Json, field: string, min: number, max: number): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
    throw invalid(field, `'${field}' must be a number between ${min} and ${max}.`);
  }
  return v;
}

export function decodeOpenaiRequest(body: unknown): ChatRequest {
  if (!isObject(body)) throw invalid('', 'The request body must be a JSON object.');
  const model = body.model;
  if (typeof model !== 'string' || model.length === 0) throw invalid('model', "'model' is required and must be a string.");
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw invalid('messages', "'messages' is required and must be a non-empty array.");
  }
  const system: ContentPart[] = [];
  const messages: ChatMessage[] = [];
  body.messages.forEach((m, i) => decodeMessage(m, `messages[${i}]`, system, messages));

  const stream = body.stream === undefined || body.stream === null ? false : body.stream;
  if (typeof stream !== 'boolean') throw invalid('stream', "'stream' must be a boolean.");
  const streamOptions = body.stream_options;
  if (streamOptions !== undefined && streamOptions !== null && !isObject(streamOptions)) {
    throw invalid('stream_options', "'stream_options' must be an object.");
  }
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null && (!Number.isInteger(maxTokens) || (maxTokens as number) < 1)) {
    throw invalid(body.max_completion_tokens !== undefined ? 'max_completion_tokens' : 'max_tokens', "'max_tokens' must be a positive integer.");
  }
  const stop = body.stop;
  let stops: string[] | undefined;
  if (typeof stop === 'string') stops = [stop];
  else if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) stops = stop as string[];
  else if (stop !== undefined && stop !== null) throw invalid('stop', "'stop' must be a string or an array of strings.");

  const unmapped = findUnmappedFields(body);
  const reasoning = decodeReasoningEffort(body.reasoning_effort, unmapped);

  return {
    model,
    system,
    messages,
    tools: decodeTools(body.tools),
    toolChoice: decodeToolChoice(body.tool_choice),
    parallelToolCalls: typeof body.parallel_tool_calls === 'boolean' ? body.parallel_tool_calls : undefined,
    maxTokens: (maxTokens as number | undefined) ?? undefined,
    temperature: optNumber(body, 'temperature', 0, 2),
    topP: optNumber(body, 'top_p', 0, 1),
    stop: stops,
    stream,
    includeUsage: isObject(streamOptions) && streamOptions.include_usage === true,
    user: typeof body.user === 'string' ? body.user : undefined,
    ...(reasoning ? { reasoning } : {}),
    unmapped,
  };
}

const EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;

/**
 * `reasoning_effort` → canonical effort. `none` means no reasoning (the canonical default). Any
 * other string (a newer level such as `xhigh`) is not refused, since an OpenAI upstream may accept
 * it, but it is marked unmapped so translation refuses it.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-reasoning_effort
 */
function decodeReasoningEffort(v: unknown, unmapped: string[]): ChatRequest['reasoning'] {
  if (v === undefined || v === null || v === 'none') return undefined;
  if (typeof v !== 'string') throw invalid('reasoning_effort', "'reasoning_effort' must be a string.");
  const effort = EFFORTS.find((e) => e === v);
  if (effort) return { effort };
  unmapped.push('reasoning_effort');
  return undefined;
}

function decodeMessage(m: unknown, at: string, system: ContentPart[], out: ChatMessage[]): void {
  if (!isObject(m)) throw invalid(at, `'${at}' must be an object.`);
  const role = m.role;
  switch (role) {
    case 'system':
    case 'developer':
      system.push(...decodeContent(m.content, `${at}.content`, false));
      return;
    case 'user':
      out.push({ role: 'user', content: decodeContent(m.content, `${at}.content`, true) });
      return;
    case 'assistant': {
      const content = m.content === null || m.content === undefined ? [] : decodeContent(m.content, `${at}.content`, false);
      if (Array.isArray(m.tool_calls)) {
        m.tool_calls.forEach((tc, j) => {
          const p = `${at}.tool_calls[${j}]`;
          const fn = isObject(tc) ? tc.function : undefined;
          if (!isObject(tc) || typeof tc.id !== 'string' || !isObject(fn) || typeof fn.name !== 'string') {
            throw invalid(p, `'${p}' must have an 'id' and a 'function' with a 'name'.`);
          }
          const args = typeof fn.arguments === 'string' ? fn.arguments : '{}';
          content.push({ type: 'tool_call', id: tc.id, name: fn.name, arguments: args });
        });
      } else if (m.tool_calls !== undefined && m.tool_calls !== null) {
        throw invalid(`${at}.tool_calls`, `'${at}.tool_calls' must be an array.`);
      }
      out.push({ role: 'assistant', content });
      return;
    }
    case 'tool': {
      if (typeof m.tool_call_id !== 'string') throw invalid(`${at}.tool_call_id`, `'${at}.tool_call_id' is required for a tool message.`);
      const result: ContentPart = { type: 'tool_result', toolCallId: m.tool_call_id, content: decodeContent(m.content, `${at}.content`, false) };
      // Consecutive tool results belong to one user turn in the canonical model.
      const last = out[out.length - 1];
      if (last && last.role === 'user' && last.content.every((c) => c.type === 'tool_result')) last.content.push(result);
      else out.push({ role: 'user', content: [result] });
      return;
    }
    default:
      throw invalid(`${at}.role`, `'${at}.role' must be one of system, developer, user, assistant, tool.`);
  }
}

function decodeContent(content: unknown, at: string, allowImages: boolean): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalid(at, `'${at}' must be a string or an array of content parts.`);
  return content.map((part, i): ContentPart => {
    const p = `${at}[${i}]`;
    if (!isObject(part)) throw invalid(p, `'${p}' must be an object.`);
    if (part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
    if (part.type === 'image_url' && allowImages) {
      const url = isObject(part.image_url) ? part.image_url.url : undefined;
      if (typeof url !== 'string') throw invalid(`${p}.image_url.url`, `'${p}.image_url.url' must be a string.`);
      const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
      return m ? { type: 'image', source: { kind: 'base64', mediaType: m[1], data: m[2] } } : { type: 'image', source: { kind: 'url', url } };
    }
    // Audio (`input_audio`) and `file` parts have no canonical form yet; refusing beats dropping them.
    throw invalid(`${p}.type`, `'${p}.type' ${JSON.stringify(part.type)} is not supported here.`);
  });
}

function decodeTools(tools: unknown): ToolSpec[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw invalid('tools', "'tools' must be an array.");
  return tools.map((t, i) => {
    const fn = isObject(t) ? t.function : undefined;
    if (!isObject(t) || t.type !== 'function' || !isObject(fn) || typeof fn.name !== 'string') {
      throw invalid(`tools[${i}]`, `'tools[${i}]' must be {type: "function", function: {name, parameters}}.`);
    }
    return {
      name: fn.name,
      description: typeof fn.description === 'string' ? fn.description : undefined,
      parameters: isObject(fn.parameters) ? fn.parameters : { type: 'object', properties: {} },
    };
  });
}

function decodeToolChoice(tc: unknown): ToolChoice | undefined {
  if (tc === undefined || tc === null) return undefined;
  if (tc === 'auto' || tc === 'none' || tc === 'required') return { type: tc };
  if (isObject(tc) && isObject(tc.function) && typeof tc.function.name === 'string') return { type: 'tool', name: tc.function.name };
  throw invalid('tool_choice', "'tool_choice' must be 'auto', 'none', 'required' or {type: 'function', function: {name}}.");
}
