/**
 * The Gemini API as THE fake upstream (fake-upstream.ts) plays it: its routes, its key, and what the
 * real Generative Language API refuses with 400 INVALID_ARGUMENT, written from its reference (each
 * check returns the first problem, or undefined); then what the fake reads from a request to answer
 * it (the conversation, a forced function, a response schema). Shares no code with src/.
 *
 *   POST /v1beta/models/{m}:generateContent               'chat'
 *   POST /v1beta/models/{m}:streamGenerateContent?alt=sse  'chat', streamed (alt=sse required)
 *   POST /v1beta/models/{m}:countTokens                    'count_tokens': `contents`, or a
 *                                                          `generateContentRequest` naming models/{m}
 *   GET /v1beta/models                                    'models'
 * `x-goog-api-key` is required (missing: 403 PERMISSION_DENIED); a key other than the one the fake
 * was given is 400 INVALID_ARGUMENT with reason API_KEY_INVALID, as Google answers. On a thinking
 * model, a request whose current turn sends a call back without the signature the fake issued is
 * refused, as newer Gemini models do.
 * @see https://ai.google.dev/api/generate-content
 */

import type { IncomingHttpHeaders } from 'node:http';
import { isGeminiSignature, thinks } from './gemini-wire.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const REQUEST_FIELDS = ['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'safetySettings'];
const PART_DATA = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse'];
const PART_FIELDS = [...PART_DATA, 'thought', 'thoughtSignature'];
const GENERATION_FIELDS = [
  'maxOutputTokens',
  'stopSequences',
  'temperature',
  'topP',
  'topK',
  'candidateCount',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'thinkingConfig',
  'seed',
];
const THINKING_FIELDS = ['includeThoughts', 'thinkingBudget', 'thinkingLevel'];
const SCHEMA_FIELDS = [
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
];
const SCHEMA_TYPES = ['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT'];

function unknownField(o: Obj, known: string[], at: string): string | undefined {
  const extra = Object.keys(o).find((k) => !known.includes(k));
  return extra === undefined
    ? undefined
    : `Invalid JSON payload received. Unknown name "${extra}" at '${at}': Cannot find field.`;
}

export function checkRequest(body: unknown, model: string, unknownFields = false): string | undefined {
  if (!isObj(body)) return 'Invalid JSON payload received.';
  return (
    (unknownFields ? undefined : unknownField(body, REQUEST_FIELDS, '')) ??
    checkContents(body.contents, model) ??
    checkSystem(body.systemInstruction) ??
    checkTools(body.tools) ??
    checkGeneration(body.generationConfig, model)
  );
}

function checkSystem(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (!isObj(v) || !Array.isArray(v.parts)) return "Invalid value at 'system_instruction'.";
  return v.parts.every((p) => isObj(p) && typeof p.text === 'string')
    ? undefined
    : 'system_instruction parts: text only';
}

