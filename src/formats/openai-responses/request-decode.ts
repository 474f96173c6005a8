/**
 * OpenAI Responses request (a caller's /v1/responses body) → canonical ChatRequest, validating
 * what the gateway relies on and naming the field at fault (`input[2].call_id`). Documented
 * fields are checked for type and shape; values the gateway does not know (a field, an item,
 * part, tool or tool_choice type, an enum value) are not judged: they pass through when the
 * upstream speaks this format and are listed in `unmapped`, so translation refuses them by name.
 *
 * Items become canonical turns: user messages and tool outputs make user turns (consecutive tool
 * outputs share one), assistant messages, tool calls and reasoning the assistant turn they
 * follow on. `item_reference` items and `previous_response_id` name state kept elsewhere: the
 * state layer expands them before a translation, so one still here is refused by name.
 * There is no output-limit requirement to relax for token counting (`forCounting`).
 * @see https://platform.openai.com/docs/api-reference/responses/create
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
import type { Json } from '../../core/json.js';
import {
  invalid,
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
import { MAX_TOKENS_LIMIT } from '../output-cap.js';
import { customArguments } from './output-items.js';
import { reasoningItemToPart } from './reasoning.js';
import { findHintFields, findUnmappedFields } from './unmapped-fields.js';

/**
 * A custom (free-form) tool as a function: its one argument is the input text. Made fresh per
 * tool (a later step may edit a schema in place): a literal, where structuredClone of a constant
 * cost ~1.7 µs per tool on Node 20, and Codex sends a custom tool (apply_patch) with every request.
 */
function customToolParameters(): Json {
  return {
    type: 'object',
    properties: { input: { type: 'string' } },
    required: ['input'],
    additionalProperties: false,
  };
}

const EFFORTS: readonly ReasoningEffort[] = ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/** What decoding collects besides the request. */
interface Notes {
  system: ContentPart[];
  messages: ChatMessage[];
  unmapped: string[];
  hints: string[];
}

/** Documented fields the canonical model does not carry, checked for their type only. */
function checkOtherFields(body: Json): void {
  optBoolean(body, 'background');
  const conversation = body.conversation;
  if (conversation !== undefined && conversation !== null && !isString(conversation) && !isObject(conversation))
    throw invalid('conversation', "'conversation' must be a string or an object.");
  optArrayOf(body, 'include', 'a string', isString);
  optRecordOf(body, 'metadata', 'a string', isString);
  optString(body, 'previous_response_id');
  optObject(body, 'prompt');
  optString(body, 'prompt_cache_key');
  optString(body, 'prompt_cache_retention');
  optObject(body, 'prompt_cache_options');
  optString(body, 'safety_identifier');
  optString(body, 'service_tier');
  optBoolean(body, 'store');
  optObject(body, 'stream_options');
  optNumber(body, 'top_logprobs', 0, Infinity, true);
  optNumber(body, 'max_tool_calls', 0, Infinity, true);
  optString(body, 'truncation');
  optArray(body, 'context_management');
  optObject(body, 'moderation');
}

export function decodeResponsesRequest(body: unknown): ChatRequest {
  if (!isObject(body)) throw invalid('', 'The request body must be a JSON object.');
  const model = body.model;
  if (typeof model !== 'string' || model.length === 0)
    throw invalid('model', "'model' is required and must be a string.");
  checkOtherFields(body);
  const notes: Notes = { system: [], messages: [], unmapped: findUnmappedFields(body), hints: findHintFields(body) };
  const instructions = optString(body, 'instructions');
  if (instructions) notes.system.push({ type: 'text', text: instructions });
  decodeInput(body.input, notes);
  const tools = decodeTools(body.tools, notes);
  const toolChoice = decodeToolChoice(body.tool_choice, notes.unmapped);
  const responseFormat = decodeText(body, notes);
  const reasoning = decodeReasoning(body, notes);
  const user = optString(body, 'user');
  return {
    model,
    system: notes.system,
    messages: notes.messages,
    tools,
    ...(toolChoice ? { toolChoice } : {}),
    parallelToolCalls: optBoolean(body, 'parallel_tool_calls'),
    maxTokens: optNumber(body, 'max_output_tokens', 1, MAX_TOKENS_LIMIT, true),
    temperature: optNumber(body, 'temperature', 0, 2),
    topP: optNumber(body, 'top_p', 0, 1),
    stream: optBoolean(body, 'stream') ?? false,
    // A Responses stream always reports usage (in response.completed): nothing to opt into.
    includeUsage: true,
    ...(user !== undefined ? { user } : {}),
    ...(reasoning ? { reasoning } : {}),
    ...(responseFormat ? { responseFormat } : {}),
    unmapped: notes.unmapped,
    hints: notes.hints,
    // Repeated in the response object; `store` defaults to true in the API.
    echo: {
      store: body.store ?? true,
      metadata: body.metadata ?? {},
      previous_response_id: body.previous_response_id ?? null,
    },
  };
}

