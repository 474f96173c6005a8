/**
 * Anthropic Messages request (a caller's /v1/messages body) → canonical ChatRequest, validating
 * what the gateway relies on and naming the field at fault. Hints that do not change the meaning
 * of the conversation (`cache_control` anywhere, `context_management`, `service_tier`…) go to
 * `hints`: pass-through forwards the caller's bytes, translation drops and lists them. What has no
 * canonical form and may change the output goes to `unmapped` (translation refuses it by name).
 * @see https://docs.anthropic.com/en/api/messages
 */

import type {
  ChatMessage,
  ChatRequest,
  ContentPart,
  ImageSource,
  ReasoningEffort,
  ResponseFormat,
  ToolChoice,
  ToolSpec,
} from '../../core/canonical.js';
import { invalid, isObject, optBoolean, optNumber, optObject, optString } from '../field-types.js';
import { MAX_TOKENS_LIMIT } from '../output-cap.js';
import type { DecodeOptions } from '../types.js';

export { invalid, isObject } from '../field-types.js';

/** Top-level fields read below; any other field with a non-default value is a hint or `unmapped`. */
const KNOWN = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'stop_sequences',
  'temperature',
  'top_p',
  'top_k',
  'stream',
  'metadata',
  'thinking',
  'output_config',
  'output_format',
]);

/**
 * Provider-side hints: caching, server-side context editing, capacity tier, speed mode, region,
 * diagnostics, container reuse. They change how the provider serves the request, not what the
 * conversation means, so a translation drops them (listed in `x-gateway-dropped-fields`).
 */
const HINTS = new Set([
  'cache_control',
  'context_management',
  'service_tier',
  'speed',
  'inference_geo',
  'diagnostics',
  'container',
]);

const EFFORTS: readonly ReasoningEffort[] = ['low', 'medium', 'high', 'xhigh', 'max'];

/** What decoding collects besides the request: fields translation refuses, and hints it drops. */
interface Notes {
  unmapped: string[];
  hints: Set<string>;
}

/** Documented defaults: a field sent with its default value changes nothing, so it does not block translation. */
const DEFAULTS: Record<string, unknown> = { service_tier: 'auto', speed: 'standard' };

function isDefault(field: string, v: unknown): boolean {
  // Own properties only: a caller's `__proto__` or `constructor` field is just an unknown field.
  return (
    v === undefined ||
    v === null ||
    (Array.isArray(v) && v.length === 0) ||
    (Object.hasOwn(DEFAULTS, field) && DEFAULTS[field] === v)
  );
}

/** `opts.forCounting`: a /v1/messages/count_tokens body, which has no `max_tokens`. */
export function decodeAnthropicRequest(body: unknown, opts: DecodeOptions = {}): ChatRequest {
  if (!isObject(body)) throw invalid('', 'The request body must be a JSON object.');
  const model = body.model;
  if (typeof model !== 'string' || model.length === 0)
    throw invalid('model', "'model' is required and must be a string.");
  // Unlike OpenAI, Anthropic has no default output limit: the caller must say.
  const maxTokens = optNumber(body, 'max_tokens', 1, MAX_TOKENS_LIMIT, true);
  if (maxTokens === undefined && opts.forCounting !== true)
    throw invalid('max_tokens', "'max_tokens' is required and must be a positive integer.");
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw invalid('messages', "'messages' is required and must be a non-empty array.");
  }
  const unmapped: string[] = [];
  const notes: Notes = { unmapped, hints: new Set() };
  const messages: ChatMessage[] = [];
  body.messages.forEach((m, i) => {
    const message = decodeMessage(m, `messages[${i}]`, notes);
    if (message) messages.push(message);
  });

  const stream = optBoolean(body, 'stream') ?? false;
  optString(body, 'service_tier');
  const stop = body.stop_sequences;
  if (stop !== undefined && stop !== null && !(Array.isArray(stop) && stop.every((s) => typeof s === 'string'))) {
    throw invalid('stop_sequences', "'stop_sequences' must be an array of strings.");
  }
  const { toolChoice, parallelToolCalls } = decodeToolChoice(body.tool_choice, unmapped);
  for (const field of Object.keys(body)) {
    const value = body[field];
    if (KNOWN.has(field) || isDefault(field, value)) continue;
    if (HINTS.has(field)) notes.hints.add(field);
    else unmapped.push(field);
  }
  const system = decodeSystem(body.system, notes);
  const tools = decodeTools(body.tools, notes);
  const reasoning = decodeReasoning(body, notes);
  const responseFormat = decodeOutputFormat(body, unmapped);

  return {
    model,
    system,
    messages,
    tools,
    toolChoice,
    parallelToolCalls,
    maxTokens,
    temperature: optNumber(body, 'temperature', 0, 1),
    topP: optNumber(body, 'top_p', 0, 1),
    topK: optNumber(body, 'top_k', 0, Infinity, true),
    stop: (stop as string[] | null | undefined) ?? undefined,
    stream,
    // A stream always carries usage in this format; there is nothing to opt into.
    includeUsage: false,
    user: decodeUser(body.metadata),
    ...(reasoning ? { reasoning } : {}),
    ...(responseFormat ? { responseFormat } : {}),
    unmapped,
    hints: [...notes.hints],
  };
}

