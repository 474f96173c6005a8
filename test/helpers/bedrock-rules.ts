/**
 * The AWS Bedrock runtime's Converse API as strictly as the real one, for the fake upstream
 * (fake-upstream.ts): which paths it serves, what it refuses (as AWS does: a status and an
 * exception name, `{message}`), and what a request asks for (last user text, forced tool), so the
 * fake's default and scripted answers read a Converse body like any other. Shares no code with src/.
 *
 * Refused:
 *   any path but POST /model/{id}/converse, /converse-stream, /count-tokens and GET /async-invoke
 *     (404 UnknownOperationException);
 *   a credential that is neither the account's Bedrock API key (bearer) nor a SigV4 signature
 *     recomputed from its credentials (aws-auth.ts; 403 with AWS's exception name);
 *   a body that is not a JSON object (400 SerializationException);
 *   Converse (400 ValidationException): unknown fields (top level, messages, inferenceConfig); no
 *     messages; roles that do not alternate starting from user; empty content; content blocks with
 *     other than one known member; blank text; toolUse outside assistant turns or with an input that
 *     is not an object; a toolResult not answering a toolUse of the turn before, or without status
 *     success/error; a toolUse left unanswered in the next turn; reasoningContent outside assistant
 *     turns or without a signature (or redactedContent); system blocks other than text/cachePoint/
 *     guardContent; toolUse or toolResult without a toolConfig; tools without toolSpec name and
 *     inputSchema.json; a toolChoice other than auto/any/tool, or naming an absent tool; adaptive thinking
 *     (`additionalModelRequestFields.thinking`) on a Claude model before 4.6;
 *   CountTokens: a body other than `{input: {converse}}` (or `invokeModel`), a converse request with
 *     fields CountTokens does not take, the Converse rules above on it, and a model the account's
 *     `countTokensModels` does not match ("The provided model doesn't support counting tokens.").
 */

import type { Refusal } from './upstream-rules.js';
import { type AwsAuthCheck, AwsRefusal, type AwsTestCredentials, bedrockAuthCheck } from './aws-auth.js';

type Obj = Record<string, any>;

/** The AWS account a fake Bedrock runtime serves: its region, credentials and Bedrock API key. */
export interface AwsTestAccount {
  region: string;
  credentials: AwsTestCredentials;
  apiKey: string;
  /** Model ids CountTokens supports. Default: Anthropic's foundation models (`anthropic.…`, no profile prefix). */
  countTokensModels?: RegExp;
}

/** The account a fake upstream serves unless told otherwise. */
export const AWS_TEST_ACCOUNT: AwsTestAccount = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'AKIAFAKEUPSTREAM0001', secretAccessKey: 'fake/upstream/secret/0001' },
  apiKey: 'ABSKZmFrZS11cHN0cmVhbS1rZXk=',
};

export const COUNT_TOKENS_UNSUPPORTED = "The provided model doesn't support counting tokens.";
const DEFAULT_COUNTABLE = /^anthropic\./;

const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream|count-tokens)$/;

/** The Bedrock runtime's paths (InvokeModel's included: they are refused here, not handed to another format). */
export const isBedrockPath = (path: string): boolean => path.startsWith('/model/') || path === '/async-invoke';

/** `chat` (converse, converse-stream), `count_tokens`, `models` (ListAsyncInvokes, the health check) or `other`. */
export function bedrockEndpoint(method: string, path: string): 'chat' | 'count_tokens' | 'models' | 'other' {
  if (method === 'GET' && path === '/async-invoke') return 'models';
  const m = ROUTE.exec(path);
  if (method !== 'POST' || !m) return 'other';
  return m[2] === 'count-tokens' ? 'count_tokens' : 'chat';
}

/** The model id of a model path, URL-decoded ('' for the others). */
export const bedrockModel = (path: string): string => decodeURIComponent(ROUTE.exec(path)?.[1] ?? '');

