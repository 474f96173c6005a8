/**
 * What the real APIs refuse, checked the way they check it, so a gateway bug that a lenient fake
 * would hide fails the test. The fake upstream (fake-upstream.ts) runs these on every call; they
 * are exported for unit tests too: validateOpenAIChat(body) / validateOpenAIResponses(body, …, lookup, kind) /
 * validateAnthropic(body, headers, kind) return undefined or the refusal {message, param?, code?, status?}.
 * Shares no code with src/.
 *
 * validateOpenAIEmbeddings(body) likewise for POST /v1/embeddings.
 *
 * What is refused (facts from the openai 6.x and @anthropic-ai/sdk 1.x type definitions and API docs):
 *   OpenAI: a body that is not an object; missing model/messages; unknown top-level arguments
 *     ("Unrecognized request argument supplied"); roles other than system/developer/user/assistant/tool/function;
 *     content-part types the role does not take; a tool message not answering a tool_call id of the
 *     preceding assistant message, and an assistant tool_calls message not followed by all its answers;
 *     tool_calls arguments that are not strings; response_format other than text/json_schema/json_object,
 *     json_schema without a valid name, strict schemas whose objects lack additionalProperties:false or do
 *     not require every property, json_object without the word "json" in the messages; max_tokens or a
 *     temperature other than 1 on reasoning models (o1/o3/o4/gpt-5*), reasoning_effort on other models;
 *     stream_options without stream; tool_choice or parallel_tool_calls without tools, tool_choice naming
 *     an absent tool; bad tool names; temperature outside 0..2, top_p outside 0..1, n < 1.
 *   OpenAI Responses (create and input_tokens): unknown top-level parameters ("Unknown parameter: 'x'.",
 *     code unknown_parameter; nested in reasoning, text, stream_options too); a missing model; an input that
 *     is neither a string nor items, items of unknown types or without their required fields, message parts
 *     the role does not take (assistant: output_text/refusal; others: input_text/image/file); tools of unknown
 *     types, function tools without name or parameters (the chat shape `{function: {...}}` included), custom
 *     tools without name, bad custom formats, strict schemas not closed; tool_choice values and tools it names
 *     that are absent; max_output_tokens < 16; temperature outside 0..2, top_p outside 0..1 (and either ≠ 1
 *     on a reasoning model); reasoning effort/summary values, and reasoning on a model that does not reason
 *     (DEFAULT_REASONING), as include 'reasoning.encrypted_content'; text.format shapes (json_schema needs
 *     name and schema; json_object needs "json" in the input); stream_options without stream. With the stored
 *     state (ResponsesLookup): previous_response_id unknown (400 previous_response_not_found), item references
 *     unknown (404), reasoning items without a stored id or this upstream's encrypted_content (404 / 400
 *     invalid_encrypted_content), a function/custom tool output answering no earlier call, a call left
 *     without output. background, conversation, prompt and context_management are known but not played.
 *   Anthropic: missing x-api-key / anthropic-version; unknown top-level fields ("Extra inputs are not
 *     permitted"; beta fields such as context_management need their anthropic-beta value); max_tokens
 *     missing (messages) or present (count_tokens); roles other than user/assistant (system inside
 *     messages only with an anthropic-beta value starting `mid-conversation-system`); a first message
 *     that is not user; unknown content-block types; tool_result outside user messages, not first in its
 *     message, or not answering the previous assistant turn's tool_use ids; tool_use ids left unanswered
 *     in the next message; thinking budget_tokens < 1024 or >= max_tokens; temperature other than 1,
 *     top_k, or top_p < 0.95 with thinking on; forced tool_choice with thinking on; a continued tool
 *     loop whose last assistant turn does not start with a thinking block while thinking is on; thinking
 *     blocks without signature; output_config effort/format shapes and objects in a format schema without
 *     additionalProperties:false; temperature outside 0..1; tool_choice naming an absent tool; thinking on
 *     Claude models before 3.7; adaptive thinking before Claude 4.6, a budget on Opus 4.7+ and Claude 5,
 *     output_config.effort before Claude 4.6 (but Opus 4.5), in messages; output_config.format on Claude models
 *     without structured outputs (before Opus 4.1 / 4.5); OpenAI `user` longer than 64 characters.
 */

import type { IncomingHttpHeaders } from 'node:http';
import { unsealReasoning, type WireFormat } from './upstream-wire.js';

export interface Refusal {
  message: string;
  param?: string | null;
  code?: string | null;
  status?: number;
  type?: string;
}

export const DEFAULT_REASONING = /^(o\d|gpt-5)/;

/** A missing or malformed key, or (Anthropic) a missing anthropic-version. */
export function authRefusal(format: WireFormat, h: IncomingHttpHeaders): Refusal | undefined {
  const bearer = typeof h.authorization === 'string' && /^Bearer \S+/.test(h.authorization);
  if (format !== 'anthropic') {
    if (!bearer)
      return {
        status: 401,
        message:
          "You didn't provide an API key. You need to provide your API key in an Authorization header " +
          'using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).',
        type: 'invalid_request_error',
      };
    return undefined;
  }
  if (!h['x-api-key'] && !bearer) return { status: 401, message: 'x-api-key header is required' };
  if (!h['anthropic-version']) return { status: 400, message: 'anthropic-version: header is required' };
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Small checks

const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const TOOL_NAME_OPENAI = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_NAME_ANTHROPIC = /^[a-zA-Z0-9_-]{1,128}$/;

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a decimal';
  if (typeof v === 'boolean') return 'a boolean';
  return 'a string';
}