function decodeInput(input: unknown, notes: Notes): void {
  if (input === undefined || input === null) return;
  if (typeof input === 'string') {
    notes.messages.push({ role: 'user', content: [{ type: 'text', text: input }] });
    return;
  }
  if (!Array.isArray(input)) throw invalid('input', "'input' must be a string or an array of input items.");
  input.forEach((item, i) => {
    decodeItem(item, `input[${i}]`, notes);
  });
}

/** An item without `type` is a message when it has a `role`, else an item reference. */
function itemType(item: Json, at: string): string {
  const type = item.type ?? (item.role !== undefined ? 'message' : 'item_reference');
  if (typeof type !== 'string') throw invalid(`${at}.type`, `'${at}.type' must be a string.`);
  return type;
}

function decodeItem(item: unknown, at: string, notes: Notes): void {
  if (!isObject(item)) throw invalid(at, `'${at}' must be an object.`);
  switch (itemType(item, at)) {
    case 'message':
      decodeMessage(item, at, notes);
      return;
    case 'function_call':
      assistantTurn(notes).push({
        type: 'tool_call',
        id: required(item, 'call_id', at),
        name: required(item, 'name', at),
        arguments: required(item, 'arguments', at),
      });
      return;
    case 'custom_tool_call':
      assistantTurn(notes).push({
        type: 'tool_call',
        id: required(item, 'call_id', at),
        name: required(item, 'name', at),
        arguments: customArguments(required(item, 'input', at)),
      });
      return;
    case 'function_call_output':
    case 'custom_tool_call_output':
      toolResult(notes, {
        type: 'tool_result',
        toolCallId: required(item, 'call_id', at),
        content: decodeOutput(item.output, `${at}.output`, notes.unmapped),
      });
      return;
    case 'reasoning':
      checkReasoningItem(item, at);
      assistantTurn(notes).push(reasoningItemToPart(item));
      return;
    default:
      // item_reference, hosted tool calls and their outputs, item types added later.
      notes.unmapped.push(at);
  }
}

function required(o: Json, field: string, at: string): string {
  const v = optString(o, field, `${at}.${field}`);
  if (v === undefined) throw invalid(`${at}.${field}`, `'${at}.${field}' is required.`);
  return v;
}

/** The content of the assistant turn in progress (a new one unless the last message is the assistant's). */
function assistantTurn(notes: Notes): ContentPart[] {
  const last = notes.messages[notes.messages.length - 1];
  if (last?.role === 'assistant') return last.content;
  const turn: ChatMessage = { role: 'assistant', content: [] };
  notes.messages.push(turn);
  return turn.content;
}

/** Consecutive tool outputs belong to one user turn in the canonical model. */
function toolResult(notes: Notes, result: ContentPart): void {
  const last = notes.messages[notes.messages.length - 1];
  if (last?.role === 'user' && !last.content.some((c) => c.type !== 'tool_result')) last.content.push(result);
  else notes.messages.push({ role: 'user', content: [result] });
}

function checkReasoningItem(item: Json, at: string): void {
  optString(item, 'id', `${at}.id`);
  optString(item, 'encrypted_content', `${at}.encrypted_content`);
  for (const field of ['summary', 'content']) {
    optArray(item, field, `${at}.${field}`)?.forEach((p, j) => {
      const pat = `${at}.${field}[${j}]`;
      if (!isObject(p)) throw invalid(pat, `'${pat}' must be an object.`);
      if (typeof p.text !== 'string') throw invalid(`${pat}.text`, `'${pat}.text' must be a string.`);
    });
  }
}

/**
 * System and developer messages before the first turn are the system prompt (after
 * `instructions`); later ones stay where they are (`role: system`), as mid-conversation instructions.
 */