/**
 * Undefined for a message of a role this gateway does not know: the provider judges it
 * (`unmapped`). `system` is a mid-conversation instruction (Claude Code sends them with the
 * `mid-conversation-system-…` beta): text blocks only.
 */
function decodeMessage(m: unknown, at: string, notes: Notes): ChatMessage | undefined {
  if (!isObject(m)) throw invalid(at, `'${at}' must be an object.`);
  const role = m.role;
  if (typeof role !== 'string') throw invalid(`${at}.role`, `'${at}.role' must be "user", "assistant" or "system".`);
  if (role !== 'user' && role !== 'assistant' && role !== 'system') {
    notes.unmapped.push(`${at}.role`);
    return undefined;
  }
  const content = m.content;
  if (typeof content === 'string') return { role, content: [{ type: 'text', text: content }] };
  if (!Array.isArray(content))
    throw invalid(`${at}.content`, `'${at}.content' must be a string or an array of content blocks.`);
  const parts: ContentPart[] = [];
  content.forEach((b, j) => {
    const p = `${at}.content[${j}]`;
    if (role === 'system') {
      const text = systemText(b, p, notes);
      if (text !== undefined) parts.push({ type: 'text', text });
      return;
    }
    const part = decodeBlock(b, p, role, notes);
    if (part) parts.push(part);
  });
  return { role, content: parts };
}

/** A text block's text; another block type is left to the provider (`unmapped`). */
function systemText(b: unknown, p: string, notes: Notes): string | undefined {
  if (!isObject(b) || typeof b.type !== 'string') throw invalid(p, `'${p}' must be a text block {type: "text", text}.`);
  noteCacheControl(b, notes);
  if (b.type !== 'text') {
    notes.unmapped.push(p);
    return undefined;
  }
  if (typeof b.text !== 'string') throw invalid(`${p}.text`, `'${p}.text' must be a string.`);
  return b.text;
}

function noteCacheControl(o: Record<string, unknown>, notes: Notes): void {
  if (o.cache_control !== undefined && o.cache_control !== null) notes.hints.add('cache_control');
}

function decodeBlock(b: unknown, p: string, role: 'user' | 'assistant', notes: Notes): ContentPart | undefined {
  if (!isObject(b)) throw invalid(p, `'${p}' must be an object.`);
  const unmapped = notes.unmapped;
  noteCacheControl(b, notes);
  const onlyIn = (r: 'user' | 'assistant') => {
    if (role !== r) throw invalid(`${p}.type`, `'${p}': ${String(b.type)} blocks belong in ${r} messages.`);
  };
  switch (b.type) {
    case 'text':
      if (typeof b.text !== 'string') throw invalid(`${p}.text`, `'${p}.text' must be a string.`);
      return { type: 'text', text: b.text };
    case 'image': {
      const source = decodeImageSource(b.source, `${p}.source`);
      if (source) return { type: 'image', source };
      unmapped.push(p);
      return undefined;
    }
    case 'tool_use':
      onlyIn('assistant');
      if (typeof b.id !== 'string') throw invalid(`${p}.id`, `'${p}.id' must be a string.`);
      if (typeof b.name !== 'string') throw invalid(`${p}.name`, `'${p}.name' must be a string.`);
      if (!isObject(b.input)) throw invalid(`${p}.input`, `'${p}.input' must be an object.`);
      return { type: 'tool_call', id: b.id, name: b.name, arguments: JSON.stringify(b.input) };
    case 'tool_result': {
      onlyIn('user');
      if (typeof b.tool_use_id !== 'string') throw invalid(`${p}.tool_use_id`, `'${p}.tool_use_id' must be a string.`);
      if (b.is_error !== undefined && typeof b.is_error !== 'boolean')
        throw invalid(`${p}.is_error`, `'${p}.is_error' must be a boolean.`);
      const part: ContentPart = {
        type: 'tool_result',
        toolCallId: b.tool_use_id,
        content: decodeResultContent(b.content, `${p}.content`, notes),
      };
      if (b.is_error === true) part.isError = true;
      return part;
    }
    case 'thinking':
      onlyIn('assistant');
      if (typeof b.thinking !== 'string') throw invalid(`${p}.thinking`, `'${p}.thinking' must be a string.`);
      if (typeof b.signature !== 'string') throw invalid(`${p}.signature`, `'${p}.signature' must be a string.`);
      return { type: 'reasoning', text: b.thinking, signature: b.signature };
    case 'redacted_thinking':
      // Encrypted reasoning only Anthropic can read back: reasoning like a thinking block, with
      // no text (earlier-turn reasoning follows one rule when translated, see the encoders).
      onlyIn('assistant');
      if (typeof b.data !== 'string') throw invalid(`${p}.data`, `'${p}.data' must be a string.`);
      return { type: 'reasoning', text: '', redacted: b.data };
    case 'document':
    case 'search_result':
      // Documented, but with no canonical form yet: forwardable as sent, not translatable.
      if (!isObject(b.source) && typeof b.source !== 'string')
        throw invalid(`${p}.source`, `'${p}.source' is required.`);
      unmapped.push(p);
      return undefined;
    default:
      // A server tool's call and result in an earlier turn (server_tool_use,
      // web_search_tool_result…), or a block type this gateway does not know: the provider judges
      // it; not translatable; guardrails read the body.
      if (typeof b.type !== 'string') throw invalid(`${p}.type`, `'${p}.type' must be a string.`);
      unmapped.push(p);
      return undefined;
  }
}

