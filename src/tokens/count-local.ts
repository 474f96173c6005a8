/**
 * Counting a request's input tokens locally, without asking the upstream.
 *
 * The text is tokenised with the model family's real BPE (o200k_base or cl100k_base, bundled by
 * gpt-tokenizer) and framed with OpenAI's published chat overhead:
 * @see https://github.com/openai/openai-cookbook/blob/main/examples/How_to_count_tokens_with_tiktoken.ipynb
 *
 *   each message   3 tokens + tokens(role) + tokens(content)   (the cookbook encodes the role too)
 *   the reply      3 tokens (`<|start|>assistant<|message|>`)
 *
 * That is exact for plain text messages on OpenAI models. The rest is an estimate:
 * - tool definitions: OpenAI does not publish how it renders them; we count the JSON of
 *   {name, description, parameters} per tool plus TOKENS_PER_TOOL_DEFINITION, plus TOOLS_OVERHEAD
 *   once (the cookbook's measured gpt-4o constants, func_init = 7 and func_end = 12);
 * - tool calls: tokens(name) + tokens(arguments) + TOKENS_PER_TOOL_CALL;
 * - tool results: each one is a message of its own (role `tool`), as OpenAI's format sends them;
 * - images: IMAGE_TOKENS each, the cost of a low-detail image. A high-detail image costs more
 *   (85 + 170 per 512×512 tile); the canonical request carries no dimensions, so we cannot tell;
 * - reasoning parts: their text (OpenAI drops them from the prompt; Anthropic counts them).
 * Non-OpenAI families (Claude, Llama, Mistral, mock…) have no bundled tokenizer: they are counted
 * with o200k_base and flagged `exact: false`.
 */
import { createRequire } from 'node:module';
import type { ChatRequest, ContentPart } from '../core/canonical.js';
import type { ModelSpec } from '../config/types.js';
import { countInPieces } from './bpe-pieces.js';

export type TokenizerEncoding = 'o200k_base' | 'cl100k_base';

export interface LocalTokenCount {
  inputTokens: number;
  encoding: TokenizerEncoding;
  /** True when the encoding is the model family's own (an OpenAI model). */
  exact: boolean;
}

/** Per message: `<|start|>{role}<|message|>…<|end|>` minus the role itself. */
export const TOKENS_PER_MESSAGE = 3;
/** Every reply is primed with `<|start|>assistant<|message|>`. */
export const REPLY_PRIMING_TOKENS = 3;
/** Estimate: one low-detail image (OpenAI's published base cost). */
export const IMAGE_TOKENS = 85;
/** Estimate: framing of one tool call in an assistant message, besides its name and arguments. */
export const TOKENS_PER_TOOL_CALL = 3;
/** Estimate: framing of one tool definition, besides its JSON. */
export const TOKENS_PER_TOOL_DEFINITION = 7;
/** Estimate: framing of the tool list as a whole, once when there is any tool. */
export const TOOLS_OVERHEAD = 12;

type Encoding = typeof import('gpt-tokenizer/encoding/o200k_base');

// Each encoding's ranks take a few hundred ms and tens of MB to load: loaded on first use only,
// so commands and servers that never count pay nothing. (The CommonJS build is what can be loaded
// synchronously; same package, same ranks.)
const requireCjs = createRequire(import.meta.url);
const encodings = new Map<TokenizerEncoding, Encoding>();
function encodingFor(name: TokenizerEncoding): Encoding {
  let e = encodings.get(name);
  if (!e) {
    e = requireCjs(`gpt-tokenizer/encoding/${name}`) as Encoding;
    encodings.set(name, e);
  }
  return e;
}

/** Special-token text in a prompt (`<|endoftext|>`) is ordinary text to count, not an error. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Tokens of `text`, long runs cut first so the cost stays linear (see bpe-pieces.ts). */
function countText(enc: Encoding, text: string): number {
  return countInPieces(text, (piece) => enc.countTokens(piece, AS_TEXT));
}

const O200K_FAMILIES = /^(?:gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|gpt-oss|o1|o3|o4)(?![a-z0-9])/;
const CL100K_FAMILIES = /^(?:gpt-4(?![a-z0-9.])|gpt-3\.5(?![0-9]))/;

/**
 * The encoding for an upstream model name. A prefix path (`openai/gpt-4o` on a router) and a
 * fine-tune prefix (`ft:gpt-4o-mini:org::id`) are looked through.
 */
export function encodingForModel(upstreamName: string): { encoding: TokenizerEncoding; exact: boolean } {
  const name = (upstreamName.split('/').pop() ?? '').toLowerCase().replace(/^ft:/, '');
  if (O200K_FAMILIES.test(name)) return { encoding: 'o200k_base', exact: true };
  if (CL100K_FAMILIES.test(name)) return { encoding: 'cl100k_base', exact: true };
  return { encoding: 'o200k_base', exact: false };
}

export function countInputTokensLocally(chat: ChatRequest, model: ModelSpec): LocalTokenCount {
  const { encoding, exact } = encodingForModel(model.upstreamName);
  const enc = encodingFor(encoding);
  // Each distinct string is encoded once per call (roles, repeated prompts, repeated tool results).
  const memo = new Map<string, number>();
  const tokens = (s: string): number => {
    if (s.length === 0) return 0;
    let n = memo.get(s);
    if (n === undefined) {
      n = countText(enc, s);
      memo.set(s, n);
    }
    return n;
  };
  const message = (role: string, contentTokens: number) => TOKENS_PER_MESSAGE + tokens(role) + contentTokens;

  /** Tokens of parts inside one message; tool results are counted by the caller. */
  const partTokens = (p: ContentPart): number => {
    switch (p.type) {
      case 'text':
      case 'reasoning':
        return tokens(p.text);
      case 'image':
        return IMAGE_TOKENS;
      case 'tool_call':
        return TOKENS_PER_TOOL_CALL + tokens(p.name) + tokens(p.arguments);
      case 'tool_result':
        return p.content.reduce((sum, q) => sum + partTokens(q), 0);
    }
  };

  let total = REPLY_PRIMING_TOKENS;
  if (chat.system.length > 0) {
    total += message(
      'system',
      chat.system.reduce((sum, p) => sum + partTokens(p), 0),
    );
  }
  for (const m of chat.messages) {
    let own = 0;
    let ownParts = 0;
    for (const p of m.content) {
      if (p.type === 'tool_result') {
        total += message('tool', partTokens(p));
      } else {
        own += partTokens(p);
        ownParts++;
      }
    }
    // A user turn made only of tool results is those `tool` messages, nothing more.
    if (ownParts > 0 || m.content.length === 0) total += message(m.role, own);
  }
  if (chat.tools.length > 0) {
    total += TOOLS_OVERHEAD;
    for (const t of chat.tools) {
      const def = JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters });
      total += TOKENS_PER_TOOL_DEFINITION + tokens(def);
    }
  }
  return { inputTokens: total, encoding, exact };
}

/** Tokens of generated text (what a cut stream had relayed) with the model family's tokenizer. */
export function countTextTokensLocally(text: string, model: ModelSpec): number {
  if (text.length === 0) return 0;
  return countText(encodingFor(encodingForModel(model.upstreamName).encoding), text);
}