function checkContents(contents: unknown, model: string): string | undefined {
  if (!Array.isArray(contents) || contents.length === 0)
    return '* GenerateContentRequest.contents: contents is not specified';
  for (const [i, c] of contents.entries()) {
    if (!isObj(c) || (c.role !== 'user' && c.role !== 'model'))
      return `Please use a valid role: user, model. (contents[${i}])`;
    if (!Array.isArray(c.parts) || c.parts.length === 0)
      return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`;
    for (const [j, p] of c.parts.entries()) {
      const problem = checkPart(p, `contents[${i}].parts[${j}]`, c.role);
      if (problem) return problem;
    }
  }
  return checkCallPairs(contents as Obj[]) ?? (thinks(model) ? checkSignatures(contents as Obj[]) : undefined);
}

function checkPart(p: unknown, at: string, role: unknown): string | undefined {
  if (!isObj(p)) return `Invalid value at '${at}'.`;
  const unknown = unknownField(p, PART_FIELDS, at);
  if (unknown) return unknown;
  const data = PART_DATA.filter((k) => p[k] !== undefined);
  if (data.length !== 1)
    return `* GenerateContentRequest.${at}.data: required oneof field 'data' must have one initialized field`;
  if (p.functionCall !== undefined) {
    const fc = p.functionCall;
    if (role !== 'model') return `${at}: a functionCall belongs in a model turn`;
    if (!isObj(fc) || typeof fc.name !== 'string' || (fc.args !== undefined && !isObj(fc.args)))
      return `Invalid value at '${at}.function_call'.`;
    return unknownField(fc, ['name', 'args'], `${at}.function_call`);
  }
  if (p.functionResponse !== undefined) {
    const fr = p.functionResponse;
    if (role !== 'user') return `${at}: a functionResponse belongs in a user turn`;
    if (!isObj(fr) || typeof fr.name !== 'string' || !isObj(fr.response))
      return `Invalid value at '${at}.function_response'.`;
    return unknownField(fr, ['name', 'response'], `${at}.function_response`);
  }
  if (p.inlineData !== undefined) {
    const d = p.inlineData;
    if (!isObj(d) || typeof d.mimeType !== 'string' || typeof d.data !== 'string' || !/^[A-Za-z0-9+/=]*$/.test(d.data))
      return `Invalid value at '${at}.inline_data'.`;
  }
  return undefined;
}

/** Each user turn answering calls answers every call of the model turn before it, by name. */
function checkCallPairs(contents: Obj[]): string | undefined {
  for (const [i, c] of contents.entries()) {
    const responses = (c.parts as Obj[]).filter((p) => p.functionResponse !== undefined);
    if (responses.length === 0) continue;
    const prev = contents[i - 1];
    const calls = prev?.role === 'model' ? (prev.parts as Obj[]).filter((p) => p.functionCall !== undefined) : [];
    const names = calls.map((p) => (p.functionCall as Obj).name);
    const answered = responses.map((p) => (p.functionResponse as Obj).name);
    if (calls.length !== responses.length || answered.some((n) => !names.includes(n)))
      return (
        'Please ensure that the number of function response parts is equal to the number of function call parts ' +
        'of the function call turn.'
      );
  }
  return undefined;
}

/**
 * The current turn (from the last user content that is not only function responses): each model
 * step's first function call carries a signature this upstream issued, or Google's placeholder for
 * a call another model made.
 */
/** The placeholder Google documents for calls no Gemini model signed (made by another model). */
const UNSIGNED_CALL = 'skip_thought_signature_validator';

function checkSignatures(contents: Obj[]): string | undefined {
  let start = 0;
  contents.forEach((c, i) => {
    if (c.role === 'user' && (c.parts as Obj[]).some((p) => p.functionResponse === undefined)) start = i;
  });
  for (let i = start; i < contents.length; i++) {
    const c = contents[i];
    if (c.role !== 'model') continue;
    const first = (c.parts as Obj[]).find((p) => p.functionCall !== undefined);
    if (!first) continue;
    const name = (first.functionCall as Obj).name;
    if (typeof first.thoughtSignature !== 'string')
      return (
        'Function call is missing a thought_signature in functionCall parts. ' +
        `Function call \`${name}\`, position ${i + 1}.`
      );
    if (first.thoughtSignature === UNSIGNED_CALL) continue;
    if (!isGeminiSignature(first.thoughtSignature)) return `Corrupted thought signature (function call \`${name}\`).`;
  }
  return undefined;
}

function checkTools(tools: unknown): string | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return "Invalid value at 'tools'.";
  for (const [i, t] of tools.entries()) {
    if (!isObj(t) || !Array.isArray(t.functionDeclarations)) return `Invalid value at 'tools[${i}]'.`;
    for (const [j, d] of t.functionDeclarations.entries()) {
      const at = `tools[${i}].function_declarations[${j}]`;
      if (!isObj(d) || typeof d.name !== 'string') return `* GenerateContentRequest.${at}.name: name is required`;
      const problem =
        unknownField(d, ['name', 'description', 'parameters'], at) ??
        (d.parameters === undefined ? undefined : checkSchema(d.parameters, `${at}.parameters`));
      if (problem) return problem;
    }
  }
  return undefined;
}

function checkSchema(s: unknown, at: string): string | undefined {
  if (!isObj(s)) return `Invalid value at '${at}'.`;
  const unknown = unknownField(s, SCHEMA_FIELDS, at);
  if (unknown) return unknown;
  if (s.type !== undefined && !SCHEMA_TYPES.includes(s.type as string)) return `Invalid value at '${at}.type'.`;
  if (s.type === 'OBJECT' && s.properties !== undefined && Object.keys(s.properties as Obj).length === 0)
    return `* GenerateContentRequest.${at}.properties: should be non-empty for OBJECT type`;
  for (const [k, v] of Object.entries(isObj(s.properties) ? s.properties : {})) {
    const problem = checkSchema(v, `${at}.properties[${k}]`);
    if (problem) return problem;
  }
  if (s.items !== undefined) return checkSchema(s.items, `${at}.items`);
  return undefined;
}