/** ConverseStream answers in event-stream frames; Converse in JSON. */
export const isBedrockStream = (path: string): boolean => path.endsWith('/converse-stream');

/** What a call of the fake upstream needs checked. */
export interface BedrockCallView {
  method: string;
  url: string;
  path: string;
  headers: Parameters<AwsAuthCheck>[2];
  body: unknown;
  endpoint: string;
}

/** One account's checker: credentials first (as AWS), then the body. */
export function bedrockChecker(account: AwsTestAccount) {
  const authenticate = bedrockAuthCheck(account);
  const countable = account.countTokensModels ?? DEFAULT_COUNTABLE;
  return async (
    call: BedrockCallView,
    raw: Buffer,
    parsed: boolean,
    accept: { missingKey?: boolean; unknownFields?: boolean; anyBody?: boolean },
  ): Promise<Refusal | undefined> => {
    if (call.endpoint === 'other')
      return refusal(404, 'UnknownOperationException', `Not found: ${call.method} ${call.path}`);
    if (!accept.missingKey) {
      try {
        await authenticate(call.method, call.url, call.headers, raw);
      } catch (e) {
        if (e instanceof AwsRefusal) return refusal(e.status, e.type, e.message);
        throw e;
      }
    }
    if (call.endpoint === 'models') return undefined;
    if (!parsed || !isObj(call.body)) return refusal(400, 'SerializationException', 'The body is not a JSON object.');
    if (accept.anyBody) return undefined;
    const extra = accept.unknownFields === true;
    if (call.endpoint === 'chat') return validateConverse(call.body, bedrockModel(call.path), extra);
    return validateCountTokens(call.body, bedrockModel(call.path), countable, extra);
  };
}

const refusal = (status: number, type: string, message: string): Refusal => ({ status, type, message });
const invalid = (message: string): Refusal => refusal(400, 'ValidationException', message);
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const CONVERSE_FIELDS = new Set([
  'messages',
  'system',
  'inferenceConfig',
  'toolConfig',
  'additionalModelRequestFields',
  'additionalModelResponseFieldPaths',
  'guardrailConfig',
  'promptVariables',
  'requestMetadata',
  'performanceConfig',
]);
const COUNTED_FIELDS = new Set(['messages', 'system', 'toolConfig', 'additionalModelRequestFields']);
const BLOCKS = new Set([
  'text',
  'image',
  'document',
  'video',
  'toolUse',
  'toolResult',
  'guardContent',
  'cachePoint',
  'reasoningContent',
  'citationsContent',
]);
const SYSTEM_BLOCKS = new Set(['text', 'cachePoint', 'guardContent']);
const INFERENCE = new Set(['maxTokens', 'temperature', 'topP', 'stopSequences']);

/** What the real Converse API refuses, where a gateway could send it. */
export function validateConverse(body: Obj, model: string, extra = false): Refusal | undefined {
  if (!extra) for (const k of Object.keys(body)) if (!CONVERSE_FIELDS.has(k)) return invalid(`Unknown field: ${k}`);
  const inference = body.inferenceConfig ?? {};
  if (!isObj(inference)) return invalid('inferenceConfig must be an object');
  for (const k of Object.keys(inference)) if (!INFERENCE.has(k)) return invalid(`Unknown field: inferenceConfig.${k}`);
  if (inference.maxTokens !== undefined && !(Number.isInteger(inference.maxTokens) && inference.maxTokens >= 1))
    return invalid('inferenceConfig.maxTokens must be an integer of at least 1');
  if (body.additionalModelRequestFields?.thinking?.type === 'adaptive' && BEFORE_ADAPTIVE.test(model))
    return invalid(`${model} does not support adaptive thinking; use thinking.type enabled with budget_tokens.`);
  return validateConversation(body);
}

