/**
 * Anthropic Messages request (a caller's /v1/messages body) → canonical ChatRequest, validating
 * what the gateway relies on and naming the field at fault. `cache_control` (on blocks, tools,
 * system or top level) is a caching hint: it is ignored here and still reaches an Anthropic
 * upstream through pass-through, which forwards the caller's bytes.
 * @see https://docs.anthropic.com/en/api/messages
 */

import type { ChatMessage, ChatRequest, ContentPart, ImageSource, ToolChoice, ToolSpec } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import type { DecodeOptions } from '../types.js';

type Json = Record<string, unknown>;

export function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Top-level fields read (or deliberately ignored) below; any other field with a non-default value is `unmapped`. */
const KNOWN = new Set([
  'model', 'max_tokens', 'messages', 'system', 'tools', 'tool_choice', 'stop_sequences',
  'temperature', 'top_p', 'top_k', 'stream', 'metadata', 'thinking', 'cache_control',
]);

/** Documented defaults: a field sent with its default value changes nothing, so it does not block translation. */
const DEFAULTS: Record<string, unknown> = { service_tier: 'auto', speed: 'standard' };

function isDefault(field: string, v: unknown): boolean {
  return v === undefined || v === null || (Array.isArray(v) && v.length === 0) || DEFAULTS[field] === v;
}

function optNumber(body: Json, field: string, min: number, max: number, integer = false): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    const what = integer ? 'an integer' : 'a number';
    throw invalid(field, max === Infinity ? `'${field}' must be ${what} of at least ${min}.` : `'${field}' must be ${what} between ${min} and ${max}.`);
  }
  return v;
}

/** `opts.forCounting`: a /v1/messages/count_tokens body, which has no `max_tokens`. */
export function decodeAnthropicRequest(body: unknown, opts: DecodeOptions = {}): ChatRequest {
  if (!isObject(body)) throw invalid('', 'The request body must be a JSON object.');
  const model = body.model;
  if (typeof model !== 'string' || model.length === 0) throw invalid('model', "'model' is required and must be a string.");
  // Unlike OpenAI, Anthropic has no default output limit: the caller must say.
  const maxTokens = body.max_tokens;
  const optional = opts.forCounting === true && (maxTokens === undefined || maxTokens === null);
  if (!optional && (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1)) {
    throw invalid('max_tokens', "'max_tokens' is required and must be a positive integer.");
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw invalid('messages', "'messages' is required and must be a non-empty array.");
  }
  const unmapped: string[] = [];
  const messages = body.messages.map((m, i) => decodeMessage(m, `messages[${i}]`, unmapped));

  const stream = body.stream ?? false;
  if (typeof stream !== 'boolean') throw invalid('stream', "'stream' must be a boolean.");
  const stop = body.stop_sequences;
  if (stop !== undefined && stop !== null && !(Array.isArray(stop) && stop.every((s) => typeof s === 'string'))) {
    throw invalid('stop_sequences', "'stop_sequences' must be an array of strings.");
  }
  const { toolChoice, parallelToolCalls } = decodeToolChoice(body.tool_choice);
  for (const [field, value] of Object.entries(body)) {
    if (!KNOWN.has(field) && !isDefault(field, value)) unmapped.push(field);
  }

  return {
    model,
    system: decodeSystem(body.system),
    messages,
    tools: decodeTools(body.tools, unmapped),
    toolChoice,
    parallelToolCalls,
    maxTokens: optional ? undefined : (maxTokens as number),
    temperature: optNumber(body, 'temperature', 0, 1),
    topP: optNumber(body, 'top_p', 0, 1),
    topK: optNumber(body, 'top_k', 0, Infinity, true),
    stop: (stop as string[] | null | undefined) ?? undefined,
    stream,
    // A stream always carries usage in this format; there is nothing to opt into.
    includeUsage: false,
    user: decodeUser(body.metadata),
    reasoning: decodeThinking(body.thinking, unmapped),
    unmapped,
  };
}

function decodeMessage(m: unknown, at: string, unmapped: string[]): ChatMessage {
  if (!isObject(m)) throw invalid(at, `'${at}' must be an object.`);
  const role = m.role;
  if (role !== 'user' && role !== 'assistant') throw invalid(`${at}.role`, `'${at}.role' must be "user" or "assistant".`);
  const content = m.content;
  if (typeof content === 'string') return { role, content: [{ type: 'text', text: content }] };
  if (!Array.isArray(content)) throw invalid(`${at}.content`, `'${at}.content' must be a string or an array of content blocks.`);
  const parts: ContentPart[] = [];
  content.forEach((b, j) => {
    const part = decodeBlock(b, `${at}.content[${j}]`, role, unmapped);
    if (part) parts.push(part);
  });
  return { role, content: parts };
}

