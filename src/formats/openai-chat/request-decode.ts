/**
 * OpenAI chat-completions request → canonical ChatRequest, validating what the gateway relies on
 * and naming the field at fault. Documented fields are checked for type and shape; values the
 * gateway does not know (a top-level field, a role, a content-part, tool or tool_choice type) are
 * not judged: they pass through when the upstream speaks the same format and are listed in
 * `unmapped` (see unmapped-fields.ts), so translation refuses them by name.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */

import { appendAll } from '../../core/flat-map.js';
import type {
  ChatMessage,
  ChatRequest,
  ContentPart,
  ReasoningEffort,
  ResponseFormat,
  ToolChoice,
  ToolSpec,
} from '../../core/canonical.js';
import {
  invalid,
  isFiniteNumber,
  isObject,
  isString,
  optArray,
  optArrayOf,
  optBoolean,
  optNumber,
  optObject,
  optRecordOf,
  optString,
} from '../field-types.js';
import { MAX_CHOICES, MAX_TOKENS_LIMIT } from '../output-cap.js';
import { findHintFields, findUnmappedFields } from './unmapped-fields.js';
import type { Json } from '../../core/json.js';

/**
 * Documented fields the canonical model does not carry, checked for their type only (pass-through
 * forwards them; translation refuses non-default ones, see unmapped-fields.ts).
 */
function checkOtherFields(body: Json): void {
  optBoolean(body, 'logprobs');
  optNumber(body, 'top_logprobs', 0, Infinity, true);
  optNumber(body, 'frequency_penalty', -Infinity, Infinity);
  optNumber(body, 'presence_penalty', -Infinity, Infinity);
  optNumber(body, 'seed', -Infinity, Infinity, true);
  optRecordOf(body, 'logit_bias', 'a number', isFiniteNumber);
  optRecordOf(body, 'metadata', 'a string', isString);
  optBoolean(body, 'store');
  optString(body, 'service_tier');
  optArrayOf(body, 'modalities', 'a string', isString);
  optObject(body, 'prediction');
  optObject(body, 'audio');
  optObject(body, 'web_search_options');
  optString(body, 'prompt_cache_key');
  optString(body, 'safety_identifier');
  optString(body, 'verbosity');
  optArray(body, 'functions');
  const fc = body.function_call;
  if (fc !== undefined && fc !== null && typeof fc !== 'string' && !isObject(fc))
    throw invalid('function_call', "'function_call' must be a string or an object.");
}

/** `max_completion_tokens` and the older `max_tokens`; both sent: the larger bounds the reply. */
function decodeMaxTokens(body: Json): number | undefined {
  const a = optNumber(body, 'max_completion_tokens', 1, MAX_TOKENS_LIMIT, true);
  const b = optNumber(body, 'max_tokens', 1, MAX_TOKENS_LIMIT, true);
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}

export function decodeOpenaiRequest(body: unknown): ChatRequest {
  if (!isObject(body)) throw invalid('', 'The request body must be a JSON object.');
  const model = body.model;
  if (typeof model !== 'string' || model.length === 0)
    throw invalid('model', "'model' is required and must be a string.");
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw invalid('messages', "'messages' is required and must be a non-empty array.");
  }
  const unmapped = findUnmappedFields(body);
  const system: ContentPart[] = [];
  const messages: ChatMessage[] = [];
  body.messages.forEach((m, i) => {
    decodeMessage(m, `messages[${i}]`, system, messages, unmapped);
  });
  const responseFormat = decodeResponseFormat(body, unmapped);

  const stream = optBoolean(body, 'stream') ?? false;
  const streamOptions = optObject(body, 'stream_options');
  const includeUsage =
    streamOptions === undefined
      ? undefined
      : optBoolean(streamOptions, 'include_usage', 'stream_options.include_usage');
  const maxTokens = decodeMaxTokens(body);
  const n = optNumber(body, 'n', 1, MAX_CHOICES, true);
  checkOtherFields(body);
  const stop = body.stop;
  let stops: string[] | undefined;
  if (typeof stop === 'string') stops = [stop];
  else if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) stops = stop as string[];
  else if (stop !== undefined && stop !== null)
    throw invalid('stop', "'stop' must be a string or an array of strings.");

  const reasoning = decodeReasoningEffort(body.reasoning_effort, unmapped);

  return {
    model,
    system,
    messages,
    tools: decodeTools(body.tools, unmapped),
    toolChoice: decodeToolChoice(body.tool_choice, unmapped),
    parallelToolCalls: optBoolean(body, 'parallel_tool_calls'),
    maxTokens,
    ...(n !== undefined ? { n } : {}),
    temperature: optNumber(body, 'temperature', 0, 2),
    topP: optNumber(body, 'top_p', 0, 1),
    stop: stops,
    stream,
    includeUsage: includeUsage === true,
    user: optString(body, 'user'),
    ...(reasoning ? { reasoning } : {}),
    ...(responseFormat ? { responseFormat } : {}),
    unmapped,
    hints: findHintFields(body),
  };
}

