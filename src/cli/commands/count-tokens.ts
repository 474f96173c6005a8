/**
 * `gateway count-tokens`: the input tokens of a request (an OpenAI or Anthropic body, or plain
 * text) for a model or alias of the config, counted locally, and whether it fits the model's
 * context window.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command } from 'commander';
import type { GatewayConfig } from '../../config/types.js';
import type { ChatRequest, WireFormatId } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { anthropicMessages } from '../../formats/anthropic-messages/index.js';
import { openaiChat } from '../../formats/openai-chat/index.js';
import { openaiResponses } from '../../formats/openai-responses/index.js';
import { findKey, roleMayUse } from '../../config/access.js';
import { resolveModel } from '../../routing/resolve-model.js';
import { countingCandidate, countTokensLocal, refuseUncountable, type TokenCount } from '../../routing/count-tokens.js';
import { requireConfig } from '../config-report.js';
import { CliExit, ExitCode } from '../exit-codes.js';
import { colors, displayPath, plural, type CliIO } from '../io.js';
import { isObject } from '../../core/json.js';

export interface CountTokensOptions {
  model?: string;
  config?: string;
  key?: string;
  json?: boolean;
}

export const APPROXIMATE_NOTE = 'approximate: no bundled tokenizer for this model family';

export function countTokensCommand(io: CliIO): Command {
  return new Command('count-tokens')
    .description("count a request's input tokens for a model or alias, and whether it fits the context window")
    .argument('[file]', 'a request body (OpenAI or Anthropic JSON) or plain text; - or none reads stdin')
    .option('-m, --model <model>', 'model or alias to count for (default: the input\'s "model")')
    .option('-c, --config <file>', 'config file (default: $GATEWAY_CONFIG, ./gateway.yaml, ./gateway.example.yaml)')
    .option('--key <key>', "check that this gateway key's role may use the model")
    .option('--json', 'print the count as a JSON object')
    .action(async (file: string | undefined, opts: CountTokensOptions) => {
      const count = await collectCount(file, opts, io);
      printCount(count, opts, io);
    });
}

function usage(io: CliIO, message: string): never {
  io.err(`error: ${message}`);
  throw new CliExit(ExitCode.INVALID);
}

export async function collectCount(file: string | undefined, opts: CountTokensOptions, io: CliIO): Promise<TokenCount> {
  const { config, display } = await requireConfig(opts.config, io, { quiet: true });
  const text = await readInput(file, io);
  let input: CountInput;
  try {
    input = parseCountInput(text);
  } catch (e) {
    usage(io, (e as Error).message);
  }
  if (input.note) io.err(`note: ${input.note}`);

  const modelName = opts.model ?? input.model;
  if (modelName === undefined) usage(io, 'no model: pass --model, or put "model" in the input');
  if (!resolveModel(config, modelName))
    usage(io, `unknown model "${modelName}" in ${display} (list them with: gateway models)`);
  if (opts.key !== undefined) checkKey(config, display, opts.key, modelName, io);
  warnIfUnavailable(config, modelName, io);

  let chat: ChatRequest;
  try {
    chat = decodeCountInput(input, modelName).chat;
    refuseUncountable(chat);
  } catch (e) {
    usage(io, `the input is not a valid request: ${(e as Error).message}`);
  }
  try {
    return countTokensLocal(config, modelName, chat);
  } catch (e) {
    if (e instanceof GatewayError && e.code === 'model_not_found')
      usage(io, `unknown model "${modelName}" in ${display}`);
    throw e;
  }
}

function checkKey(config: GatewayConfig, display: string, key: string, modelName: string, io: CliIO): void {
  const entry = findKey(config.keys, key);
  // Never echo the key itself: it may be a real secret typed on the command line.
  if (!entry) usage(io, `the given key matches no key in ${display}`);
  if (!roleMayUse(config, entry.role, modelName)) {
    usage(io, `the key's role "${entry.role}" may not use the model "${modelName}"`);
  }
}

/** The one config warning count-tokens repeats: the model counted for cannot be served now. */
function warnIfUnavailable(config: GatewayConfig, modelName: string, io: CliIO): void {
  const { model, provider } = countingCandidate(config, modelName);
  if (provider.available) return;
  const why = provider.unavailableReason ? ` (${provider.unavailableReason})` : '';
  const via = model.id === modelName ? '' : ` (counted for ${model.id})`;
  io.err(
    colors(io).yellow(
      `warning: provider "${provider.id}" is unavailable${why}: ` +
        `"${modelName}"${via} cannot be served until it is configured`,
    ),
  );
}