function decodeBlock(b: unknown, p: string, role: 'user' | 'assistant', unmapped: string[]): ContentPart | undefined {
  if (!isObject(b)) throw invalid(p, `'${p}' must be an object.`);
  const onlyIn = (r: 'user' | 'assistant') => {
    if (role !== r) throw invalid(`${p}.type`, `'${p}': ${String(b.type)} blocks belong in ${r} messages.`);
  };
  switch (b.type) {
    case 'text':
      if (typeof b.text !== 'string') throw invalid(`${p}.text`, `'${p}.text' must be a string.`);
      return { type: 'text', text: b.text };
    case 'image':
      return { type: 'image', source: decodeImageSource(b.source, `${p}.source`) };
    case 'tool_use':
      onlyIn('assistant');
      if (typeof b.id !== 'string') throw invalid(`${p}.id`, `'${p}.id' must be a string.`);
      if (typeof b.name !== 'string') throw invalid(`${p}.name`, `'${p}.name' must be a string.`);
      if (!isObject(b.input)) throw invalid(`${p}.input`, `'${p}.input' must be an object.`);
      return { type: 'tool_call', id: b.id, name: b.name, arguments: JSON.stringify(b.input) };
    case 'tool_result': {
      onlyIn('user');
      if (typeof b.tool_use_id !== 'string') throw invalid(`${p}.tool_use_id`, `'${p}.tool_use_id' must be a string.`);
      if (b.is_error !== undefined && typeof b.is_error !== 'boolean') throw invalid(`${p}.is_error`, `'${p}.is_error' must be a boolean.`);
      const part: ContentPart = { type: 'tool_result', toolCallId: b.tool_use_id, content: decodeResultContent(b.content, `${p}.content`) };
      if (b.is_error === true) part.isError = true;
      return part;
    }
    case 'thinking':
      onlyIn('assistant');
      if (typeof b.thinking !== 'string') throw invalid(`${p}.thinking`, `'${p}.thinking' must be a string.`);
      if (typeof b.signature !== 'string') throw invalid(`${p}.signature`, `'${p}.signature' must be a string.`);
      return { type: 'reasoning', text: b.thinking, signature: b.signature };
    case 'redacted_thinking':
      // Encrypted reasoning only Anthropic can read back: fine to forward as-is (pass-through),
      // impossible to translate. It carries no caller text, so the canonical view loses nothing.
      onlyIn('assistant');
      unmapped.push(p);
      return undefined;
    default:
      // A server tool's call and result in an earlier assistant turn (server_tool_use,
      // web_search_tool_result…): forwardable as sent, not translatable; guardrails read the body.
      if (role === 'assistant' && typeof b.type === 'string' && SERVER_TOOL_BLOCK.test(b.type)) {
        unmapped.push(p);
        return undefined;
      }
      // document, search_result…: no canonical form yet.
      throw invalid(`${p}.type`, `'${p}.type' ${JSON.stringify(b.type)} is not supported by this gateway.`);
  }
}

const SERVER_TOOL_BLOCK = /^(server_tool_use|mcp_tool_use|mcp_tool_result|[a-z_]+_tool_result)$/;

function decodeImageSource(s: unknown, p: string): ImageSource {
  if (isObject(s) && s.type === 'base64') {
    if (typeof s.media_type !== 'string') throw invalid(`${p}.media_type`, `'${p}.media_type' must be a string.`);
    if (typeof s.data !== 'string') throw invalid(`${p}.data`, `'${p}.data' must be a string.`);
    return { kind: 'base64', mediaType: s.media_type, data: s.data };
  }
  if (isObject(s) && s.type === 'url') {
    if (typeof s.url !== 'string') throw invalid(`${p}.url`, `'${p}.url' must be a string.`);
    return { kind: 'url', url: s.url };
  }
  // Files-API sources ({type: "file"}) name an upload only Anthropic holds.
  throw invalid(`${p}.type`, `'${p}' must be {type: "base64", media_type, data} or {type: "url", url}.`);
}