/** Strict-mode schemas (OpenAI strict, Anthropic output formats): every object closed. */
function openObjectPath(schema: unknown, path: string, requireAll: boolean): string | undefined {
  if (!isObj(schema)) return undefined;
  const isObject =
    schema.type === 'object' ||
    (Array.isArray(schema.type) && schema.type.includes('object')) ||
    isObj(schema.properties);
  if (isObject) {
    if (schema.additionalProperties !== false)
      return `${path}: 'additionalProperties' is required to be supplied and to be false`;
    if (requireAll && isObj(schema.properties)) {
      const req = Array.isArray(schema.required) ? schema.required : [];
      const missing = Object.keys(schema.properties).find((k) => !req.includes(k));
      if (missing !== undefined)
        return (
          `${path}: 'required' is required to be supplied and to be an array including every key in properties. ` +
          `Missing '${missing}'`
        );
    }
  }
  for (const key of ['properties', '$defs', 'definitions'] as const) {
    if (isObj(schema[key])) {
      for (const [k, v] of Object.entries(schema[key])) {
        const p = openObjectPath(v, `${path}.${key}.${k}`, requireAll);
        if (p) return p;
      }
    }
  }
  if (schema.items !== undefined) {
    const p = openObjectPath(schema.items, `${path}.items`, requireAll);
    if (p) return p;
  }
  for (const key of ['anyOf', 'allOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) {
      for (let i = 0; i < schema[key].length; i++) {
        const p = openObjectPath(schema[key][i], `${path}.${key}[${i}]`, requireAll);
        if (p) return p;
      }
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions

const OPENAI_FIELDS = new Set([
  'messages',
  'model',
  'audio',
  'frequency_penalty',
  'function_call',
  'functions',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'max_tokens',
  'metadata',
  'modalities',
  'moderation',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'reasoning_effort',
  'response_format',
  'safety_identifier',
  'seed',
  'service_tier',
  'stop',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
  'verbosity',
  'web_search_options',
]);
const OPENAI_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];
const OPENAI_PARTS: Record<string, string[]> = {
  system: ['text'],
  developer: ['text'],
  user: ['text', 'image_url', 'input_audio', 'file'],
  assistant: ['text', 'refusal'],
  tool: ['text'],
};
const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

function invalidValue(v: unknown, allowed: string[], param: string): Refusal {
  const list = allowed.map((a) => `'${a}'`);
  const said = list.length > 1 ? `${list.slice(0, -1).join(', ')}, and ${list.at(-1)}` : list[0];
  return { message: `Invalid value: '${String(v)}'. Supported values are: ${said}.`, param, code: 'invalid_value' };
}
function invalidType(param: string, expected: string, v: unknown): Refusal {
  return {
    message: `Invalid type for '${param}': expected ${expected}, but got ${typeName(v)} instead.`,
    param,
    code: 'invalid_type',
  };
}
function missing(param: string): Refusal {
  return { message: `Missing required parameter: '${param}'.`, param, code: 'missing_required_parameter' };
}

const EMBEDDINGS_FIELDS = new Set(['model', 'input', 'encoding_format', 'dimensions', 'user']);
const MAX_EMBEDDING_INPUTS = 2048;
const isTokenId = (v: unknown) => isInt(v) && v >= 0;

/**
 * POST /v1/embeddings as OpenAI checks it: model and input required; input a non-empty string, or
 * a non-empty array of at most 2048 non-empty strings, of token ids (integers >= 0), or of
 * non-empty token arrays; encoding_format float or base64; dimensions an integer >= 1; user a string.
 */
export function validateOpenAIEmbeddings(body: any, extraFields = false): Refusal | undefined {
  if (!isObj(body)) return { message: 'Invalid body: expected a JSON object.', code: 'invalid_type' };
  for (const k of Object.keys(body)) {
    if (!EMBEDDINGS_FIELDS.has(k) && !extraFields)
      return { message: `Unrecognized request argument supplied: ${k}`, param: null, code: null };
  }
  if (body.model === undefined) return { message: 'you must provide a model parameter', param: null, code: null };
  if (typeof body.model !== 'string') return invalidType('model', 'a string', body.model);
  if (body.input === undefined) return missing('input');
  const badInput = (param: string): Refusal => ({
    message: `'$.${param}' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.`,
    param: null,
    code: null,
  });
  const input = body.input;
  if (typeof input === 'string') {
    if (input.length === 0) return badInput('input');
  } else if (!Array.isArray(input) || input.length === 0 || input.length > MAX_EMBEDDING_INPUTS) {
    return badInput('input');
  } else {
    const texts = typeof input[0] === 'string';
    const tokens = typeof input[0] === 'number';
    for (let i = 0; i < input.length; i++) {
      const x = input[i];
      const ok = texts
        ? typeof x === 'string' && x.length > 0
        : tokens
          ? isTokenId(x)
          : Array.isArray(x) && x.length > 0 && x.every(isTokenId);
      if (!ok) return badInput(`input[${i}]`);
    }
  }
  if (body.encoding_format !== undefined && !['float', 'base64'].includes(body.encoding_format))
    return invalidValue(body.encoding_format, ['float', 'base64'], 'encoding_format');
  if (body.dimensions !== undefined && !(isInt(body.dimensions) && body.dimensions >= 1))
    return { message: `Invalid 'dimensions': must be an integer of at least 1.`, param: 'dimensions', code: null };
  if (body.user !== undefined && typeof body.user !== 'string') return invalidType('user', 'a string', body.user);
  return undefined;
}

/** `extraFields`: let unknown top-level fields through (a test quirk, never the API's behaviour). */
export function validateOpenAIChat(
  body: any,
  reasoningModels: RegExp = DEFAULT_REASONING,
  extraFields = false,
): Refusal | undefined {
  if (!isObj(body)) return { message: 'Invalid body: expected a JSON object.', code: 'invalid_type' };
  for (const k of Object.keys(body)) {
    if (!OPENAI_FIELDS.has(k) && !extraFields)
      return { message: `Unrecognized request argument supplied: ${k}`, param: null, code: null };
  }
  if (body.model === undefined) return { message: 'you must provide a model parameter', param: null, code: null };
  if (typeof body.model !== 'string') return invalidType('model', 'a string', body.model);
  if (body.messages === undefined) return missing('messages');
  if (!Array.isArray(body.messages)) return invalidType('messages', 'an array', body.messages);
  if (body.messages.length === 0)
    return {
      message:
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      param: 'messages',
      code: 'empty_array',
    };
  const reasoning = reasoningModels.test(body.model);

  // Messages, and the tool-call pairing rule.
  let pending: string[] = [];
  let pendingFrom = -1;
  for (let i = 0; i < body.messages.length; i++) {
    const m = body.messages[i];
    const p = `messages[${i}]`;
    if (!isObj(m)) return invalidType(p, 'an object', m);
    if (!OPENAI_ROLES.includes(m.role)) {
      if (m.role === undefined) return missing(`${p}.role`);
      return invalidValue(m.role, ['system', 'assistant', 'user', 'function', 'tool', 'developer'], `${p}.role`);
    }
    if (pending.length > 0 && m.role !== 'tool') {
      return {
        message:
          `An assistant message with 'tool_calls' must be followed by tool messages responding to each ` +
          `'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`,
        param: `messages.[${pendingFrom}].role`,
        code: null,
      };
    }
    const f = checkOpenAIContent(m, p);
    if (f) return f;
    if (m.role === 'assistant' && m.tool_calls !== undefined && m.tool_calls !== null) {
      if (!Array.isArray(m.tool_calls)) return invalidType(`${p}.tool_calls`, 'an array', m.tool_calls);
      pending = [];
      pendingFrom = i;
      for (let j = 0; j < m.tool_calls.length; j++) {
        const tc = m.tool_calls[j];
        const q = `${p}.tool_calls[${j}]`;
        if (!isObj(tc)) return invalidType(q, 'an object', tc);
        if (typeof tc.id !== 'string')
          return tc.id === undefined ? missing(`${q}.id`) : invalidType(`${q}.id`, 'a string', tc.id);
        if (tc.type !== 'function' && tc.type !== 'custom')
          return tc.type === undefined
            ? missing(`${q}.type`)
            : invalidValue(tc.type, ['function', 'custom'], `${q}.type`);
        if (tc.type === 'function') {
          if (!isObj(tc.function))
            return tc.function === undefined
              ? missing(`${q}.function`)
              : invalidType(`${q}.function`, 'an object', tc.function);
          if (typeof tc.function.name !== 'string')
            return tc.function.name === undefined
              ? missing(`${q}.function.name`)
              : invalidType(`${q}.function.name`, 'a string', tc.function.name);
          if (typeof tc.function.arguments !== 'string') {
            return tc.function.arguments === undefined
              ? missing(`${q}.function.arguments`)
              : invalidType(`${q}.function.arguments`, 'a string', tc.function.arguments);
          }
        }
        pending.push(tc.id);
      }
      if (m.content === undefined && m.tool_calls.length === 0) return missing(`${p}.content`);
    } else if (m.role === 'tool') {
      if (typeof m.tool_call_id !== 'string')
        return m.tool_call_id === undefined
          ? missing(`${p}.tool_call_id`)
          : invalidType(`${p}.tool_call_id`, 'a string', m.tool_call_id);
      if (!pending.includes(m.tool_call_id)) {
        return {
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with " +
            "'tool_calls'.",
          param: `messages.[${i}].role`,
          code: null,
        };
      }
      pending = pending.filter((id) => id !== m.tool_call_id);
    } else {
      pending = [];
    }
  }
  if (pending.length > 0) {
    return {
      message:
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each ` +
        `'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`,
      param: `messages.[${pendingFrom}].role`,
      code: null,
    };
  }

  // Sampling and caps.
  if (body.max_tokens !== undefined && body.max_tokens !== null) {
    if (reasoning)
      return {
        message:
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        param: 'max_tokens',
        code: 'unsupported_parameter',
      };
    if (!isInt(body.max_tokens)) return invalidType('max_tokens', 'an integer', body.max_tokens);
    if (body.max_tokens < 1)
      return {
        message:
          `Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got ` +
          `${body.max_tokens} instead.`,
        param: 'max_tokens',
        code: 'integer_below_min_value',
      };
  }
  if (
    body.max_completion_tokens !== undefined &&
    body.max_completion_tokens !== null &&
    !isInt(body.max_completion_tokens)
  )
    return invalidType('max_completion_tokens', 'an integer', body.max_completion_tokens);
  if (body.temperature !== undefined && body.temperature !== null) {
    if (typeof body.temperature !== 'number') return invalidType('temperature', 'a decimal', body.temperature);
    if (reasoning && body.temperature !== 1)
      return {
        message:
          `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the ` +
          `default (1) value is supported.`,
        param: 'temperature',
        code: 'unsupported_value',
      };
    if (body.temperature < 0 || body.temperature > 2)
      return {
        message:
          `Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got ` +
          `${body.temperature} instead.`,
        param: 'temperature',
        code: 'decimal_above_max_value',
      };
  }
  if (
    body.top_p !== undefined &&
    body.top_p !== null &&
    (typeof body.top_p !== 'number' || body.top_p < 0 || body.top_p > 1)
  )
    return { message: `Invalid 'top_p': expected a number between 0 and 1.`, param: 'top_p', code: 'invalid_value' };
  if (body.n !== undefined && body.n !== null && (!isInt(body.n) || body.n < 1))
    return {
      message: `Invalid 'n': integer below minimum value. Expected a value >= 1, but got ${body.n} instead.`,
      param: 'n',
      code: 'integer_below_min_value',
    };
  if (typeof body.user === 'string' && body.user.length > 64) {
    return {
      message:
        `Invalid 'user': string too long. Expected a string with maximum length 64, but got a string with ` +
        `length ${body.user.length} instead.`,
      param: 'user',
      code: 'string_above_max_length',
    };
  }
  if (body.reasoning_effort !== undefined && body.reasoning_effort !== null) {
    if (!reasoning)
      return { message: 'Unrecognized request argument supplied: reasoning_effort', param: null, code: null };
    if (!REASONING_EFFORTS.includes(body.reasoning_effort))
      return invalidValue(body.reasoning_effort, REASONING_EFFORTS, 'reasoning_effort');
  }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean')
    return invalidType('stream', 'a boolean', body.stream);
  if (body.stream_options !== undefined && body.stream_options !== null) {
    if (body.stream !== true)
      return {
        message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
        param: 'stream_options',
        code: null,
      };
    if (!isObj(body.stream_options)) return invalidType('stream_options', 'an object', body.stream_options);
    for (const k of Object.keys(body.stream_options)) {
      if (k !== 'include_usage' && k !== 'include_obfuscation')
        return { message: `Unrecognized request argument supplied: stream_options.${k}`, param: null, code: null };
    }
  }
  if (body.stop !== undefined && body.stop !== null) {
    const stops = typeof body.stop === 'string' ? [body.stop] : body.stop;
    if (!Array.isArray(stops) || stops.some((s: unknown) => typeof s !== 'string'))
      return invalidType('stop', 'a string or an array of strings', body.stop);
    if (stops.length > 4)
      return {
        message:
          `Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with ` +
          `length ${stops.length} instead.`,
        param: 'stop',
        code: 'array_above_max_length',
      };
  }

  // Tools.
  const toolNames: string[] = [];
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) return invalidType('tools', 'an array', body.tools);
    for (let i = 0; i < body.tools.length; i++) {
      const t = body.tools[i];
      const p = `tools[${i}]`;
      if (!isObj(t)) return invalidType(p, 'an object', t);
      if (t.type !== 'function' && t.type !== 'custom')
        return t.type === undefined ? missing(`${p}.type`) : invalidValue(t.type, ['function', 'custom'], `${p}.type`);
      const def = t.type === 'function' ? t.function : t.custom;
      if (!isObj(def)) return missing(`${p}.${t.type}`);
      if (typeof def.name !== 'string') return missing(`${p}.${t.type}.name`);
      if (!TOOL_NAME_OPENAI.test(def.name))
        return {
          message:
            `Invalid '${p}.${t.type}.name': string does not match pattern. Expected a string that matches the ` +
            `pattern '^[a-zA-Z0-9_-]+$'.`,
          param: `${p}.${t.type}.name`,
          code: 'invalid_value',
        };
      if (t.type === 'function' && def.parameters !== undefined && !isObj(def.parameters))
        return invalidType(`${p}.function.parameters`, 'an object', def.parameters);
      if (t.type === 'function' && def.strict === true) {
        const open = openObjectPath(def.parameters ?? {}, 'context=()', true);
        if (open)
          return {
            message: `Invalid schema for function '${def.name}': In ${open}.`,
            param: `${p}.function.parameters`,
            code: 'invalid_function_parameters',
          };
      }
      toolNames.push(def.name);
    }
  }
  const hasTools = toolNames.length > 0;
  if (body.tool_choice !== undefined && body.tool_choice !== null) {
    if (!hasTools)
      return {
        message: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
        param: 'tool_choice',
        code: null,
      };
    const tc = body.tool_choice;
    if (typeof tc === 'string') {
      if (!['none', 'auto', 'required'].includes(tc))
        return invalidValue(tc, ['none', 'auto', 'required'], 'tool_choice');
    } else if (isObj(tc)) {
      if (tc.type === 'function') {
        const name = tc.function?.name;
        if (typeof name !== 'string') return missing('tool_choice.function.name');
        if (!toolNames.includes(name))
          return {
            message: `Invalid value for 'tool_choice': tool '${name}' not found in 'tools'.`,
            param: 'tool_choice',
            code: null,
          };
      } else if (tc.type !== 'allowed_tools' && tc.type !== 'custom') {
        return invalidValue(tc.type, ['function', 'custom', 'allowed_tools'], 'tool_choice.type');
      }
    } else return invalidType('tool_choice', 'a string or an object', tc);
  }
  if (body.parallel_tool_calls !== undefined && body.parallel_tool_calls !== null) {
    if (!hasTools)
      return {
        message:
          "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.",
        param: 'parallel_tool_calls',
        code: null,
      };
    if (typeof body.parallel_tool_calls !== 'boolean')
      return invalidType('parallel_tool_calls', 'a boolean', body.parallel_tool_calls);
  }

  // Structured output.
  if (body.response_format !== undefined && body.response_format !== null) {
    const rf = body.response_format;
    if (!isObj(rf)) return invalidType('response_format', 'an object', rf);
    if (!['text', 'json_schema', 'json_object'].includes(rf.type)) {
      return rf.type === undefined
        ? missing('response_format.type')
        : invalidValue(rf.type, ['json_object', 'json_schema', 'text'], 'response_format.type');
    }
    if (rf.type === 'json_schema') {
      const js = rf.json_schema;
      if (!isObj(js)) return missing('response_format.json_schema');
      if (typeof js.name !== 'string') return missing('response_format.json_schema.name');
      if (!TOOL_NAME_OPENAI.test(js.name))
        return {
          message:
            `Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that ` +
            `` +
            `` +
            `` +
            `matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          param: 'response_format.json_schema.name',
          code: 'invalid_value',
        };
      if (js.schema !== undefined && !isObj(js.schema))
        return invalidType('response_format.json_schema.schema', 'an object', js.schema);
      if (js.strict === true) {
        const open = openObjectPath(js.schema ?? {}, 'context=()', true);
        if (open)
          return {
            message: `Invalid schema for response_format '${js.name}': In ${open}.`,
            param: 'response_format',
            code: 'invalid_json_schema',
          };
      }
    }
    if (rf.type === 'json_object' && !/json/i.test(JSON.stringify(body.messages))) {
      return {
        message:
          "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
        param: 'messages',
        code: null,
      };
    }
  }
  return undefined;
}

function checkOpenAIContent(m: Record<string, any>, p: string): Refusal | undefined {
  const c = m.content;
  if (m.role === 'function') return typeof m.name === 'string' ? undefined : missing(`${p}.name`);
  if (c === undefined || c === null) {
    if (m.role === 'assistant') return undefined;
    return missing(`${p}.content`);
  }
  if (typeof c === 'string') return undefined;
  if (!Array.isArray(c)) return invalidType(`${p}.content`, 'a string or an array', c);
  const allowed = OPENAI_PARTS[m.role]!;
  for (let j = 0; j < c.length; j++) {
    const part = c[j];
    const q = `${p}.content[${j}]`;
    if (!isObj(part)) return invalidType(q, 'an object', part);
    if (!allowed.includes(part.type)) {
      if (['text', 'image_url', 'input_audio', 'refusal', 'file'].includes(part.type)) {
        return {
          message: `Invalid '${q}.type': '${part.type}' is not supported in messages with role '${m.role}'.`,
          param: `${q}.type`,
          code: 'invalid_value',
        };
      }
      return invalidValue(part.type, ['text', 'image_url', 'input_audio', 'refusal', 'audio', 'file'], `${q}.type`);
    }
    if (part.type === 'text' && typeof part.text !== 'string')
      return part.text === undefined ? missing(`${q}.text`) : invalidType(`${q}.text`, 'a string', part.text);
    if (part.type === 'image_url' && (!isObj(part.image_url) || typeof part.image_url.url !== 'string'))
      return missing(`${q}.image_url.url`);
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses

/** What the Responses checks need of the responses the fake stored (responses-state.ts). */
export interface ResponsesLookup {
  /** The conversation a stored response ends: the items it was given (expanded), then its output. */
  conversation(responseId: string): Array<Record<string, any>> | undefined;
  /** An item of a stored response (given or produced), by id. */
  item(id: string): Record<string, any> | undefined;
}

const RESPONSES_FIELDS = new Set([
  'background',
  // Codex sends its session bookkeeping with every request (captured from codex 0.169).
  'client_metadata',
  'context_management',
  'conversation',
  'include',
  'input',
  'instructions',
  'max_output_tokens',
  'max_tool_calls',
  'metadata',
  'model',
  'moderation',
  'parallel_tool_calls',
  'previous_response_id',
  'prompt',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'reasoning',
  'safety_identifier',
  'service_tier',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'text',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'truncation',
  'user',
]);
/** POST /v1/responses/input_tokens. */
const RESPONSES_COUNT_FIELDS = new Set([
  'conversation',
  'input',
  'instructions',
  'model',
  'parallel_tool_calls',
  'personality',
  'previous_response_id',
  'reasoning',
  'text',
  'tool_choice',
  'tools',
  'truncation',
]);
/** Parameters the fake knows but does not play (server-side conversations, prompts, background runs). */
const RESPONSES_NOT_PLAYED = ['conversation', 'prompt', 'context_management'];
const RESPONSES_INCLUDABLE = [
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'code_interpreter_call.outputs',
  'reasoning.encrypted_content',
  'message.output_text.logprobs',
];
const RESPONSES_TOOLS = [
  'function',
  'custom',
  'file_search',
  'web_search',
  'web_search_2025_08_26',
  'web_search_preview',
  'web_search_preview_2025_03_11',
  'computer',
  'computer_use_preview',
  'mcp',
  'code_interpreter',
  'image_generation',
  'local_shell',
  'shell',
  'apply_patch',
  'namespace',
  'tool_search',
  'programmatic_tool_calling',
];
const RESPONSES_CHOICE_TYPES = [
  'function',
  'custom',
  'allowed_tools',
  'mcp',
  'file_search',
  'web_search_preview',
  'web_search_preview_2025_03_11',
  'computer',
  'computer_use',
  'computer_use_preview',
  'image_generation',
  'code_interpreter',
  'apply_patch',
  'shell',
  'programmatic_tool_calling',
];
/** Input item types and the fields each requires. */
const RESPONSES_ITEMS: Record<string, string[]> = {
  message: ['role', 'content'],
  function_call: ['call_id', 'name', 'arguments'],
  function_call_output: ['call_id', 'output'],
  custom_tool_call: ['call_id', 'name', 'input'],
  custom_tool_call_output: ['call_id', 'output'],
  reasoning: ['summary'],
  item_reference: ['id'],
  compaction: ['encrypted_content'],
  file_search_call: ['id', 'queries', 'status'],
  web_search_call: ['id', 'action', 'status'],
  computer_call: ['id', 'call_id', 'pending_safety_checks', 'status'],
  computer_call_output: ['call_id', 'output'],
  image_generation_call: ['id', 'result', 'status'],
  code_interpreter_call: ['id', 'code', 'container_id', 'outputs', 'status'],
  local_shell_call: ['id', 'action', 'call_id', 'status'],
  local_shell_call_output: ['id', 'output'],
  shell_call: ['action', 'call_id'],
  shell_call_output: ['call_id', 'output'],
  apply_patch_call: ['call_id', 'operation', 'status'],
  apply_patch_call_output: ['call_id', 'status'],
  mcp_list_tools: ['id', 'server_label', 'tools'],
  mcp_approval_request: ['id', 'arguments', 'name', 'server_label'],
  mcp_approval_response: ['approval_request_id', 'approve'],
  mcp_call: ['id', 'arguments', 'name', 'server_label'],
  tool_search_call: ['arguments'],
  tool_search_output: ['tools'],
};
const INPUT_PARTS = ['input_text', 'input_image', 'input_file'];
const ASSISTANT_PARTS = ['output_text', 'refusal'];
const SUMMARY_MODES = ['auto', 'concise', 'detailed'];

function unknownParameter(param: string): Refusal {
  return { message: `Unknown parameter: '${param}'.`, param, code: 'unknown_parameter' };
}
function unsupportedParameter(param: string): Refusal {
  return {
    message: `Unsupported parameter: '${param}' is not supported with this model.`,
    param,
    code: 'unsupported_parameter',
  };
}
function belowMin(param: string, min: number, v: number): Refusal {
  return {
    message: `Invalid '${param}': integer below minimum value. Expected a value >= ${min}, but got ${v} instead.`,
    param,
    code: 'integer_below_min_value',
  };
}
function namePattern(param: string): Refusal {
  return {
    message:
      `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern ` +
      "'^[a-zA-Z0-9_-]+$'.",
    param,
    code: 'invalid_value',
  };
}
/** An optional member: absent or null passes, otherwise `ok` must hold. */
const optional = (v: unknown, ok: (v: unknown) => boolean) => v === undefined || v === null || ok(v);

/**
 * POST /v1/responses (`kind` 'create') or /v1/responses/input_tokens ('input_tokens'). `lookup`: the
 * stored responses, for previous_response_id, item references and reasoning ids (none: nothing is stored).
 * `extraFields`: let unknown top-level fields through (a test quirk, never the API's behaviour).
 */
export function validateOpenAIResponses(
  body: any,
  reasoningModels: RegExp = DEFAULT_REASONING,
  extraFields = false,
  lookup?: ResponsesLookup,
  kind: 'create' | 'input_tokens' = 'create',
): Refusal | undefined {
  if (!isObj(body)) return { message: 'Invalid body: expected a JSON object.', code: 'invalid_type' };
  const fields = kind === 'create' ? RESPONSES_FIELDS : RESPONSES_COUNT_FIELDS;
  for (const k of Object.keys(body)) if (!fields.has(k) && !extraFields) return unknownParameter(k);
  for (const k of RESPONSES_NOT_PLAYED) {
    if (body[k] !== undefined && body[k] !== null)
      return { message: `The fake upstream does not play '${k}'.`, param: k, code: 'fake_not_implemented' };
  }
  if (body.background === true)
    return { message: "The fake upstream does not play 'background'.", param: 'background', code: null };
  if (body.model === undefined && kind === 'create') return missing('model');
  if (body.model !== undefined && typeof body.model !== 'string') return invalidType('model', 'a string', body.model);
  const reasoning = typeof body.model === 'string' && reasoningModels.test(body.model);

  const settings = checkResponsesSettings(body, reasoning);
  if (settings) return settings;
  const tools = checkResponsesTools(body);
  if (tools) return tools;
  const text = checkResponsesText(body);
  if (text) return text;
  if (body.input !== undefined && typeof body.input !== 'string') {
    if (!Array.isArray(body.input)) return invalidType('input', 'a string or an array of input items', body.input);
    for (let i = 0; i < body.input.length; i++) {
      const f = checkResponsesItem(body.input[i], `input[${i}]`);
      if (f) return f;
    }
  }
  return checkResponsesConversation(body, lookup ?? { conversation: () => undefined, item: () => undefined });
}

/** Sampling, caps, reasoning, include, streaming and the other scalar settings. */
function checkResponsesSettings(body: Record<string, any>, reasoning: boolean): Refusal | undefined {
  if (!optional(body.instructions, (v) => typeof v === 'string'))
    return invalidType('instructions', 'a string', body.instructions);
  if (body.max_output_tokens !== undefined && body.max_output_tokens !== null) {
    if (!isInt(body.max_output_tokens)) return invalidType('max_output_tokens', 'an integer', body.max_output_tokens);
    if (body.max_output_tokens < 16) return belowMin('max_output_tokens', 16, body.max_output_tokens);
  }
  for (const [param, max] of [
    ['temperature', 2],
    ['top_p', 1],
  ] as const) {
    const v = body[param];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number') return invalidType(param, 'a decimal', v);
    if (reasoning && v !== 1) return unsupportedParameter(param);
    if (v < 0 || v > max)
      return {
        message:
          `Invalid '${param}': decimal ${v < 0 ? 'below minimum' : 'above maximum'} value. Expected a value ` +
          `${v < 0 ? '>= 0' : `<= ${max}`}, but got ${v} instead.`,
        param,
        code: v < 0 ? 'decimal_below_min_value' : 'decimal_above_max_value',
      };
  }
  const r = body.reasoning;
  if (r !== undefined && r !== null) {
    if (!isObj(r)) return invalidType('reasoning', 'an object', r);
    for (const k of Object.keys(r))
      if (!['effort', 'summary', 'generate_summary', 'context', 'mode'].includes(k))
        return unknownParameter(`reasoning.${k}`);
    if (!optional(r.effort, (v) => REASONING_EFFORTS.includes(v as string)))
      return invalidValue(r.effort, REASONING_EFFORTS, 'reasoning.effort');
    for (const k of ['summary', 'generate_summary'])
      if (!optional(r[k], (v) => SUMMARY_MODES.includes(v as string)))
        return invalidValue(r[k], SUMMARY_MODES, `reasoning.${k}`);
    if (!reasoning) {
      const set = ['effort', 'summary', 'generate_summary'].find((k) => r[k] !== undefined && r[k] !== null);
      if (set) return unsupportedParameter(`reasoning.${set}`);
    }
  }
  if (body.include !== undefined && body.include !== null) {
    if (!Array.isArray(body.include)) return invalidType('include', 'an array', body.include);
    for (let i = 0; i < body.include.length; i++)
      if (!RESPONSES_INCLUDABLE.includes(body.include[i]))
        return invalidValue(body.include[i], RESPONSES_INCLUDABLE, `include[${i}]`);
    if (!reasoning && body.include.includes('reasoning.encrypted_content'))
      return { message: 'Encrypted content is not supported with this model.', param: 'include', code: null };
  }
  for (const k of ['stream', 'store', 'parallel_tool_calls'])
    if (!optional(body[k], (v) => typeof v === 'boolean')) return invalidType(k, 'a boolean', body[k]);
  if (body.stream_options !== undefined && body.stream_options !== null) {
    if (body.stream !== true)
      return {
        message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
        param: 'stream_options',
        code: null,
      };
    if (!isObj(body.stream_options)) return invalidType('stream_options', 'an object', body.stream_options);
    for (const k of Object.keys(body.stream_options))
      if (k !== 'include_obfuscation') return unknownParameter(`stream_options.${k}`);
  }
  for (const k of ['previous_response_id', 'user', 'safety_identifier', 'prompt_cache_key'])
    if (!optional(body[k], (v) => typeof v === 'string')) return invalidType(k, 'a string', body[k]);
  if (!optional(body.truncation, (v) => v === 'auto' || v === 'disabled'))
    return invalidValue(body.truncation, ['auto', 'disabled'], 'truncation');
  if (!optional(body.metadata, (v) => isObj(v) && Object.values(v).every((x) => typeof x === 'string')))
    return invalidType('metadata', 'an object with string values', body.metadata);
  for (const k of ['max_tool_calls', 'top_logprobs'])
    if (!optional(body[k], isInt)) return invalidType(k, 'an integer', body[k]);
  return undefined;
}

/** tools[] and tool_choice. */
function checkResponsesTools(body: Record<string, any>): Refusal | undefined {
  const named: Record<string, string[]> = { function: [], custom: [] };
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) return invalidType('tools', 'an array', body.tools);
    for (let i = 0; i < body.tools.length; i++) {
      const t = body.tools[i];
      const p = `tools[${i}]`;
      if (!isObj(t)) return invalidType(p, 'an object', t);
      if (!RESPONSES_TOOLS.includes(t.type))
        return t.type === undefined ? missing(`${p}.type`) : invalidValue(t.type, RESPONSES_TOOLS, `${p}.type`);
      if (t.type !== 'function' && t.type !== 'custom') continue;
      if (typeof t.name !== 'string')
        return t.name === undefined ? missing(`${p}.name`) : invalidType(`${p}.name`, 'a string', t.name);
      if (!TOOL_NAME_OPENAI.test(t.name)) return namePattern(`${p}.name`);
      named[t.type]!.push(t.name);
      if (t.type === 'custom') {
        const f = t.format;
        if (f !== undefined && !(isObj(f) && (f.type === 'text' || f.type === 'grammar')))
          return invalidValue(isObj(f) ? f.type : f, ['text', 'grammar'], `${p}.format.type`);
        if (f?.type === 'grammar') {
          if (!['lark', 'regex'].includes(f.syntax))
            return invalidValue(f.syntax, ['lark', 'regex'], `${p}.format.syntax`);
          if (typeof f.definition !== 'string') return missing(`${p}.format.definition`);
        }
        continue;
      }
      if (!('parameters' in t)) return missing(`${p}.parameters`);
      if (t.parameters !== null && !isObj(t.parameters))
        return invalidType(`${p}.parameters`, 'an object', t.parameters);
      if (t.strict === true) {
        const open = openObjectPath(t.parameters ?? {}, 'context=()', true);
        if (open)
          return {
            message: `Invalid schema for function '${t.name}': In ${open}.`,
            param: `${p}.parameters`,
            code: 'invalid_function_parameters',
          };
      }
    }
  }
  const tc = body.tool_choice;
  if (tc === undefined || tc === null) return undefined;
  if (typeof tc === 'string')
    return ['none', 'auto', 'required'].includes(tc)
      ? undefined
      : invalidValue(tc, ['none', 'auto', 'required'], 'tool_choice');
  if (!isObj(tc)) return invalidType('tool_choice', 'a string or an object', tc);
  if (!RESPONSES_CHOICE_TYPES.includes(tc.type))
    return tc.type === undefined
      ? missing('tool_choice.type')
      : invalidValue(tc.type, RESPONSES_CHOICE_TYPES, 'tool_choice.type');
  if (tc.type === 'function' || tc.type === 'custom') {
    if (typeof tc.name !== 'string') return missing('tool_choice.name');
    if (!named[tc.type]!.includes(tc.name))
      return {
        message: `Invalid value for 'tool_choice': tool '${tc.name}' not found in 'tools'.`,
        param: 'tool_choice',
        code: null,
      };
  }
  if (tc.type === 'allowed_tools') {
    if (tc.mode !== 'auto' && tc.mode !== 'required')
      return invalidValue(tc.mode, ['auto', 'required'], 'tool_choice.mode');
    if (!Array.isArray(tc.tools)) return missing('tool_choice.tools');
  }
  return undefined;
}

/** text.format and text.verbosity. */
function checkResponsesText(body: Record<string, any>): Refusal | undefined {
  const text = body.text;
  if (text === undefined || text === null) return undefined;
  if (!isObj(text)) return invalidType('text', 'an object', text);
  for (const k of Object.keys(text)) if (k !== 'format' && k !== 'verbosity') return unknownParameter(`text.${k}`);
  if (!optional(text.verbosity, (v) => ['low', 'medium', 'high'].includes(v as string)))
    return invalidValue(text.verbosity, ['low', 'medium', 'high'], 'text.verbosity');
  const f = text.format;
  if (f === undefined || f === null) return undefined;
  if (!isObj(f)) return invalidType('text.format', 'an object', f);
  if (!['text', 'json_schema', 'json_object'].includes(f.type))
    return f.type === undefined
      ? missing('text.format.type')
      : invalidValue(f.type, ['text', 'json_schema', 'json_object'], 'text.format.type');
  if (f.type === 'json_schema') {
    if (typeof f.name !== 'string') return missing('text.format.name');
    if (!TOOL_NAME_OPENAI.test(f.name)) return namePattern('text.format.name');
    if (!isObj(f.schema))
      return f.schema === undefined
        ? missing('text.format.schema')
        : invalidType('text.format.schema', 'an object', f.schema);
    if (f.strict === true) {
      const open = openObjectPath(f.schema, 'context=()', true);
      if (open)
        return {
          message: `Invalid schema for response_format '${f.name}': In ${open}.`,
          param: 'text.format.schema',
          code: 'invalid_json_schema',
        };
    }
  }
  if (f.type === 'json_object' && !/json/i.test(JSON.stringify([body.instructions ?? '', body.input ?? ''])))
    return {
      message:
        "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.",
      param: 'input',
      code: null,
    };
  return undefined;
}

/** One input item: a known type with the fields it requires; messages with the parts their role takes. */
function checkResponsesItem(item: unknown, p: string): Refusal | undefined {
  if (!isObj(item)) return invalidType(p, 'an object', item);
  // Without a type, an item with a role is a message and one with only an id a reference.
  const type = item.type ?? ('role' in item ? 'message' : 'id' in item ? 'item_reference' : undefined);
  if (type === undefined) return missing(`${p}.type`);
  const required = RESPONSES_ITEMS[type];
  if (!required) return invalidValue(type, Object.keys(RESPONSES_ITEMS), `${p}.type`);
  const absent = required.find((k) => item[k] === undefined);
  if (absent) return missing(`${p}.${absent}`);
  switch (type) {
    case 'message':
      return checkResponsesMessage(item, p);
    case 'function_call':
    case 'custom_tool_call': {
      const field = type === 'function_call' ? 'arguments' : 'input';
      for (const k of ['call_id', 'name', field])
        if (typeof item[k] !== 'string') return invalidType(`${p}.${k}`, 'a string', item[k]);
      return undefined;
    }
    case 'function_call_output':
    case 'custom_tool_call_output':
      if (typeof item.call_id !== 'string') return invalidType(`${p}.call_id`, 'a string', item.call_id);
      if (typeof item.output !== 'string' && !Array.isArray(item.output))
        return invalidType(`${p}.output`, 'a string or an array', item.output);
      return undefined;
    case 'reasoning':
      if (!Array.isArray(item.summary)) return invalidType(`${p}.summary`, 'an array', item.summary);
      for (let j = 0; j < item.summary.length; j++) {
        const s = item.summary[j];
        if (!isObj(s) || s.type !== 'summary_text' || typeof s.text !== 'string')
          return invalidValue(isObj(s) ? s.type : s, ['summary_text'], `${p}.summary[${j}].type`);
      }
      return undefined;
    case 'item_reference':
      return typeof item.id === 'string' ? undefined : invalidType(`${p}.id`, 'a string', item.id);
    default:
      return undefined;
  }
}

function checkResponsesMessage(m: Record<string, any>, p: string): Refusal | undefined {
  if (!['user', 'assistant', 'system', 'developer'].includes(m.role))
    return invalidValue(m.role, ['user', 'assistant', 'system', 'developer'], `${p}.role`);
  if (typeof m.content === 'string') return undefined;
  if (!Array.isArray(m.content)) return invalidType(`${p}.content`, 'a string or an array', m.content);
  const allowed = m.role === 'assistant' ? ASSISTANT_PARTS : INPUT_PARTS;
  for (let j = 0; j < m.content.length; j++) {
    const part = m.content[j];
    const q = `${p}.content[${j}]`;
    if (!isObj(part)) return invalidType(q, 'an object', part);
    if (!allowed.includes(part.type)) return invalidValue(part.type, allowed, `${q}.type`);
    if ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text !== 'string')
      return part.text === undefined ? missing(`${q}.text`) : invalidType(`${q}.text`, 'a string', part.text);
    if (part.type === 'refusal' && typeof part.refusal !== 'string') return missing(`${q}.refusal`);
    if (part.type === 'input_image' && typeof part.image_url !== 'string' && typeof part.file_id !== 'string')
      return missing(`${q}.image_url`);
  }
  return undefined;
}

/**
 * What depends on stored state: the previous response and item references resolve, reasoning items
 * carry a stored id or an encrypted_content this upstream issued, and in the conversation they
 * make, every tool output answers an earlier call and every call has its output.
 */
function checkResponsesConversation(body: Record<string, any>, lookup: ResponsesLookup): Refusal | undefined {
  const convo: Array<Record<string, any>> = [];
  if (typeof body.previous_response_id === 'string') {
    const before = lookup.conversation(body.previous_response_id);
    if (!before)
      return {
        message: `Previous response with id '${body.previous_response_id}' not found.`,
        param: 'previous_response_id',
        code: 'previous_response_not_found',
      };
    convo.push(...before);
  }
  const input: unknown[] = Array.isArray(body.input) ? body.input : [];
  for (let i = 0; i < input.length; i++) {
    const item = input[i] as Record<string, any>;
    const isRef = item.type === 'item_reference' || (item.type === undefined && !('role' in item));
    if (isRef) {
      const found = lookup.item(item.id);
      if (!found) return { status: 404, message: `Item with id '${item.id}' not found.`, param: 'input', code: null };
      convo.push(found);
      continue;
    }
    if (item.type === 'reasoning') {
      const f = checkReasoningItem(item, `input[${i}]`, lookup);
      if (f) return f;
    }
    convo.push(item);
  }
  return checkToolPairs(convo);
}

function checkReasoningItem(item: Record<string, any>, p: string, lookup: ResponsesLookup): Refusal | undefined {
  if (item.encrypted_content !== undefined && item.encrypted_content !== null) {
    if (unsealReasoning(item.encrypted_content) !== undefined) return undefined;
    return {
      message: `The encrypted content for item ${item.id ?? p} could not be verified.`,
      param: `${p}.encrypted_content`,
      code: 'invalid_encrypted_content',
    };
  }
  if (item.id === undefined) return missing(`${p}.encrypted_content`);
  if (lookup.item(item.id)?.type === 'reasoning') return undefined;
  return {
    status: 404,
    message:
      `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again ` +
      'with `store` set to true, or remove this item from your input.',
    param: 'input',
    code: null,
  };
}

/** Every function / custom tool output answers an earlier call of its kind, and every call is answered. */
function checkToolPairs(convo: Array<Record<string, any>>): Refusal | undefined {
  const calls = new Map<string, { kind: string; answered: boolean }>();
  const kinds: Record<string, [string, string]> = {
    function_call_output: ['function_call', 'function call output'],
    custom_tool_call_output: ['custom_tool_call', 'custom tool call output'],
  };
  for (const item of convo) {
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      calls.set(item.call_id, { kind: item.type, answered: false });
      continue;
    }
    const answers = kinds[item.type];
    if (!answers) continue;
    const call = calls.get(item.call_id);
    if (!call || call.kind !== answers[0])
      return {
        message: `No tool call found for ${answers[1]} with call_id ${item.call_id}.`,
        param: 'input',
        code: null,
      };
    call.answered = true;
  }
  for (const [id, call] of calls) {
    if (!call.answered)
      return {
        message: `No tool output found for ${call.kind.replaceAll('_', ' ')} ${id}.`,
        param: 'input',
        code: null,
      };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

/** Top-level fields of POST /v1/messages; a value names the anthropic-beta prefix the field needs. */
const ANTHROPIC_MESSAGE_FIELDS: Record<string, string | null> = {
  model: null,
  messages: null,
  max_tokens: null,
  system: null,
  metadata: null,
  stop_sequences: null,
  stream: null,
  temperature: null,
  top_p: null,
  top_k: null,
  tools: null,
  tool_choice: null,
  thinking: null,
  service_tier: null,
  output_config: null,
  container: null,
  inference_geo: null,
  cache_control: null,
  speed: null,
  diagnostics: null,
  context_management: 'context-management-',
  mcp_servers: 'mcp-client-',
  output_format: 'structured-outputs-',
};
const ANTHROPIC_COUNT_FIELDS: Record<string, string | null> = {
  model: null,
  messages: null,
  system: null,
  tools: null,
  tool_choice: null,
  thinking: null,
  output_config: null,
  cache_control: null,
  speed: null,
  context_management: 'context-management-',
  mcp_servers: 'mcp-client-',
  output_format: 'structured-outputs-',
};
const ANTHROPIC_BLOCKS = [
  'text',
  'image',
  'document',
  'search_result',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'container_upload',
  'tool_reference',
];
/** Block types the beta API adds; accepted when any anthropic-beta value is sent. */
const ANTHROPIC_BETA_BLOCKS = ['mcp_tool_use', 'mcp_tool_result', 'compaction'];

/**
 * Claude models without extended thinking, and the ones without native structured output (other names are accepted).
 */
const NO_THINKING = /^claude-(?:instant|2|3-(?!7))/;
const NO_OUTPUT_FORMAT = /^claude-(?:instant|2|3)|^claude-(?:opus|sonnet)-4(?:-0)?(?:-\d{8})?$/;

/**
 * What a Claude model takes of the thinking modes and the effort, by its name (a Bedrock or Vertex id too: the
 * Claude name inside it); undefined for other names (`claude-x` too), which the fake accepts. Adaptive thinking:
 * Claude 4.6 and later; a budget: not Opus 4.7 and later, nor Claude 5; `output_config.effort`: Opus 4.5 and Claude
 * 4.6 and later.
 */
function claudeThinking(model: string): { adaptive: boolean; enabled: boolean; effort: boolean } | undefined {
  const id = model.toLowerCase();
  if (/claude-(?:instant|2|3)/.test(id)) return { adaptive: false, enabled: true, effort: false };
  const m = /claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2})(?!\d))?/.exec(id);
  if (!m) return undefined;
  const version = Number(m[2]) + (m[3] === undefined ? 0 : Number(m[3]) / 10);
  return {
    adaptive: version >= 4.6,
    enabled: version < 5 && !(m[1] === 'opus' && version >= 4.7),
    effort: version >= 4.6 || (m[1] === 'opus' && version >= 4.5),
  };
}

function betas(h: IncomingHttpHeaders): string[] {
  const v = h['anthropic-beta'];
  const all = Array.isArray(v) ? v.join(',') : (v ?? '');
  return all
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function bad(message: string): Refusal {
  return { message };
}

export function validateAnthropic(
  body: any,
  headers: IncomingHttpHeaders,
  kind: 'messages' | 'count_tokens',
  extraFields = false,
): Refusal | undefined {
  if (!isObj(body)) return bad('body: Input should be a valid dictionary');
  const beta = betas(headers);
  const fields = kind === 'messages' ? ANTHROPIC_MESSAGE_FIELDS : ANTHROPIC_COUNT_FIELDS;
  for (const k of Object.keys(body)) {
    if (!Object.hasOwn(fields, k) && !extraFields) return bad(`${k}: Extra inputs are not permitted`);
    const needs = fields[k];
    if (needs && !beta.some((b) => b.startsWith(needs))) return bad(`${k}: Extra inputs are not permitted`);
  }
  if (typeof body.model !== 'string')
    return bad(body.model === undefined ? 'model: Field required' : 'model: Input should be a valid string');
  if (kind === 'messages') {
    if (body.max_tokens === undefined) return bad('max_tokens: Field required');
    if (!isInt(body.max_tokens)) return bad('max_tokens: Input should be a valid integer');
    if (body.max_tokens < 0) return bad('max_tokens: Input should be greater than or equal to 0');
  }
  if (!Array.isArray(body.messages))
    return bad(body.messages === undefined ? 'messages: Field required' : 'messages: Input should be a valid list');
  if (body.stream !== undefined && typeof body.stream !== 'boolean')
    return bad('stream: Input should be a valid boolean');

  // system
  if (body.system !== undefined) {
    if (typeof body.system !== 'string') {
      if (!Array.isArray(body.system)) return bad('system: Input should be a valid string or list');
      for (let i = 0; i < body.system.length; i++) {
        const b = body.system[i];
        if (!isObj(b) || b.type !== 'text' || typeof b.text !== 'string')
          return bad(`system.${i}: Input should be a valid text block`);
      }
    }
  }

  // sampling
  if (
    body.temperature !== undefined &&
    (typeof body.temperature !== 'number' || body.temperature < 0 || body.temperature > 1)
  ) {
    return bad('temperature: Input should be less than or equal to 1');
  }
  if (body.top_p !== undefined && (typeof body.top_p !== 'number' || body.top_p < 0 || body.top_p > 1))
    return bad('top_p: Input should be less than or equal to 1');
  if (body.top_k !== undefined && (!isInt(body.top_k) || body.top_k < 0))
    return bad('top_k: Input should be a valid integer');
  if (body.stop_sequences !== undefined) {
    if (!Array.isArray(body.stop_sequences) || body.stop_sequences.some((s: unknown) => typeof s !== 'string'))
      return bad('stop_sequences: Input should be a valid list of strings');
    if (body.stop_sequences.some((s: string) => s.trim() === ''))
      return bad('stop_sequences: each stop sequence must contain non-whitespace');
  }
  if (body.metadata !== undefined) {
    if (!isObj(body.metadata)) return bad('metadata: Input should be a valid dictionary');
    for (const k of Object.keys(body.metadata))
      if (k !== 'user_id') return bad(`metadata.${k}: Extra inputs are not permitted`);
  }
  if (body.service_tier !== undefined && !['auto', 'standard_only'].includes(body.service_tier))
    return bad("service_tier: Input should be 'auto' or 'standard_only'");

  // thinking
  const thinking = body.thinking;
  let thinkingOn = false;
  if (thinking !== undefined) {
    if (!isObj(thinking)) return bad('thinking: Input should be a valid dictionary');
    if (thinking.type === 'enabled') {
      if (!isInt(thinking.budget_tokens))
        return bad(
          thinking.budget_tokens === undefined
            ? 'thinking.enabled.budget_tokens: Field required'
            : 'thinking.enabled.budget_tokens: Input should be a valid integer',
        );
      if (thinking.budget_tokens < 1024)
        return bad('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
      if (kind === 'messages' && thinking.budget_tokens >= body.max_tokens)
        return bad(
          '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at ' +
            'https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size',
        );
      thinkingOn = true;
    } else if (thinking.type === 'adaptive') {
      thinkingOn = true;
    } else if (thinking.type !== 'disabled' && thinking.type !== 'between_tools') {
      return bad(
        `thinking: Input tag '${String(thinking.type)}' found using 'type' does not match any of the expected tags: ` +
          `'enabled', 'disabled', 'adaptive', 'between_tools'`,
      );
    }
    for (const k of Object.keys(thinking)) {
      if (!['type', 'budget_tokens', 'display'].includes(k))
        return bad(`thinking.${thinking.type}.${k}: Extra inputs are not permitted`);
      if (k === 'budget_tokens' && thinking.type !== 'enabled')
        return bad(`thinking.${thinking.type}.budget_tokens: Extra inputs are not permitted`);
    }
    if (
      thinking.display !== undefined &&
      thinking.display !== null &&
      !['summarized', 'omitted'].includes(thinking.display)
    )
      return bad("thinking.display: Input should be 'summarized' or 'omitted'");
  }
  if (thinkingOn && NO_THINKING.test(body.model))
    return bad(`thinking: '${body.model}' does not support extended thinking`);
  // Messages only: whether count_tokens refuses them too is not documented (the gateway forwards counts as sent).
  const takes = kind === 'messages' ? claudeThinking(body.model) : undefined;
  if (takes && thinking?.type === 'adaptive' && !takes.adaptive)
    return bad('adaptive thinking is not supported on this model');
  if (takes && thinking?.type === 'enabled' && !takes.enabled)
    return bad(
      '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and ' +
        '"output_config.effort" to control thinking behavior.',
    );
  if (takes && !takes.effort && isObj(body.output_config) && body.output_config.effort !== undefined)
    return bad('This model does not support the effort parameter.');
  if (thinkingOn) {
    if (body.temperature !== undefined && body.temperature !== 1)
      return bad(
        '`temperature` may only be set to 1 when thinking is enabled or in adaptive mode. Please consult our ' +
          'documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility',
      );
    if (body.top_k !== undefined)
      return bad(
        '`top_k` must be unset when thinking is enabled. Please consult our documentation at ' +
          'https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility',
      );
    if (body.top_p !== undefined && body.top_p < 0.95)
      return bad(
        '`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled. Please consult our ' +
          'documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility',
      );
  }

  // output_config
  if (body.output_config !== undefined) {
    const oc = body.output_config;
    if (!isObj(oc)) return bad('output_config: Input should be a valid dictionary');
    for (const k of Object.keys(oc))
      if (k !== 'effort' && k !== 'format' && k !== 'task_budget')
        return bad(`output_config.${k}: Extra inputs are not permitted`);
    if (oc.effort !== undefined && oc.effort !== null && !['low', 'medium', 'high', 'xhigh', 'max'].includes(oc.effort))
      return bad("output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'");
    if (oc.format !== undefined && oc.format !== null) {
      const f = oc.format;
      if (!isObj(f) || f.type !== 'json_schema') return bad("output_config.format.type: Input should be 'json_schema'");
      if (!isObj(f.schema)) return bad('output_config.format.schema: Field required');
      for (const k of Object.keys(f))
        if (k !== 'type' && k !== 'schema') return bad(`output_config.format.${k}: Extra inputs are not permitted`);
      if (NO_OUTPUT_FORMAT.test(body.model))
        return bad(`output_config.format: '${body.model}' does not support structured outputs`);
      const open = openObjectPath(f.schema, 'output_config.format.schema', false);
      if (open)
        return bad(`${open.split(':')[0]}: For 'object' type, 'additionalProperties' must be explicitly set to false`);
    }
  }

  // tools
  const toolNames: string[] = [];
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return bad('tools: Input should be a valid list');
    for (let i = 0; i < body.tools.length; i++) {
      const t = body.tools[i];
      if (!isObj(t)) return bad(`tools.${i}: Input should be a valid dictionary`);
      if (typeof t.name !== 'string') return bad(`tools.${i}.name: Field required`);
      if (!TOOL_NAME_ANTHROPIC.test(t.name))
        return bad(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
      if (t.type === undefined || t.type === 'custom') {
        if (!isObj(t.input_schema)) return bad(`tools.${i}.custom.input_schema: Field required`);
        if (t.input_schema.type !== 'object')
          return bad(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
        for (const k of Object.keys(t)) {
          if (
            ![
              'type',
              'name',
              'description',
              'input_schema',
              'cache_control',
              'strict',
              'input_examples',
              'defer_loading',
              'allowed_callers',
              'eager_input_streaming',
            ].includes(k)
          ) {
            return bad(`tools.${i}.custom.${k}: Extra inputs are not permitted`);
          }
        }
      } else if (typeof t.type !== 'string' || !/_\d{8}$/.test(t.type)) {
        return bad(
          `tools.${i}: Input tag '${String(t.type)}' found using 'type' does not match any of the expected tags`,
        );
      }
      if (toolNames.includes(t.name)) return bad(`tools: Tool names must be unique. Duplicate name: ${t.name}`);
      toolNames.push(t.name);
    }
  }
  if (body.tool_choice !== undefined) {
    const tc = body.tool_choice;
    if (!isObj(tc) || !['auto', 'any', 'tool', 'none'].includes(tc.type))
      return bad("tool_choice: Input tag does not match any of the expected tags: 'auto', 'any', 'tool', 'none'");
    if (tc.type === 'tool') {
      if (typeof tc.name !== 'string') return bad('tool_choice.tool.name: Field required');
      if (!toolNames.includes(tc.name)) return bad(`tool_choice: tool '${tc.name}' not found in 'tools'`);
    }
    if (tc.disable_parallel_tool_use !== undefined && typeof tc.disable_parallel_tool_use !== 'boolean')
      return bad(`tool_choice.${tc.type}.disable_parallel_tool_use: Input should be a valid boolean`);
    if (thinkingOn && (tc.type === 'any' || tc.type === 'tool'))
      return bad('Thinking may not be enabled when tool_choice forces tool use.');
  }

  return checkAnthropicMessages(body.messages, beta, thinkingOn);
}

function checkAnthropicMessages(messages: any[], beta: string[], thinkingOn: boolean): Refusal | undefined {
  const systemAllowed = beta.some((b) => b.startsWith('mid-conversation-system'));
  const betaBlocks = beta.length > 0;
  const convo: Array<{ role: string; blocks: any[]; index: number }> = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObj(m)) return bad(`messages.${i}: Input should be a valid dictionary`);
    for (const k of Object.keys(m))
      if (k !== 'role' && k !== 'content') return bad(`messages.${i}.${k}: Extra inputs are not permitted`);
    if (m.role === 'system' ? !systemAllowed : m.role !== 'user' && m.role !== 'assistant') {
      return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    }
    if (m.content === undefined) return bad(`messages.${i}.content: Field required`);
    let blocks: any[];
    if (typeof m.content === 'string') blocks = [{ type: 'text', text: m.content }];
    else if (Array.isArray(m.content)) blocks = m.content;
    else return bad(`messages.${i}.content: Input should be a valid string or list`);
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j];
      const p = `messages.${i}.content.${j}`;
      if (!isObj(b)) return bad(`${p}: Input should be a valid dictionary`);
      if (!ANTHROPIC_BLOCKS.includes(b.type) && !(betaBlocks && ANTHROPIC_BETA_BLOCKS.includes(b.type))) {
        return bad(
          `${p}: Input tag '${String(b.type)}' found using 'type' does not match any of the expected tags: ` +
            `${ANTHROPIC_BLOCKS.map((t) => `'${t}'`).join(', ')}`,
        );
      }
      if (m.role === 'system' && b.type !== 'text')
        return bad(`${p}.type: system messages may only contain text blocks`);
      const f = checkAnthropicBlock(b, p, m.role);
      if (f) return f;
    }
    if (m.role === 'system') continue;
    if (convo.length === 0 && m.role !== 'user') return bad('messages: first message must use the "user" role');
    // Consecutive same-role turns are combined into one turn by the API.
    const prev = convo.at(-1);
    if (prev && prev.role === m.role) prev.blocks.push(...blocks);
    else convo.push({ role: m.role, blocks: [...blocks], index: i });
  }
  if (convo.length === 0) return bad('messages: at least one message is required');

  // tool_use ↔ tool_result pairing, and block order.
  for (let t = 0; t < convo.length; t++) {
    const turn = convo[t]!;
    const next = convo[t + 1];
    if (turn.role === 'assistant') {
      const uses = turn.blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
      if (uses.length > 0 && next) {
        const answered = next.blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id as string);
        const unanswered = uses.filter((id) => !answered.includes(id));
        if (unanswered.length > 0) {
          return bad(
            `messages.${next.index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ` +
              `${unanswered.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block ` +
              `in the next message.`,
          );
        }
      }
    } else {
      const results = turn.blocks.filter((b) => b.type === 'tool_result');
      if (results.length === 0) continue;
      const prev = convo[t - 1];
      const known = prev ? prev.blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string) : [];
      const strange = results.map((b) => b.tool_use_id as string).filter((id) => !known.includes(id));
      if (strange.length > 0) {
        return bad(
          `messages.${turn.index}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ` +
            `${strange.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block ` +
            `in the previous message.`,
        );
      }
      const firstOther = turn.blocks.findIndex((b) => b.type !== 'tool_result');
      const lastResult = turn.blocks.map((b) => b.type).lastIndexOf('tool_result');
      if (firstOther !== -1 && firstOther < lastResult) {
        return bad(
          `messages.${turn.index}: tool_result blocks must come first in the user message content, before any other ` +
            `content`,
        );
      }
    }
  }

  // With thinking on, a continued tool loop's last assistant turn must start with its thinking block.
  if (thinkingOn && convo.length >= 2) {
    const last = convo.at(-1)!;
    const prev = convo.at(-2)!;
    if (last.role === 'user' && last.blocks.some((b) => b.type === 'tool_result') && prev.role === 'assistant') {
      const first = prev.blocks[0];
      if (first && first.type !== 'thinking' && first.type !== 'redacted_thinking') {
        return bad(
          `messages.${prev.index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found ` +
            `\`${first.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a ` +
            `thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend ` +
            `you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. ` +
            `Please consult our documentation at ` +
            `https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
        );
      }
    }
  }
  return undefined;
}

function checkAnthropicBlock(b: Record<string, any>, p: string, role: string): Refusal | undefined {
  switch (b.type) {
    case 'text':
      if (typeof b.text !== 'string') return bad(`${p}.text.text: Field required`);
      if (b.text === '') return bad(`${p}: text content blocks must be non-empty`);
      return undefined;
    case 'thinking':
      if (role !== 'assistant') return bad(`${p}: thinking blocks may only appear in assistant messages`);
      if (typeof b.thinking !== 'string') return bad(`${p}.thinking.thinking: Field required`);
      if (typeof b.signature !== 'string') return bad(`${p}.thinking.signature: Field required`);
      return undefined;
    case 'redacted_thinking':
      if (role !== 'assistant') return bad(`${p}: redacted_thinking blocks may only appear in assistant messages`);
      if (typeof b.data !== 'string') return bad(`${p}.redacted_thinking.data: Field required`);
      return undefined;
    case 'tool_use':
      if (role !== 'assistant') return bad(`${p}: tool_use blocks may only appear in assistant messages`);
      if (typeof b.id !== 'string') return bad(`${p}.tool_use.id: Field required`);
      if (typeof b.name !== 'string') return bad(`${p}.tool_use.name: Field required`);
      if (!isObj(b.input)) return bad(`${p}.tool_use.input: Input should be a valid dictionary`);
      return undefined;
    case 'tool_result':
      if (role !== 'user') return bad(`${p}: tool_result blocks may only appear in user messages`);
      if (typeof b.tool_use_id !== 'string') return bad(`${p}.tool_result.tool_use_id: Field required`);
      if (b.content !== undefined && typeof b.content !== 'string' && !Array.isArray(b.content))
        return bad(`${p}.tool_result.content: Input should be a valid string or list`);
      if (b.is_error !== undefined && typeof b.is_error !== 'boolean')
        return bad(`${p}.tool_result.is_error: Input should be a valid boolean`);
      return undefined;
    case 'image':
      if (!isObj(b.source)) return bad(`${p}.image.source: Field required`);
      return undefined;
    default:
      return undefined;
  }
}