const EFFORTS: readonly ReasoningEffort[] = ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/**
 * `response_format`: `text` is the default; `json_schema` (name, description, schema, strict) and
 * `json_object` have a canonical form. Another type is forwardable, not translatable.
 */
function decodeResponseFormat(body: Json, unmapped: string[]): ResponseFormat | undefined {
  const f = optObject(body, 'response_format');
  if (f === undefined) return undefined;
  const type = optString(f, 'type', 'response_format.type');
  if (type === undefined) throw invalid('response_format.type', "'response_format.type' is required.");
  if (type === 'text') return undefined;
  if (type === 'json_object') return { type: 'json_object' };
  if (type !== 'json_schema') {
    unmapped.push('response_format');
    return undefined;
  }
  const js = optObject(f, 'json_schema', 'response_format.json_schema');
  if (js === undefined)
    throw invalid('response_format.json_schema', "'response_format.json_schema' is required for type json_schema.");
  const name = optString(js, 'name', 'response_format.json_schema.name');
  const description = optString(js, 'description', 'response_format.json_schema.description');
  const strict = optBoolean(js, 'strict', 'response_format.json_schema.strict');
  const schema = optObject(js, 'schema', 'response_format.json_schema.schema') ?? {};
  return {
    type: 'json_schema',
    schema,
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(strict !== undefined ? { strict } : {}),
  };
}

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
  if (effort) return { effort, fields: ['reasoning_effort'] };
  unmapped.push('reasoning_effort');
  return undefined;
}

/**
 * System and developer messages before the first other message are the system prompt; later
 * ones stay where they are (`role: system` in the canonical model), as instructions given
 * mid-conversation.
 */
function decodeMessage(m: unknown, at: string, system: ContentPart[], out: ChatMessage[], unmapped: string[]): void {
  if (!isObject(m)) throw invalid(at, `'${at}' must be an object.`);
  optString(m, 'name', `${at}.name`);
  const role = m.role;
  if (typeof role !== 'string') throw invalid(`${at}.role`, `'${at}.role' must be a string.`);
  switch (role) {
    case 'system':
    case 'developer': {
      const content = decodeContent(m.content, `${at}.content`, false, unmapped);
      if (out.length === 0) appendAll(system, content);
      else out.push({ role: 'system', content });
      return;
    }
    case 'user':
      out.push({ role: 'user', content: decodeContent(m.content, `${at}.content`, true, unmapped) });
      return;
    case 'assistant': {
      const content =
        m.content === null || m.content === undefined ? [] : decodeContent(m.content, `${at}.content`, false, unmapped);
      if (Array.isArray(m.tool_calls)) {
        m.tool_calls.forEach((tc, j) => {
          const p = `${at}.tool_calls[${j}]`;
          const fn = isObject(tc) ? tc.function : undefined;
          if (!isObject(tc) || typeof tc.id !== 'string' || !isObject(fn) || typeof fn.name !== 'string') {
            throw invalid(p, `'${p}' must have an 'id' and a 'function' with a 'name'.`);
          }
          // Documented as a JSON string; some OpenAI-compatible servers (Ollama) send an object.
          const raw = fn.arguments;
          const args = isObject(raw)
            ? JSON.stringify(raw)
            : (optString(fn, 'arguments', `${p}.function.arguments`) ?? '{}');
          content.push({ type: 'tool_call', id: tc.id, name: fn.name, arguments: args });
        });
      } else if (m.tool_calls !== undefined && m.tool_calls !== null) {
        throw invalid(`${at}.tool_calls`, `'${at}.tool_calls' must be an array.`);
      }
      out.push({ role: 'assistant', content });
      return;
    }
    case 'tool': {
      if (typeof m.tool_call_id !== 'string')
        throw invalid(`${at}.tool_call_id`, `'${at}.tool_call_id' is required for a tool message.`);
      const result: ContentPart = {
        type: 'tool_result',
        toolCallId: m.tool_call_id,
        content: decodeContent(m.content, `${at}.content`, false, unmapped),
      };
      // Consecutive tool results belong to one user turn in the canonical model.
      const last = out[out.length - 1];
      if (last && last.role === 'user' && last.content.every((c) => c.type === 'tool_result'))
        last.content.push(result);
      else out.push({ role: 'user', content: [result] });
      return;
    }
    default:
      // A role this gateway does not know (or the deprecated `function`): the provider judges it.
      unmapped.push(`${at}.role`);
  }
}