function decodeMessage(m: Json, at: string, notes: Notes): void {
  const role = m.role;
  if (typeof role !== 'string') throw invalid(`${at}.role`, `'${at}.role' must be a string.`);
  switch (role) {
    case 'user':
      notes.messages.push({ role: 'user', content: decodeContent(m.content, `${at}.content`, role, notes.unmapped) });
      return;
    case 'assistant':
      appendAll(assistantTurn(notes), decodeContent(m.content, `${at}.content`, role, notes.unmapped));
      return;
    case 'system':
    case 'developer': {
      const content = decodeContent(m.content, `${at}.content`, role, notes.unmapped);
      if (notes.messages.length === 0) appendAll(notes.system, content);
      else notes.messages.push({ role: 'system', content });
      return;
    }
    default:
      // A role this gateway does not know: the provider judges it.
      notes.unmapped.push(`${at}.role`);
  }
}

function decodeContent(content: unknown, at: string, role: string, unmapped: string[]): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalid(at, `'${at}' must be a string or an array of content parts.`);
  const out: ContentPart[] = [];
  content.forEach((part, i) => {
    const decoded = decodePart(part, `${at}[${i}]`, role);
    if (decoded) out.push(decoded);
    else unmapped.push(`${at}[${i}]`);
  });
  return out;
}

/** A tool output: text, or a list of input parts (text, images, files). */
function decodeOutput(output: unknown, at: string, unmapped: string[]): ContentPart[] {
  if (typeof output !== 'string' && !Array.isArray(output))
    throw invalid(at, `'${at}' must be a string or an array of content parts.`);
  return decodeContent(output, at, 'user', unmapped);
}

/**
 * One content part; undefined for a part with no canonical form in that place (a file, an image
 * by file id or outside a user message, a refusal outside an assistant message, a type this
 * gateway does not know), which the provider judges.
 */
function decodePart(part: unknown, p: string, role: string): ContentPart | undefined {
  if (!isObject(part)) throw invalid(p, `'${p}' must be an object.`);
  switch (part.type) {
    case 'input_text':
      return { type: 'text', text: required(part, 'text', p) };
    case 'output_text': {
      const text = required(part, 'text', p);
      return role === 'assistant' ? { type: 'text', text } : undefined;
    }
    case 'refusal': {
      const text = required(part, 'refusal', p);
      return role === 'assistant' ? { type: 'text', text } : undefined;
    }
    case 'input_image': {
      const url = optString(part, 'image_url', `${p}.image_url`);
      const fileId = optString(part, 'file_id', `${p}.file_id`);
      optString(part, 'detail', `${p}.detail`);
      if (url === undefined && fileId === undefined)
        throw invalid(`${p}.image_url`, `'${p}' needs an 'image_url' or a 'file_id'.`);
      if (url === undefined || role !== 'user') return undefined;
      const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
      return m
        ? { type: 'image', source: { kind: 'base64', mediaType: m[1], data: m[2] } }
        : { type: 'image', source: { kind: 'url', url } };
    }
    default:
      if (typeof part.type !== 'string') throw invalid(`${p}.type`, `'${p}.type' must be a string.`);
      // input_file, input_audio, and part types added later.
      return undefined;
  }
}

/**
 * Function tools, and custom (free-form) tools as functions of one string argument (a grammar
 * format is a hint: the model is still asked for free text). Hosted tools (web search, file
 * search, MCP, code interpreter, computer use, image generation, shell…) are left to the provider.
 */
/** Responses tool types the provider runs or groups, which a translated request leaves out. */
const PROVIDER_SIDE_TOOLS = new Set([
  'web_search',
  'web_search_preview',
  'web_search_preview_2025_03_11',
  'web_search_2025_08_26',
  'file_search',
  'code_interpreter',
  'image_generation',
  'mcp',
  'tool_search',
  'namespace',
]);