function checkGeneration(g: unknown, model: string): string | undefined {
  if (g === undefined) return undefined;
  if (!isObj(g)) return "Invalid value at 'generation_config'.";
  const unknown = unknownField(g, GENERATION_FIELDS, 'generation_config');
  if (unknown) return unknown;
  if (g.thinkingConfig === undefined) return undefined;
  if (!thinks(model)) return 'Thinking is not supported for this model.';
  return isObj(g.thinkingConfig)
    ? unknownField(g.thinkingConfig, THINKING_FIELDS, 'generation_config.thinking_config')
    : "Invalid value at 'generation_config.thinking_config'.";
}

// ---------------------------------------------------------------- routes and refusals

/** A Gemini route: what it is, and the model its path names. */
export interface GeminiRoute {
  endpoint: 'chat' | 'count_tokens' | 'models';
  model: string;
  stream: boolean;
}

const MODEL_ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

export function geminiRoute(method: string, path: string): GeminiRoute | undefined {
  if (method === 'GET' && path === '/v1beta/models') return { endpoint: 'models', model: '', stream: false };
  const m = method === 'POST' ? MODEL_ROUTE.exec(path) : null;
  if (!m) return undefined;
  const model = decodeURIComponent(m[1]!);
  if (m[2] === 'countTokens') return { endpoint: 'count_tokens', model, stream: false };
  return { endpoint: 'chat', model, stream: m[2] === 'streamGenerateContent' };
}

/** A refusal as upstream-rules.ts writes them: `type` is Google's status, `code` an ErrorInfo reason. */
interface GeminiRefusal {
  status: number;
  message: string;
  type: string;
  code?: string;
}
const invalid = (message: string): GeminiRefusal => ({ status: 400, message, type: 'INVALID_ARGUMENT' });

export interface GeminiCheck {
  method: string;
  path: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  parsed: boolean;
  /** The one key the fake takes; undefined: any. */
  key?: string;
  accept: { missingKey?: boolean; unknownFields?: boolean; anyBody?: boolean };
}

/** Why the Gemini API refuses this call, or undefined. */
export function geminiRefusal(c: GeminiCheck): GeminiRefusal | undefined {
  const key = c.headers['x-goog-api-key'];
  if (!c.accept.missingKey) {
    if (typeof key !== 'string' || key === '')
      return {
        status: 403,
        message: "Method doesn't allow unregistered callers. Please use an API key.",
        type: 'PERMISSION_DENIED',
      };
    if (c.key !== undefined && key !== c.key)
      return { ...invalid('API key not valid. Please pass a valid API key.'), code: 'API_KEY_INVALID' };
  }
  const route = geminiRoute(c.method, c.path);
  if (!route) return { status: 404, message: `Path ${c.path} was not found.`, type: 'NOT_FOUND' };
  if (route.endpoint === 'models') return undefined;
  if (route.stream && new URL(c.url, 'http://fake').searchParams.get('alt') !== 'sse')
    return invalid('This fake answers streams only with alt=sse.');
  if (!c.parsed) return invalid('Invalid JSON payload received. Unexpected token.');
  if (c.accept.anyBody) return undefined;
  const problem =
    route.endpoint === 'count_tokens'
      ? checkCountTokens(c.body, route.model, c.accept.unknownFields === true)
      : checkRequest(c.body, route.model, c.accept.unknownFields === true);
  return problem === undefined ? undefined : invalid(problem);
}

/** countTokens takes `contents`, or a whole `generateContentRequest` (whose model must be the path's). */
function checkCountTokens(body: unknown, model: string, unknownFields: boolean): string | undefined {
  if (!isObj(body)) return 'Invalid JSON payload received.';
  const extra = unknownFields ? undefined : unknownField(body, ['contents', 'generateContentRequest'], '');
  if (extra) return extra;
  if (body.contents !== undefined && body.generateContentRequest !== undefined)
    return 'contents and generateContentRequest cannot both be set.';
  if (body.contents !== undefined) return checkContents(body.contents, model);
  if (!isObj(body.generateContentRequest))
    return '* CountTokensRequest: contents or generateContentRequest is required';
  const { model: named, ...request } = body.generateContentRequest;
  if (named !== `models/${model}`) return `generateContentRequest.model must be models/${model}`;
  return checkRequest(request, model, unknownFields);
}