/**
 * Content parts with a canonical form (text; images in user messages) are decoded; other
 * documented parts (`input_audio`, `file`, `refusal`, images elsewhere) are checked for shape and,
 * like parts of a type the gateway does not know, left to the provider (`unmapped`).
 */
function decodeContent(content: unknown, at: string, allowImages: boolean, unmapped: string[]): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalid(at, `'${at}' must be a string or an array of content parts.`);
  const out: ContentPart[] = [];
  content.forEach((part, i) => {
    const p = `${at}[${i}]`;
    if (!isObject(part)) throw invalid(p, `'${p}' must be an object.`);
    switch (part.type) {
      case 'text':
        out.push({ type: 'text', text: optString(part, 'text', `${p}.text`) ?? missing(`${p}.text`) });
        return;
      case 'image_url': {
        const image = optObject(part, 'image_url', `${p}.image_url`) ?? missing(`${p}.image_url`);
        const url = optString(image, 'url', `${p}.image_url.url`) ?? missing(`${p}.image_url.url`);
        optString(image, 'detail', `${p}.image_url.detail`);
        if (!allowImages) break;
        const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
        out.push(
          m
            ? { type: 'image', source: { kind: 'base64', mediaType: m[1], data: m[2] } }
            : { type: 'image', source: { kind: 'url', url } },
        );
        return;
      }
      case 'input_audio':
      case 'file':
        optObject(part, part.type, `${p}.${part.type}`) ?? missing(`${p}.${part.type}`);
        break;
      case 'refusal':
        optString(part, 'refusal', `${p}.refusal`) ?? missing(`${p}.refusal`);
        break;
      default:
        if (typeof part.type !== 'string') throw invalid(`${p}.type`, `'${p}.type' must be a string.`);
    }
    unmapped.push(p);
  });
  return out;
}

function missing(at: string): never {
  throw invalid(at, `'${at}' is required.`);
}

/** Function tools are decoded; a tool of another type (`custom`…) is left to the provider. */
function decodeTools(tools: unknown, unmapped: string[]): ToolSpec[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw invalid('tools', "'tools' must be an array.");
  const out: ToolSpec[] = [];
  tools.forEach((t, i) => {
    if (isObject(t) && typeof t.type === 'string' && t.type !== 'function') {
      unmapped.push(`tools[${i}]`);
      return;
    }
    const fn = isObject(t) ? t.function : undefined;
    if (!isObject(t) || t.type !== 'function' || !isObject(fn) || typeof fn.name !== 'string') {
      throw invalid(`tools[${i}]`, `'tools[${i}]' must be {type: "function", function: {name, parameters}}.`);
    }
    const at = `tools[${i}].function`;
    optBoolean(fn, 'strict', `${at}.strict`);
    out.push({
      name: fn.name,
      description: optString(fn, 'description', `${at}.description`),
      parameters: optObject(fn, 'parameters', `${at}.parameters`) ?? { type: 'object', properties: {} },
    });
  });
  return out;
}

function decodeToolChoice(tc: unknown, unmapped: string[]): ToolChoice | undefined {
  if (tc === undefined || tc === null) return undefined;
  if (tc === 'auto' || tc === 'none' || tc === 'required') return { type: tc };
  if (
    isObject(tc) &&
    (tc.type === 'function' || tc.type === undefined) &&
    isObject(tc.function) &&
    typeof tc.function.name === 'string'
  ) {
    return { type: 'tool', name: tc.function.name };
  }
  // Another mode (`allowed_tools`, a custom tool…): the provider judges it.
  if (typeof tc === 'string' || (isObject(tc) && typeof tc.type === 'string' && tc.type !== 'function')) {
    unmapped.push('tool_choice');
    return undefined;
  }
  throw invalid(
    'tool_choice',
    "'tool_choice' must be 'auto', 'none', 'required' or {type: 'function', function: {name}}.",
  );
}