/**
 * Claude models before 4.6 (their ids carry a date; 4.6 and later do not). AWS, "Adaptive thinking": "Older models
 * (Claude Sonnet 4.5, Claude Opus 4.5, etc.) do not support adaptive thinking and require thinking.type: "enabled"
 * with budget_tokens."
 */
const BEFORE_ADAPTIVE = /anthropic\.claude-(?:instant|v2|2|3|(?:opus|sonnet|haiku)-4(?:-[0-5])?-\d{8})/;

/** CountTokens: `{input: {converse}}` whose converse request passes the Converse rules, for a model that counts. */
export function validateCountTokens(body: Obj, model: string, countable: RegExp, extra = false): Refusal | undefined {
  for (const k of Object.keys(body)) if (k !== 'input') return invalid(`Unknown field: ${k}`);
  const input = body.input;
  if (!isObj(input) || Object.keys(input).length !== 1 || !(isObj(input.converse) || isObj(input.invokeModel)))
    return invalid('input must hold exactly one of converse or invokeModel');
  if (isObj(input.converse)) {
    if (!extra)
      for (const k of Object.keys(input.converse))
        if (!COUNTED_FIELDS.has(k)) return invalid(`Unknown field: input.converse.${k}`);
    const refused = validateConversation(input.converse);
    if (refused) return refused;
  }
  return countable.test(model) ? undefined : invalid(COUNT_TOKENS_UNSUPPORTED);
}

/** The rules Converse and CountTokens share: messages, system, tools. */
function validateConversation(body: Obj): Refusal | undefined {
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return invalid('messages must not be empty');
  if (body.system !== undefined) {
    if (!Array.isArray(body.system)) return invalid('system must be a list of blocks');
    for (const b of body.system) {
      const keys = isObj(b) ? Object.keys(b) : [];
      if (keys.length !== 1 || !SYSTEM_BLOCKS.has(keys[0]!)) return invalid(`Unknown system block: ${keys.join(',')}`);
    }
  }
  let asked: string[] = [];
  let usesTools = false;
  for (const [i, msg] of messages.entries()) {
    if (!isObj(msg)) return invalid(`messages.${i} must be an object`);
    for (const k of Object.keys(msg))
      if (k !== 'role' && k !== 'content') return invalid(`Unknown field: messages.${i}.${k}`);
    if (msg.role !== (i % 2 === 0 ? 'user' : 'assistant'))
      return invalid('A conversation must alternate between user and assistant roles, starting with user.');
    if (!Array.isArray(msg.content) || msg.content.length === 0)
      return invalid(`messages.${i}.content must not be empty`);
    const answered: string[] = [];
    const calls: string[] = [];
    for (const [j, block] of msg.content.entries()) {
      const keys = isObj(block) ? Object.keys(block) : [];
      const kind = keys[0]!;
      if (keys.length !== 1 || !BLOCKS.has(kind)) return invalid(`Unknown content block: ${keys.join(',')}`);
      const b = block[kind];
      if (kind === 'text' && (typeof b !== 'string' || b.trim() === ''))
        return invalid(`The text field in the ContentBlock object at messages.${i}.content.${j} is blank.`);
      if (kind === 'toolUse') {
        usesTools = true;
        if (msg.role !== 'assistant') return invalid('toolUse only in assistant turns');
        if (typeof b?.toolUseId !== 'string' || typeof b.name !== 'string')
          return invalid('toolUse needs toolUseId and name');
        if (!isObj(b.input)) return invalid('toolUse.input must be an object');
        calls.push(b.toolUseId);
      }
      if (kind === 'toolResult') {
        usesTools = true;
        if (!asked.includes(String(b?.toolUseId)))
          return invalid(`The toolResult ${String(b?.toolUseId)} does not match a toolUse of the previous turn.`);
        if (b.status !== 'success' && b.status !== 'error')
          return invalid('toolResult.status must be success or error');
        answered.push(b.toolUseId);
      }
      if (kind === 'reasoningContent') {
        if (msg.role !== 'assistant') return invalid('reasoningContent only in assistant turns');
        if (b?.redactedContent === undefined && typeof b?.reasoningText?.signature !== 'string')
          return invalid('reasoningContent needs a signature');
      }
    }
    const unanswered = asked.filter((id) => !answered.includes(id));
    if (unanswered.length > 0) return invalid(`toolUse ${unanswered[0]} has no toolResult in the next turn.`);
    asked = calls;
  }
  return validateToolConfig(body.toolConfig, usesTools);
}