/**
 * Base64 and URL sources have a canonical form; another source type (the Files API's `file`,
 * which names an upload only Anthropic holds, or a newer one) is undefined: the provider judges it.
 */
function decodeImageSource(s: unknown, p: string): ImageSource | undefined {
  if (!isObject(s) || typeof s.type !== 'string')
    throw invalid(`${p}.type`, `'${p}' must be {type: "base64", media_type, data} or {type: "url", url}.`);
  if (s.type === 'base64') {
    if (typeof s.media_type !== 'string') throw invalid(`${p}.media_type`, `'${p}.media_type' must be a string.`);
    if (typeof s.data !== 'string') throw invalid(`${p}.data`, `'${p}.data' must be a string.`);
    return { kind: 'base64', mediaType: s.media_type, data: s.data };
  }
  if (s.type === 'url') {
    if (typeof s.url !== 'string') throw invalid(`${p}.url`, `'${p}.url' must be a string.`);
    return { kind: 'url', url: s.url };
  }
  return undefined;
}

/** Text and image blocks are decoded; other blocks (document, search_result…) are left to the provider. */
function decodeResultContent(c: unknown, p: string, notes: Notes): ContentPart[] {
  if (c === undefined || c === null) return [];
  if (typeof c === 'string') return [{ type: 'text', text: c }];
  if (!Array.isArray(c)) throw invalid(p, `'${p}' must be a string or an array of content blocks.`);
  const out: ContentPart[] = [];
  c.forEach((b, k) => {
    const q = `${p}[${k}]`;
    if (!isObject(b) || typeof b.type !== 'string')
      throw invalid(`${q}.type`, `'${q}' must be a content block with a 'type'.`);
    noteCacheControl(b, notes);
    if (b.type === 'text') {
      if (typeof b.text !== 'string') throw invalid(`${q}.text`, `'${q}.text' must be a string.`);
      out.push({ type: 'text', text: b.text });
      return;
    }
    const source = b.type === 'image' ? decodeImageSource(b.source, `${q}.source`) : undefined;
    if (source) out.push({ type: 'image', source });
    else notes.unmapped.push(q);
  });
  return out;
}

/** Text blocks; a block of another type is left to the provider. */
function decodeSystem(s: unknown, notes: Notes): ContentPart[] {
  if (s === undefined || s === null) return [];
  if (typeof s === 'string') return s.length > 0 ? [{ type: 'text', text: s }] : [];
  if (!Array.isArray(s)) throw invalid('system', "'system' must be a string or an array of text blocks.");
  const out: ContentPart[] = [];
  s.forEach((b, i) => {
    const text = systemText(b, `system[${i}]`, notes);
    if (text !== undefined) out.push({ type: 'text', text });
  });
  return out;
}

function decodeTools(tools: unknown, notes: Notes): ToolSpec[] {
  const unmapped = notes.unmapped;
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw invalid('tools', "'tools' must be an array.");
  const out: ToolSpec[] = [];
  tools.forEach((t, i) => {
    const p = `tools[${i}]`;
    if (!isObject(t)) throw invalid(p, `'${p}' must be an object.`);
    noteCacheControl(t, notes);
    // Client tools have no type (or "custom"). Anthropic-defined tools (web_search_…, bash_…) have
    // no schema to translate: forwarded as sent to an Anthropic upstream (a role may deny server
    // tools, routing/server-tools.ts), refused by translation.
    if (t.type !== undefined && t.type !== null && t.type !== 'custom') {
      unmapped.push(p);
      return;
    }
    if (typeof t.name !== 'string' || t.name.length === 0)
      throw invalid(`${p}.name`, `'${p}.name' must be a non-empty string.`);
    if (!isObject(t.input_schema))
      throw invalid(`${p}.input_schema`, `'${p}.input_schema' must be a JSON Schema object.`);
    if (t.description !== undefined && typeof t.description !== 'string')
      throw invalid(`${p}.description`, `'${p}.description' must be a string.`);
    out.push({ name: t.name, description: t.description, parameters: t.input_schema });
  });
  return out;
}

