/**
 * A STRICT upstream: a real HTTP server on 127.0.0.1 that plays both providers the way the real APIs
 * behave, refusing what they refuse (with their error shapes and statuses) so a gateway bug that a
 * lenient mock would hide fails the test. Shares no code with src/.
 *
 *   POST /v1/chat/completions        OpenAI Chat Completions (Bearer key required)
 *   POST /v1/messages                Anthropic Messages (x-api-key or Bearer, and anthropic-version required)
 *   POST /v1/messages/count_tokens   Anthropic token counting ({input_tokens})
 *   anything else                    404 in the format the path suggests
 *
 * API
 *   const up = await startStrictUpstream({ reply?, reasoningModels? })
 *   up.url                    base URL (configure providers with base_url `${up.url}/v1`)
 *   up.received               every request: {method, path, headers, rawBody, body, format, status, error?}
 *   up.accepted / up.rejected the ones answered 2xx / refused (error: the message sent back)
 *   up.last(path?)            newest request (on a path)
 *   up.setReply(fn)           program the answers: fn(req) → StrictReply | undefined (undefined = default)
 *   up.reset()                forget recorded requests (keeps the reply hook)
 *   up.close()
 *
 * Validation is exported for unit tests: validateOpenAIChat(body) / validateAnthropic(body, headers, kind)
 * return undefined or the refusal {message, param?, code?}.
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
 *     Claude models before 3.7; output_config.format on Claude models without structured outputs
 *     (before Opus 4.1 / 4.5); OpenAI `user` longer than 64 characters.
 *
 * Default answers (when the hook returns undefined): a forced tool choice → that tool called with an
 * object sampled from its schema; structured output asked (response_format json_schema/json_object,
 * output_config.format) → JSON text sampled from the schema; otherwise text `echo: <last user text>`.
 * Usage is never zero: input ≈ request characters / 4, output = words (+ 10 per tool call).
 * Streams follow the documented event order (see renderOpenAIStream / renderAnthropicStream).
 */

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type StrictFormat = 'openai' | 'anthropic';

export interface StrictRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any;
  format: StrictFormat;
  /** HTTP status answered. */
  status: number;
  /** The refusal message, when refused. */
  error?: string;
}

export interface StrictToolCall {
  name: string;
  args: unknown;
  id?: string;
}

/** What to answer; fields combine (thinking + text + tool calls). */
export interface StrictReply {
  text?: string;
  /** Anthropic: a thinking block before the rest (with a signature). OpenAI: counted as reasoning tokens only. */
  thinking?: string;
  toolCalls?: StrictToolCall[];
  /** Structured output: JSON text (OpenAI content; Anthropic text), or the forced tool's input when a tool is forced. */
  json?: unknown;
  finish?: 'stop' | 'length';
  error?: { status: number; message?: string; type?: string };
  usage?: { input?: number; output?: number; cacheRead?: number; cacheCreation?: number };
}

export type StrictReplyHook = (req: StrictRequest) => StrictReply | undefined | Promise<StrictReply | undefined>;

export interface StrictUpstreamOptions {
  reply?: StrictReplyHook;
  /** Model names that behave as OpenAI reasoning models. Default /^(o\d|gpt-5)/. */
  reasoningModels?: RegExp;
  /** Delay between stream events, ms (default 0). */
  streamDelayMs?: number;
}

export interface StrictUpstream {
  url: string;
  received: StrictRequest[];
  readonly accepted: StrictRequest[];
  readonly rejected: StrictRequest[];
  last(path?: string): StrictRequest | undefined;
  setReply(hook: StrictReplyHook | undefined): void;
  reset(): void;
  close(): Promise<void>;
}

export interface Refusal {
  message: string;
  param?: string | null;
  code?: string | null;
  status?: number;
  type?: string;
}

const DEFAULT_REASONING = /^(o\d|gpt-5)/;