// ---------------------------------------------------------------- reading a request

/** The request a call carries: itself, or a countTokens' generateContentRequest. */
const requestOf = (body: unknown): Obj =>
  isObj(body) ? (isObj(body.generateContentRequest) ? body.generateContentRequest : body) : {};
const contentsOf = (body: unknown): Obj[] => {
  const c = requestOf(body).contents;
  return Array.isArray(c) ? c.filter(isObj) : [];
};
const partsOf = (c: Obj | undefined): Obj[] => (Array.isArray(c?.parts) ? c.parts.filter(isObj) : []);
const texts = (parts: Obj[]): string =>
  parts
    .filter((p) => typeof p.text === 'string' && p.thought !== true)
    .map((p) => p.text as string)
    .join('');

/** How many contents a request (or a count) holds. */
export const geminiContentCount = (body: unknown): number => contentsOf(body).length;

/** The text of the last user content that has some. */
export function geminiLastUserText(body: unknown): string {
  const withText = contentsOf(body).filter((c) => c.role === 'user' && texts(partsOf(c)) !== '');
  return texts(partsOf(withText.at(-1)));
}

/** What the scripted answers depend on: system text, last user text, the function responses it ends with. */
export function geminiConversation(body: unknown) {
  const request = requestOf(body);
  const last = contentsOf(body).at(-1);
  const responses = last?.role === 'user' ? partsOf(last).filter((p) => isObj(p.functionResponse)) : [];
  const generation = isObj(request.generationConfig) ? request.generationConfig : {};
  return {
    system: texts(partsOf(isObj(request.systemInstruction) ? request.systemInstruction : undefined)),
    lastUserText: geminiLastUserText(body),
    toolResult:
      responses.length > 0
        ? responses.map((p) => responseText((p.functionResponse as Obj).response)).join('\n')
        : undefined,
    maxTokens: typeof generation.maxOutputTokens === 'number' ? generation.maxOutputTokens : undefined,
  };
}

/** A function response's text: its `output` (or `error`) string, else its JSON. */
function responseText(r: unknown): string {
  if (isObj(r) && typeof r.output === 'string') return r.output;
  if (isObj(r) && typeof r.error === 'string') return r.error;
  return JSON.stringify(r ?? {});
}

/** The declarations of the request's tools. */
function declarations(body: unknown): Obj[] {
  const tools = requestOf(body).tools;
  return (Array.isArray(tools) ? tools : []).flatMap((t) =>
    isObj(t) && Array.isArray(t.functionDeclarations) ? t.functionDeclarations.filter(isObj) : [],
  );
}

/** `functionCallingConfig.mode: ANY`: the function it must call (the first allowed), with its schema. */
export function geminiForcedTool(body: unknown): { name: string; schema: unknown } | undefined {
  const config = requestOf(body).toolConfig;
  const calling = isObj(config) && isObj(config.functionCallingConfig) ? config.functionCallingConfig : undefined;
  if (calling?.mode !== 'ANY') return undefined;
  const allowed = Array.isArray(calling.allowedFunctionNames) ? calling.allowedFunctionNames : undefined;
  const d = declarations(body).find((x) => allowed === undefined || allowed.includes(x.name));
  return d ? { name: String(d.name), schema: jsonSchema(d.parameters) } : undefined;
}

/** The schema structured output asks for: `responseJsonSchema` as is, or `responseSchema` as JSON Schema. */
export function geminiSchema(body: unknown): unknown | undefined {
  const g = requestOf(body).generationConfig;
  if (!isObj(g) || g.responseMimeType !== 'application/json') return undefined;
  return g.responseJsonSchema ?? (g.responseSchema !== undefined ? jsonSchema(g.responseSchema) : {});
}

/** Gemini's Schema subset (upper-case types) as JSON Schema, enough to sample a value from it. */
function jsonSchema(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(jsonSchema);
  if (!isObj(s)) return s;
  const out: Obj = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'type' && typeof v === 'string') out.type = v.toLowerCase();
    else if (k === 'properties' && isObj(v))
      out.properties = Object.fromEntries(Object.entries(v).map(([n, p]) => [n, jsonSchema(p)]));
    else out[k] = k === 'items' || k === 'anyOf' ? jsonSchema(v) : v;
  }
  return out;
}