function decodeResultContent(c: unknown, p: string): ContentPart[] {
  if (c === undefined || c === null) return [];
  if (typeof c === 'string') return [{ type: 'text', text: c }];
  if (!Array.isArray(c)) throw invalid(p, `'${p}' must be a string or an array of text and image blocks.`);
  return c.map((b, k): ContentPart => {
    const q = `${p}[${k}]`;
    if (isObject(b) && b.type === 'text' && typeof b.text === 'string') return { type: 'text', text: b.text };
    if (isObject(b) && b.type === 'image') return { type: 'image', source: decodeImageSource(b.source, `${q}.source`) };
    throw invalid(`${q}.type`, `'${q}.type' ${JSON.stringify(isObject(b) ? b.type : b)} is not supported in a tool result.`);
  });
}

function decodeSystem(s: unknown): ContentPart[] {
  if (s === undefined || s === null) return [];
  if (typeof s === 'string') return s.length > 0 ? [{ type: 'text', text: s }] : [];
  if (!Array.isArray(s)) throw invalid('system', "'system' must be a string or an array of text blocks.");
  return s.map((b, i): ContentPart => {
    if (!isObject(b) || b.type !== 'text' || typeof b.text !== 'string') {
      throw invalid(`system[${i}]`, `'system[${i}]' must be a text block {type: "text", text}.`);
    }
    return { type: 'text', text: b.text };
  });
}

function decodeTools(tools: unknown, unmapped: string[]): ToolSpec[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw invalid('tools', "'tools' must be an array.");
  const out: ToolSpec[] = [];
  tools.forEach((t, i) => {
    const p = `tools[${i}]`;
    if (!isObject(t)) throw invalid(p, `'${p}' must be an object.`);
    // Client tools have no type (or "custom"). Anthropic-defined tools (web_search_…, bash_…) have
    // no schema to translate: forwarded as sent to an Anthropic upstream (a role may deny server
    // tools, routing/server-tools.ts), refused by translation.
    if (t.type !== undefined && t.type !== null && t.type !== 'custom') {
      unmapped.push(p);
      return;
    }
    if (typeof t.name !== 'string' || t.name.length === 0) throw invalid(`${p}.name`, `'${p}.name' must be a non-empty string.`);
    if (!isObject(t.input_schema)) throw invalid(`${p}.input_schema`, `'${p}.input_schema' must be a JSON Schema object.`);
    if (t.description !== undefined && typeof t.description !== 'string') throw invalid(`${p}.description`, `'${p}.description' must be a string.`);
    out.push({ name: t.name, description: t.description, parameters: t.input_schema });
  });
  return out;
}

function decodeToolChoice(tc: unknown): { toolChoice?: ToolChoice; parallelToolCalls?: boolean } {
  if (tc === undefined || tc === null) return {};
  if (!isObject(tc)) throw invalid('tool_choice', "'tool_choice' must be an object.");
  const dp = tc.disable_parallel_tool_use;
  if (dp !== undefined && typeof dp !== 'boolean') throw invalid('tool_choice.disable_parallel_tool_use', "'tool_choice.disable_parallel_tool_use' must be a boolean.");
  const parallelToolCalls = dp === true ? false : undefined;
  switch (tc.type) {
    case 'auto':
    case 'none':
      return { toolChoice: { type: tc.type }, parallelToolCalls };
    case 'any':
      return { toolChoice: { type: 'required' }, parallelToolCalls };
    case 'tool':
      if (typeof tc.name !== 'string') throw invalid('tool_choice.name', "'tool_choice.name' is required when tool_choice.type is \"tool\".");
      return { toolChoice: { type: 'tool', name: tc.name }, parallelToolCalls };
    default:
      throw invalid('tool_choice.type', "'tool_choice.type' must be one of auto, any, tool, none.");
  }
}

function decodeUser(metadata: unknown): string | undefined {
  if (metadata === undefined || metadata === null) return undefined;
  if (!isObject(metadata)) throw invalid('metadata', "'metadata' must be an object.");
  const id = metadata.user_id;
  if (id === undefined || id === null) return undefined;
  if (typeof id !== 'string') throw invalid('metadata.user_id', "'metadata.user_id' must be a string.");
  return id;
}

function decodeThinking(t: unknown, unmapped: string[]): ChatRequest['reasoning'] {
  if (t === undefined || t === null) return undefined;
  if (!isObject(t) || typeof t.type !== 'string') throw invalid('thinking', "'thinking' must be an object with a 'type'.");
  if (t.type === 'disabled') return undefined;
  if (t.type === 'enabled') {
    const b = t.budget_tokens;
    if (typeof b !== 'number' || !Number.isInteger(b) || b < 1) throw invalid('thinking.budget_tokens', "'thinking.budget_tokens' must be a positive integer.");
    return { budgetTokens: b };
  }
  // Other modes (e.g. "adaptive") have no canonical form: forwardable, not translatable.
  unmapped.push('thinking');
  return undefined;
}