export async function startStrictUpstream(opts: StrictUpstreamOptions = {}): Promise<StrictUpstream> {
  let hook = opts.reply;
  const reasoning = opts.reasoningModels ?? DEFAULT_REASONING;
  const received: StrictRequest[] = [];
  let seq = 0;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '').split('?')[0]!;
    const format: StrictFormat = path.startsWith('/v1/messages') ? 'anthropic' : 'openai';
    let body: any;
    let parsed = true;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      parsed = false;
    }
    const rec: StrictRequest = {
      method: req.method ?? '',
      path,
      headers: req.headers,
      rawBody,
      body,
      format,
      status: 200,
    };
    received.push(rec);
    seq += 1;

    const refuse = (r: Refusal) => {
      const status = r.status ?? 400;
      rec.status = status;
      rec.error = r.message;
      res.writeHead(status, { 'content-type': 'application/json', ...requestIdHeader(format, seq) });
      res.end(JSON.stringify(errorBody(format, status, r, seq)));
    };

    const route = `${req.method} ${path}`;
    if (
      route !== 'POST /v1/chat/completions' &&
      route !== 'POST /v1/messages' &&
      route !== 'POST /v1/messages/count_tokens'
    ) {
      return refuse({
        status: 404,
        message: `Not found: ${req.method} ${path}`,
        type: format === 'openai' ? 'invalid_request_error' : 'not_found_error',
      });
    }
    const auth = authRefusal(format, req.headers);
    if (auth) return refuse(auth);
    if (!parsed) {
      return refuse(
        format === 'openai'
          ? {
              message:
                "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
            }
          : { message: 'There was an issue with your request: invalid JSON' },
      );
    }
    const kind = path === '/v1/messages/count_tokens' ? 'count_tokens' : 'messages';
    const fault =
      format === 'openai' ? validateOpenAIChat(body, reasoning) : validateAnthropic(body, req.headers, kind);
    if (fault) return refuse(fault);

    if (kind === 'count_tokens' && format === 'anthropic') {
      res.writeHead(200, { 'content-type': 'application/json', ...requestIdHeader(format, seq) });
      res.end(JSON.stringify({ input_tokens: estimateTokens(body) }));
      return;
    }
    const answer = (await hook?.(rec)) ?? defaultReply(format, body);
    if (answer.error) {
      return refuse({
        status: answer.error.status,
        message: answer.error.message ?? `scripted ${answer.error.status}`,
        type: answer.error.type,
      });
    }
    const plan = planAnswer(format, body, answer, seq);
    const headers = { ...requestIdHeader(format, seq) };
    if (body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
      const events = format === 'openai' ? renderOpenAIStream(plan, body) : renderAnthropicStream(plan);
      for (const e of events) {
        res.write(e);
        if (opts.streamDelayMs) await new Promise((r) => setTimeout(r, opts.streamDelayMs));
      }
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(format === 'openai' ? renderOpenAIJson(plan) : renderAnthropicJson(plan)));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    get accepted() {
      return received.filter((r) => r.status < 300);
    },
    get rejected() {
      return received.filter((r) => r.status >= 300);
    },
    last: (path) => [...received].reverse().find((r) => path === undefined || r.path === path),
    setReply: (h) => {
      hook = h;
    },
    reset: () => {
      received.length = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Errors, auth

function requestIdHeader(format: StrictFormat, seq: number): Record<string, string> {
  return format === 'openai' ? { 'x-request-id': `req_strict_${seq}` } : { 'request-id': `req_strict_${seq}` };
}

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

function errorBody(format: StrictFormat, status: number, r: Refusal, seq: number): unknown {
  if (format === 'anthropic') {
    return {
      type: 'error',
      error: { type: r.type ?? ANTHROPIC_ERROR_TYPES[status] ?? 'api_error', message: r.message },
      request_id: `req_strict_${seq}`,
    };
  }
  const type = r.type ?? (status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error');
  const code = r.code !== undefined ? r.code : status === 429 ? 'rate_limit_exceeded' : null;
  return { error: { message: r.message, type, param: r.param ?? null, code } };
}

function authRefusal(format: StrictFormat, h: IncomingHttpHeaders): Refusal | undefined {
  const bearer = typeof h.authorization === 'string' && /^Bearer \S+/.test(h.authorization);
  if (format === 'openai') {
    if (!bearer)
      return {
        status: 401,
        message:
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
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
        return `${path}: 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'`;
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

export function validateOpenAIChat(body: any, reasoningModels: RegExp = DEFAULT_REASONING): Refusal | undefined {
  if (!isObj(body)) return { message: 'Invalid body: expected a JSON object.', code: 'invalid_type' };
  for (const k of Object.keys(body)) {
    if (!OPENAI_FIELDS.has(k))
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
        message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`,
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
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
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
      message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`,
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
        message: `Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got ${body.max_tokens} instead.`,
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
        message: `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
        param: 'temperature',
        code: 'unsupported_value',
      };
    if (body.temperature < 0 || body.temperature > 2)
      return {
        message: `Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got ${body.temperature} instead.`,
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
      message: `Invalid 'user': string too long. Expected a string with maximum length 64, but got a string with length ${body.user.length} instead.`,
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
        message: `Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length ${stops.length} instead.`,
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
          message: `Invalid '${p}.${t.type}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
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
          message: `Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
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

/** Claude models without extended thinking, and the ones without native structured output (other names are accepted). */
const NO_THINKING = /^claude-(?:instant|2|3-(?!7))/;
const NO_OUTPUT_FORMAT = /^claude-(?:instant|2|3)|^claude-(?:opus|sonnet)-4(?:-0)?(?:-\d{8})?$/;

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
): Refusal | undefined {
  if (!isObj(body)) return bad('body: Input should be a valid dictionary');
  const beta = betas(headers);
  const fields = kind === 'messages' ? ANTHROPIC_MESSAGE_FIELDS : ANTHROPIC_COUNT_FIELDS;
  for (const k of Object.keys(body)) {
    if (!(k in fields)) return bad(`${k}: Extra inputs are not permitted`);
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
          '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size',
        );
      thinkingOn = true;
    } else if (thinking.type === 'adaptive') {
      thinkingOn = true;
    } else if (thinking.type !== 'disabled' && thinking.type !== 'between_tools') {
      return bad(
        `thinking: Input tag '${String(thinking.type)}' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive', 'between_tools'`,
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
  if (thinkingOn) {
    if (body.temperature !== undefined && body.temperature !== 1)
      return bad(
        '`temperature` may only be set to 1 when thinking is enabled or in adaptive mode. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility',
      );
    if (body.top_k !== undefined)
      return bad(
        '`top_k` must be unset when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility',
      );
    if (body.top_p !== undefined && body.top_p < 0.95)
      return bad(
        '`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility',
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
          `${p}: Input tag '${String(b.type)}' found using 'type' does not match any of the expected tags: ${ANTHROPIC_BLOCKS.map((t) => `'${t}'`).join(', ')}`,
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
            `messages.${next.index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
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
          `messages.${turn.index}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${strange.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
      const firstOther = turn.blocks.findIndex((b) => b.type !== 'tool_result');
      const lastResult = turn.blocks.map((b) => b.type).lastIndexOf('tool_result');
      if (firstOther !== -1 && firstOther < lastResult) {
        return bad(
          `messages.${turn.index}: tool_result blocks must come first in the user message content, before any other content`,
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
          `messages.${prev.index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
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

// ---------------------------------------------------------------------------------------------
// Answers

/** A value that satisfies a JSON schema (enough of JSON Schema for tool inputs and structured output). */
export function sampleFromSchema(schema: unknown, defs: Record<string, unknown> = {}, depth = 0): unknown {
  if (!isObj(schema) || depth > 12) return {};
  const allDefs = {
    ...defs,
    ...(isObj(schema.$defs) ? schema.$defs : {}),
    ...(isObj(schema.definitions) ? schema.definitions : {}),
  };
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').at(-1)!;
    return sampleFromSchema(allDefs[name], allDefs, depth + 1);
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key]) && schema[key].length > 0) {
      const notNull = schema[key].find((s: any) => !(isObj(s) && s.type === 'null')) ?? schema[key][0];
      return sampleFromSchema(notNull, allDefs, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return Object.assign({}, ...schema.allOf.map((s: unknown) => sampleFromSchema(s, allDefs, depth + 1)));
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return schema.format === 'date-time'
        ? '2024-01-01T00:00:00Z'
        : schema.format === 'email'
          ? 'a@example.com'
          : schema.format === 'uri'
            ? 'https://example.com'
            : 'sample';
    case 'integer':
      return Math.max(1, typeof schema.minimum === 'number' ? Math.ceil(schema.minimum) : 1);
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1.5;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const n = Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1);
      return Array.from({ length: n }, () => sampleFromSchema(schema.items, allDefs, depth + 1));
    }
    default: {
      const out: Record<string, unknown> = {};
      if (isObj(schema.properties)) {
        for (const [k, v] of Object.entries(schema.properties)) out[k] = sampleFromSchema(v, allDefs, depth + 1);
      }
      return out;
    }
  }
}

/** Text of the last user message (string content or its text parts), in either format. */
export function lastUserText(body: any): string {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m?.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      const t = m.content
        .filter((b: any) => b?.type === 'text')
        .map((b: any) => b.text)
        .join(' ');
      if (t) return t;
      const r = m.content.find((b: any) => b?.type === 'tool_result');
      if (r) return typeof r.content === 'string' ? `tool result: ${r.content}` : 'tool result';
    }
  }
  return '';
}

/** The schema the request demands an answer in, if any. */
function structuredSchema(format: StrictFormat, body: any): unknown | undefined {
  if (format === 'openai') {
    const rf = body.response_format;
    if (rf?.type === 'json_schema') return rf.json_schema?.schema ?? {};
    if (rf?.type === 'json_object') return { type: 'object', properties: { ok: { type: 'boolean' } } };
    return undefined;
  }
  return body.output_config?.format?.schema;
}

function forcedTool(format: StrictFormat, body: any): { name: string; schema: unknown } | undefined {
  const tools: any[] = Array.isArray(body.tools) ? body.tools : [];
  let name: string | undefined;
  if (format === 'openai') {
    const tc = body.tool_choice;
    if (tc === 'required') name = tools[0]?.function?.name;
    else if (tc?.type === 'function') name = tc.function?.name;
    const t = tools.find((x) => x.function?.name === name);
    return t ? { name: t.function.name, schema: t.function.parameters } : undefined;
  }
  const tc = body.tool_choice;
  if (tc?.type === 'any') name = tools.find((t) => t.input_schema)?.name;
  else if (tc?.type === 'tool') name = tc.name;
  const t = tools.find((x) => x.name === name);
  return t ? { name: t.name, schema: t.input_schema } : undefined;
}

function defaultReply(format: StrictFormat, body: any): StrictReply {
  const forced = forcedTool(format, body);
  if (forced) return { toolCalls: [{ name: forced.name, args: sampleFromSchema(forced.schema) }] };
  const schema = structuredSchema(format, body);
  if (schema !== undefined) return { json: sampleFromSchema(schema) };
  return { text: `echo: ${lastUserText(body)}` };
}

interface AnswerPlan {
  id: string;
  model: string;
  thinking?: string;
  text?: string;
  toolCalls: Array<{ id: string; name: string; argsJson: string }>;
  finish: 'stop' | 'length' | 'tool_calls';
  usage: { input: number; output: number; cacheRead: number; cacheCreation: number; reasoning: number };
}

function estimateTokens(body: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(body ?? '').length / 4));
}
const words = (s: string) => s.match(/\S+\s*/g) ?? [];

function planAnswer(format: StrictFormat, body: any, r: StrictReply, seq: number): AnswerPlan {
  let text = r.text;
  let toolCalls = r.toolCalls ?? [];
  if (r.json !== undefined) {
    const forced = forcedTool(format, body);
    if (forced && toolCalls.length === 0) toolCalls = [{ name: forced.name, args: r.json }];
    else text = JSON.stringify(r.json);
  }
  const calls = toolCalls.map((c, i) => ({
    id: c.id ?? (format === 'openai' ? `call_strict_${seq}_${i}` : `toolu_strict_${seq}_${i}`),
    name: c.name,
    argsJson: JSON.stringify(c.args ?? {}),
  }));
  const reasoning = r.thinking ? Math.max(1, words(r.thinking).length) : 0;
  const output = r.usage?.output ?? Math.max(1, words(text ?? '').length + 10 * calls.length + reasoning);
  return {
    id: format === 'openai' ? `chatcmpl-strict${seq}` : `msg_strict${seq}`,
    model: String(body.model),
    thinking: format === 'anthropic' ? r.thinking : undefined,
    text,
    toolCalls: calls,
    finish: calls.length > 0 ? 'tool_calls' : (r.finish ?? 'stop'),
    usage: {
      input: r.usage?.input ?? estimateTokens(body),
      output,
      cacheRead: r.usage?.cacheRead ?? 0,
      cacheCreation: r.usage?.cacheCreation ?? 0,
      reasoning,
    },
  };
}

function openaiUsage(p: AnswerPlan) {
  const prompt = p.usage.input + p.usage.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: p.usage.output,
    total_tokens: prompt + p.usage.output,
    prompt_tokens_details: { cached_tokens: p.usage.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: p.usage.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function renderOpenAIJson(p: AnswerPlan): unknown {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: p.text ?? null,
    refusal: null,
    annotations: [],
  };
  if (p.toolCalls.length > 0) {
    message.tool_calls = p.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.argsJson },
    }));
  }
  return {
    id: p.id,
    object: 'chat.completion',
    created: 1700000000,
    model: p.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: p.finish }],
    usage: openaiUsage(p),
    service_tier: 'default',
    system_fingerprint: 'fp_strict',
  };
}

/** Role chunk, content deltas, tool-call chunks (id+name first, then argument pieces), finish chunk, usage chunk, [DONE]. */
function renderOpenAIStream(p: AnswerPlan, body: any): string[] {
  const withUsage = body.stream_options?.include_usage === true;
  const head = {
    id: p.id,
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: p.model,
    service_tier: 'default',
    system_fingerprint: 'fp_strict',
  };
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(withUsage ? { usage: null } : {}) })}\n\n`;
  const out = [chunk({ role: 'assistant', content: '', refusal: null }, null)];
  for (const w of words(p.text ?? '')) out.push(chunk({ content: w }, null));
  p.toolCalls.forEach((c, index) => {
    out.push(
      chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }, null),
    );
    for (let i = 0; i < c.argsJson.length; i += 8)
      out.push(chunk({ tool_calls: [{ index, function: { arguments: c.argsJson.slice(i, i + 8) } }] }, null));
  });
  out.push(chunk({}, p.finish));
  if (withUsage) out.push(`data: ${JSON.stringify({ ...head, choices: [], usage: openaiUsage(p) })}\n\n`);
  out.push('data: [DONE]\n\n');
  return out;
}

const ANTHROPIC_STOP = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use' } as const;

function anthropicContent(p: AnswerPlan): any[] {
  const content: any[] = [];
  if (p.thinking !== undefined)
    content.push({
      type: 'thinking',
      thinking: p.thinking,
      signature: `sig_${Buffer.from(p.thinking).toString('base64').slice(0, 16)}`,
    });
  if (p.text !== undefined && p.text !== '') content.push({ type: 'text', text: p.text });
  for (const c of p.toolCalls)
    content.push({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.argsJson) });
  return content;
}

function anthropicUsage(p: AnswerPlan) {
  return {
    input_tokens: p.usage.input,
    cache_creation_input_tokens: p.usage.cacheCreation,
    cache_read_input_tokens: p.usage.cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: p.usage.cacheCreation, ephemeral_1h_input_tokens: 0 },
    output_tokens: p.usage.output,
    service_tier: 'standard',
  };
}

function renderAnthropicJson(p: AnswerPlan): unknown {
  return {
    id: p.id,
    type: 'message',
    role: 'assistant',
    model: p.model,
    content: anthropicContent(p),
    stop_reason: ANTHROPIC_STOP[p.finish],
    stop_sequence: null,
    usage: anthropicUsage(p),
  };
}

/** message_start, ping, per block content_block_start/delta…/stop, message_delta (stop_reason, usage), message_stop. */
function renderAnthropicStream(p: AnswerPlan): string[] {
  const ev = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const startUsage = { ...anthropicUsage(p), output_tokens: 1 };
  const out = [
    ev('message_start', {
      message: {
        id: p.id,
        type: 'message',
        role: 'assistant',
        model: p.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: startUsage,
      },
    }),
    ev('ping', {}),
  ];
  let index = 0;
  for (const block of anthropicContent(p)) {
    if (block.type === 'thinking') {
      out.push(ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      for (const w of words(block.thinking))
        out.push(ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: w } }));
      out.push(ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } }));
    } else if (block.type === 'text') {
      out.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const w of words(block.text))
        out.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: w } }));
    } else {
      const json = JSON.stringify(block.input);
      out.push(
        ev('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        }),
      );
      for (let i = 0; i < json.length; i += 8)
        out.push(
          ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(i, i + 8) } }),
        );
    }
    out.push(ev('content_block_stop', { index }));
    index += 1;
  }
  const u = anthropicUsage(p);
  out.push(
    ev('message_delta', {
      delta: { stop_reason: ANTHROPIC_STOP[p.finish], stop_sequence: null },
      usage: {
        input_tokens: u.input_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
        output_tokens: u.output_tokens,
      },
    }),
  );
  out.push(ev('message_stop', {}));
  return out;
}