function validateToolConfig(toolConfig: unknown, usesTools: boolean): Refusal | undefined {
  if (toolConfig === undefined)
    return usesTools ? invalid('toolConfig is required when messages hold toolUse or toolResult.') : undefined;
  if (!isObj(toolConfig) || !Array.isArray(toolConfig.tools) || toolConfig.tools.length === 0)
    return invalid('toolConfig.tools must not be empty');
  const names: string[] = [];
  for (const t of toolConfig.tools) {
    if (isObj(t) && t.cachePoint !== undefined) continue;
    const spec = isObj(t) ? t.toolSpec : undefined;
    if (!isObj(spec) || typeof spec.name !== 'string' || !isObj(spec.inputSchema?.json))
      return invalid('tools[].toolSpec needs name and inputSchema.json');
    names.push(spec.name);
  }
  const choice = toolConfig.toolChoice;
  if (choice === undefined) return undefined;
  const keys = isObj(choice) ? Object.keys(choice) : [];
  if (keys.length !== 1 || !['auto', 'any', 'tool'].includes(keys[0]!))
    return invalid('toolChoice must be one of auto, any or tool');
  if (keys[0] === 'tool' && !names.includes(choice.tool?.name))
    return invalid(`toolChoice names ${String(choice.tool?.name)}, which is not in tools`);
  return undefined;
}

// ---------------------------------------------------------------- what a request asks for

/** Text of a Converse content list (text blocks, and a toolResult's text), joined. */
function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((b) => (typeof b?.text === 'string' ? b.text : isObj(b?.toolResult) ? textOf(b.toolResult.content) : ''))
    .join('');
}

/** What the fake's scripted scenarios read from a Converse body. */
export function bedrockConversation(body: any) {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const lastUser = [...messages].reverse().find((m) => m?.role === 'user');
  const last = messages.at(-1);
  const results =
    last?.role === 'user' && Array.isArray(last.content) ? last.content.filter((b: any) => isObj(b?.toolResult)) : [];
  const userTexts = Array.isArray(lastUser?.content)
    ? lastUser.content.filter((b: any) => typeof b?.text === 'string')
    : [];
  return {
    system: textOf(body?.system),
    lastUserText: textOf(userTexts),
    toolResult: results.length > 0 ? results.map((b: any) => textOf(b.toolResult.content)).join('\n') : undefined,
    maxTokens: body?.inferenceConfig?.maxTokens as number | undefined,
  };
}

/** The last user text, or the tool results the conversation ends with. */
export function bedrockLastUserText(body: any): string {
  const c = bedrockConversation(body);
  return c.lastUserText || (c.toolResult !== undefined ? `tool result: ${c.toolResult}` : '');
}

/** The tool a toolChoice forces (`any`: the first tool; `tool`: the one named), with its input schema. */
export function bedrockForcedTool(body: any): { name: string; schema: unknown } | undefined {
  const specs: any[] = (Array.isArray(body?.toolConfig?.tools) ? body.toolConfig.tools : [])
    .map((t: any) => t?.toolSpec)
    .filter(isObj);
  const choice = body?.toolConfig?.toolChoice;
  const spec = isObj(choice?.any)
    ? specs[0]
    : isObj(choice?.tool)
      ? specs.find((s) => s.name === choice.tool.name)
      : undefined;
  return spec ? { name: spec.name, schema: spec.inputSchema?.json } : undefined;
}