function decodeTools(tools: unknown, notes: Notes): ToolSpec[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw invalid('tools', "'tools' must be an array.");
  const out: ToolSpec[] = [];
  tools.forEach((t, i) => {
    const at = `tools[${i}]`;
    if (!isObject(t) || typeof t.type !== 'string') throw invalid(at, `'${at}' must be an object with a 'type'.`);
    if (t.type !== 'function' && t.type !== 'custom') {
      // A tool the provider runs (or a group of tools): the model of another format cannot be
      // given it, and clients send them with every request (Codex: web_search, tool_search, a
      // namespace of sub-agent tools). Dropped and listed when translated; unknown types refused.
      if (PROVIDER_SIDE_TOOLS.has(t.type)) notes.hints.push(`${at} (${t.type})`);
      else notes.unmapped.push(at);
      return;
    }
    const name = required(t, 'name', at);
    const description = optString(t, 'description', `${at}.description`);
    const spec: ToolSpec = { name, ...(description !== undefined ? { description } : {}), parameters: {} };
    if (t.type === 'function') {
      optBoolean(t, 'strict', `${at}.strict`);
      spec.parameters = optObject(t, 'parameters', `${at}.parameters`) ?? { type: 'object', properties: {} };
    } else {
      const format = optObject(t, 'format', `${at}.format`);
      const kind = format === undefined ? undefined : optString(format, 'type', `${at}.format.type`);
      if (kind !== undefined && kind !== 'text' && !notes.hints.includes('tools.format'))
        notes.hints.push('tools.format');
      spec.parameters = customToolParameters();
      spec.custom = true;
    }
    out.push(spec);
  });
  return out;
}

function decodeToolChoice(tc: unknown, unmapped: string[]): ToolChoice | undefined {
  if (tc === undefined || tc === null) return undefined;
  if (tc === 'auto' || tc === 'none' || tc === 'required') return { type: tc };
  if (typeof tc === 'string') {
    unmapped.push('tool_choice');
    return undefined;
  }
  if (!isObject(tc) || typeof tc.type !== 'string')
    throw invalid('tool_choice', "'tool_choice' must be 'auto', 'none', 'required' or an object with a 'type'.");
  if (tc.type === 'function' || tc.type === 'custom')
    return { type: 'tool', name: required(tc, 'name', 'tool_choice') };
  // allowed_tools, a hosted tool, modes added later: the provider judges them.
  unmapped.push('tool_choice');
  return undefined;
}

/**
 * `text.format`: `text` is the default; `json_schema` (name, description, schema, strict) and
 * `json_object` have a canonical form, another type is forwardable, not translatable.
 * `verbosity` only asks for a shorter or longer answer (Codex always sends it): a hint. Any other
 * member has no canonical form.
 */
function decodeText(body: Json, notes: Notes): ResponseFormat | undefined {
  const text = optObject(body, 'text');
  if (text === undefined) return undefined;
  if (optString(text, 'verbosity', 'text.verbosity') !== undefined) notes.hints.push('text.verbosity');
  for (const [k, v] of Object.entries(text))
    if (k !== 'format' && k !== 'verbosity' && v !== undefined && v !== null) notes.unmapped.push(`text.${k}`);
  const f = optObject(text, 'format', 'text.format');
  if (f === undefined) return undefined;
  const type = optString(f, 'type', 'text.format.type');
  if (type === undefined) throw invalid('text.format.type', "'text.format.type' is required.");
  if (type === 'text') return undefined;
  if (type === 'json_object') return { type: 'json_object' };
  if (type !== 'json_schema') {
    notes.unmapped.push('text.format');
    return undefined;
  }
  const name = optString(f, 'name', 'text.format.name');
  const description = optString(f, 'description', 'text.format.description');
  const strict = optBoolean(f, 'strict', 'text.format.strict');
  return {
    type: 'json_schema',
    schema: optObject(f, 'schema', 'text.format.schema') ?? {},
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(strict !== undefined ? { strict } : {}),
  };
}

/**
 * `reasoning.effort` → canonical effort (`none`: no reasoning, the canonical default; an unknown
 * level is forwardable, not translatable). `summary` (and its older name `generate_summary`)
 * only asks for a readable summary: a hint, as is `context` (which earlier turns' reasoning the
 * provider keeps in view: Codex sends `all_turns`). Other members (`mode`…) are unmapped.
 */
function decodeReasoning(body: Json, notes: Notes): ChatRequest['reasoning'] {
  const r = optObject(body, 'reasoning');
  if (r === undefined) return undefined;
  let out: ChatRequest['reasoning'];
  for (const [k, v] of Object.entries(r)) {
    if (v === undefined || v === null) continue;
    const at = `reasoning.${k}`;
    if (k === 'summary' || k === 'generate_summary' || k === 'context') {
      optString(r, k, at);
      notes.hints.push(at);
    } else if (k === 'effort') {
      const effortName = optString(r, k, at);
      const effort = EFFORTS.find((e) => e === effortName);
      if (effort) out = { effort, fields: [at] };
      else if (effortName !== 'none') notes.unmapped.push(at);
    } else notes.unmapped.push(at);
  }
  return out;
}