async function readInput(file: string | undefined, io: CliIO): Promise<string> {
  if (file === undefined || file === '-') {
    if (!io.stdin) usage(io, 'no input: name a file (standard input is not available here)');
    return io.stdin();
  }
  const path = resolve(io.cwd, file);
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    io.err(`error: cannot read ${displayPath(io, path)}: ${(e as Error).message}`);
    throw new CliExit(ExitCode.FAILURE);
  }
}

/** What the input was: a request body (still undecoded) or plain text. */
export type CountInput =
  | { kind: 'body'; body: Record<string, unknown>; model?: string; note?: string }
  | { kind: 'text'; text: string; model?: undefined; note?: string };

/**
 * JSON with `messages` (or a bare array of messages) is a request body; anything that is not JSON
 * is plain text, one user message. JSON without `messages` is an error (it was meant as a body).
 */
export function parseCountInput(raw: string): CountInput {
  const text = raw.replace(/^\uFEFF/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const looksJson = /^\s*[{[]/.test(text);
    return {
      kind: 'text',
      text,
      ...(looksJson ? { note: `the input is not valid JSON (${(e as Error).message}); counted as plain text` } : {}),
    };
  }
  if (Array.isArray(parsed)) return { kind: 'body', body: { messages: parsed } };
  if (!isObject(parsed)) return { kind: 'text', text };
  if (!Array.isArray(parsed.messages)) throw new Error("the input is JSON but has no 'messages' array");
  return {
    kind: 'body',
    body: parsed,
    ...(typeof parsed.model === 'string' && parsed.model ? { model: parsed.model } : {}),
  };
}

/** Signs of an OpenAI chat body that an Anthropic one never has. */
function looksOpenai(body: Record<string, unknown>): boolean {
  const messages = body.messages as unknown[];
  const openaiMessage = (m: unknown) =>
    isObject(m) &&
    ((typeof m.role === 'string' && ['system', 'developer', 'tool'].includes(m.role)) ||
      Array.isArray(m.tool_calls) ||
      (Array.isArray(m.content) && m.content.some((p) => isObject(p) && p.type === 'image_url')));
  const openaiTool = (t: unknown) => isObject(t) && t.type === 'function';
  return messages.some(openaiMessage) || (Array.isArray(body.tools) && body.tools.some(openaiTool));
}

/**
 * The input → canonical request for `model`. A body is decoded as OpenAI when it shows OpenAI
 * signs, else as Anthropic (which also takes plain user/assistant string messages); if that
 * decoder refuses it the other is tried, and if both do, the first one's error is thrown.
 */
export function decodeCountInput(
  input: CountInput,
  model: string,
): { chat: ChatRequest; format: WireFormatId | 'text' } {
  if (input.kind === 'text') {
    const chat: ChatRequest = {
      model,
      system: [],
      messages: [{ role: 'user', content: [{ type: 'text', text: input.text }] }],
      tools: [],
      stream: false,
      includeUsage: false,
      unmapped: [],
    };
    return { chat, format: 'text' };
  }
  const body: Record<string, unknown> = { ...input.body, model };
  // forCounting: a body meant for counting leaves out max_tokens, which Anthropic otherwise requires.
  const decoders: Record<WireFormatId, () => ChatRequest> = {
    'openai-chat': () => openaiChat.decodeRequest(body, { forCounting: true }),
    'anthropic-messages': () => anthropicMessages.decodeRequest(body, { forCounting: true }),
    'openai-responses': () => openaiResponses.decodeRequest(body, { forCounting: true }),
  };
  // A Responses body has `input` and no `messages`; the other two are told apart by their fields.
  const order: readonly WireFormatId[] =
    body.input !== undefined && body.messages === undefined
      ? ['openai-responses']
      : looksOpenai(body)
        ? ['openai-chat', 'anthropic-messages']
        : ['anthropic-messages', 'openai-chat'];
  let first: unknown;
  for (const format of order) {
    try {
      return { chat: decoders[format](), format };
    } catch (e) {
      first ??= e;
    }
  }
  throw first;
}

export function printCount(count: TokenCount, opts: Pick<CountTokensOptions, 'json'>, io: CliIO): void {
  if (opts.json) {
    io.out(JSON.stringify(count, null, 2));
    return;
  }
  const c = colors(io);
  const verdict = count.fits ? c.green('fits') : c.red('does not fit');
  io.out(
    `${plural(count.inputTokens, 'token')}  (model ${count.model}, context window ${count.contextWindow}: ${verdict})`,
  );
  if (!count.exact) io.out(c.dim(`${APPROXIMATE_NOTE} (counted with ${count.encoding ?? 'o200k_base'})`));
}