function decodeToolChoice(tc: unknown, unmapped: string[]): { toolChoice?: ToolChoice; parallelToolCalls?: boolean } {
  if (tc === undefined || tc === null) return {};
  if (!isObject(tc)) throw invalid('tool_choice', "'tool_choice' must be an object.");
  const dp = tc.disable_parallel_tool_use;
  if (dp !== undefined && typeof dp !== 'boolean')
    throw invalid(
      'tool_choice.disable_parallel_tool_use',
      "'tool_choice.disable_parallel_tool_use' must be a boolean.",
    );
  const parallelToolCalls = dp === true ? false : undefined;
  switch (tc.type) {
    case 'auto':
    case 'none':
      return { toolChoice: { type: tc.type }, parallelToolCalls };
    case 'any':
      return { toolChoice: { type: 'required' }, parallelToolCalls };
    case 'tool':
      if (typeof tc.name !== 'string')
        throw invalid('tool_choice.name', '\'tool_choice.name\' is required when tool_choice.type is "tool".');
      return { toolChoice: { type: 'tool', name: tc.name }, parallelToolCalls };
    default:
      if (typeof tc.type !== 'string')
        throw invalid('tool_choice.type', "'tool_choice.type' must be one of auto, any, tool, none.");
      // A newer mode: the provider judges it.
      unmapped.push('tool_choice');
      return {};
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

/**
 * `thinking` (enabled with a budget, or adaptive) and `output_config.effort` → canonical
 * reasoning. `thinking.display` (summarized or omitted thinking text) is a hint. Another thinking
 * type or effort level has no canonical form: forwardable, not translatable.
 */
function decodeReasoning(body: Record<string, unknown>, notes: Notes): ChatRequest['reasoning'] {
  const out: NonNullable<ChatRequest['reasoning']> = { fields: [] };
  const t = body.thinking;
  if (t !== undefined && t !== null) {
    if (!isObject(t) || typeof t.type !== 'string')
      throw invalid('thinking', "'thinking' must be an object with a 'type'.");
    optString(t, 'display', 'thinking.display');
    if (t.display !== undefined && t.display !== null) notes.hints.add('thinking.display');
    if (t.type === 'enabled') {
      const b = optNumber(t, 'budget_tokens', 1, MAX_TOKENS_LIMIT, true, 'thinking.budget_tokens');
      if (b === undefined)
        throw invalid('thinking.budget_tokens', "'thinking.budget_tokens' must be a positive integer.");
      out.budgetTokens = b;
      out.fields!.push('thinking');
    } else if (t.type === 'adaptive') {
      out.adaptive = true;
      out.fields!.push('thinking');
    } else if (t.type !== 'disabled') {
      notes.unmapped.push('thinking');
    }
  }
  const config = optObject(body, 'output_config');
  const effort = config === undefined ? undefined : optString(config, 'effort', 'output_config.effort');
  if (effort !== undefined) {
    const known = EFFORTS.find((e) => e === effort);
    if (known) {
      out.effort = known;
      out.fields!.push('output_config.effort');
    } else notes.unmapped.push('output_config.effort');
  }
  return out.fields!.length > 0 ? out : undefined;
}

/**
 * `output_config.format` (and the older beta `output_format`): `{type: "json_schema", schema}`.
 * Another format type, or another `output_config` member, is forwardable, not translatable.
 */
function decodeOutputFormat(body: Record<string, unknown>, unmapped: string[]): ResponseFormat | undefined {
  const config = optObject(body, 'output_config');
  let found: ResponseFormat | undefined;
  const read = (f: unknown, at: string) => {
    if (f === undefined || f === null) return;
    if (!isObject(f) || typeof f.type !== 'string') throw invalid(at, `'${at}' must be an object with a 'type'.`);
    if (f.type !== 'json_schema') {
      unmapped.push(at);
      return;
    }
    if (!isObject(f.schema)) throw invalid(`${at}.schema`, `'${at}.schema' must be a JSON Schema object.`);
    found = { type: 'json_schema', schema: f.schema };
  };
  if (config !== undefined) {
    for (const k of Object.keys(config))
      if (k !== 'effort' && k !== 'format' && config[k] !== undefined && config[k] !== null)
        unmapped.push(`output_config.${k}`);
    read(config.format, 'output_config.format');
  }
  read(body.output_format, 'output_format');
  return found;
}
