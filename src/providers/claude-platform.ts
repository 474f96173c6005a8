/**
 * What Claude on Bedrock (InvokeModel) and on Vertex AI (rawPredict) take of an Anthropic messages
 * request that was written for Anthropic's own API, as Claude Code's are: the `anthropic-beta` values
 * each platform knows (a first-party name the platform spells differently is renamed) and the
 * top-level body fields it takes. Both refuse the rest with a 400 for the whole request, so the
 * kinds drop it instead and list it in `x-gateway-dropped-fields` (a team whose platform takes a
 * newer beta allows it with the provider's `anthropic_betas.allow`).
 *
 * Sources (November 2026):
 * - Bedrock answers a beta it does not take with 400 ValidationException `invalid beta flag`
 *   (anthropics/claude-code#49370, #56595; coder/aibridge#221); the values kept follow LiteLLM's
 *   per-platform map (BerriAI/litellm, anthropic_beta_headers_config.json) and checks one by one in
 *   router-for-me/CLIProxyAPI#4750 (`prompt-caching-scope-2026-01-05`, `oauth-2025-04-20`,
 *   `fast-mode-2026-02-01` refused). An extra body field: `extraneous key [f] is not permitted`;
 *   `metadata` takes only `user_id` (BerriAI/litellm#30629); older models refuse
 *   `output_config.effort` (anthropics/claude-code-action#1005), newer ones take it: kept.
 * - Vertex answers 400 invalid_request_error "Unexpected value(s) `x` for the `anthropic-beta`
 *   header" (anthropics/claude-code#12429: web-search on count-tokens, #34802: `effort-2025-11-24`;
 *   BerriAI/litellm#19984: `prompt-caching-scope-2026-01-05`, #31607: `context-1m-2025-08-07` in the
 *   header), and a field a beta gates without it "context_management: Extra inputs are not
 *   permitted" (BerriAI/litellm#22321).
 * - Tool search is `advanced-tool-use-2025-11-20` first-party but `tool-search-tool-2025-10-19` on
 *   both platforms (Claude Code's constants/betas.ts); `claude-code-20250219` only marks Claude
 *   Code's traffic, and Bedrock's newer models refuse it (anthropics/claude-code#49648): dropped.
 */

import type { IncomingHttpHeaders } from 'node:http';
import {
  arrayElementSpans,
  objectSpans,
  removeTopLevelWhere,
  replaceSpans,
  type Span,
  topLevelSpans,
} from '../core/json-splice.js';

export interface ClaudePlatform {
  /** The beta values the platform takes: the caller's name → the platform's. */
  betas: ReadonlyMap<string, string>;
  /** The top-level fields of an Anthropic messages body the platform takes (its own version field aside). */
  fields: ReadonlySet<string>;
  /** Fields the platform takes only with a beta: the field → the prefix of that beta's value. */
  gated: ReadonlyMap<string, string>;
}

const TOOL_SEARCH_3P = 'tool-search-tool-2025-10-19';

/** Betas the platform takes under their own names, plus first-party tool search renamed. */
function betaMap(names: readonly string[]): ReadonlyMap<string, string> {
  return new Map([...names.map((n) => [n, n] as const), ['advanced-tool-use-2025-11-20', TOOL_SEARCH_3P]]);
}

const MESSAGES_FIELDS = [
  'max_tokens',
  'messages',
  'system',
  'metadata',
  'stop_sequences',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'context_management',
];
const GATED = new Map([['context_management', 'context-management-']]);

/** Claude through InvokeModel: `stream` is the path's, the betas go in the body's `anthropic_beta`. */
export const BEDROCK_CLAUDE: ClaudePlatform = {
  betas: betaMap([
    'interleaved-thinking-2025-05-14',
    'context-management-2025-06-27',
    'effort-2025-11-24',
    TOOL_SEARCH_3P,
    'tool-examples-2025-10-29',
    'context-1m-2025-08-07',
    'computer-use-2025-01-24',
    'computer-use-2025-11-24',
    'token-efficient-tools-2025-02-19',
    'fine-grained-tool-streaming-2025-05-14',
    'output-128k-2025-02-19',
    'compact-2026-01-12',
  ]),
  fields: new Set(MESSAGES_FIELDS),
  gated: GATED,
};

/** Claude through rawPredict: the betas in the `anthropic-beta` header, as Anthropic's. */
export const VERTEX_CLAUDE: ClaudePlatform = {
  betas: betaMap([
    'interleaved-thinking-2025-05-14',
    'context-management-2025-06-27',
    TOOL_SEARCH_3P,
    'compact-2026-01-12',
    'computer-use-2025-01-24',
    'computer-use-2025-11-24',
  ]),
  fields: new Set([...MESSAGES_FIELDS, 'stream']),
  gated: GATED,
};

/**
 * Claude's token count on Vertex (`count-tokens:rawPredict`): each model's backend takes new betas
 * on its own schedule and refuses the others even where its messages endpoint takes them, while a
 * count needs none (anthropic-sdk-typescript#1037, #1089; BerriAI/litellm#39597): no betas, so no
 * field a beta gates; `model` names the counted model.
 */
export const VERTEX_CLAUDE_COUNT: ClaudePlatform = {
  betas: new Map(),
  fields: new Set(['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'output_config']),
  gated: GATED,
};

export interface PlatformBetas {
  /** What goes up, in the platform's names, each once. */
  kept: string[];
  /** The caller's values the platform does not take, as `anthropic-beta:<value>`. */
  dropped: string[];
  /**
   * The caller asked for `role: "system"` messages mid-conversation (Claude Code does, under the
   * mid-conversation-system beta) and the platform does not take them: they go up as user turns.
   */
  systemAsUser: boolean;
}

/** A translated caller's: its betas are listed by the attempt, none goes up. */
export const NO_BETAS: PlatformBetas = { kept: [], dropped: [], systemAsUser: false };

/**
 * The caller's `anthropic-beta` values (one header or repeated, comma-separated) sorted into those
 * the platform takes (renamed) and the rest. `allowed`: values it takes too (a provider's
 * `anthropic_betas.allow`).
 */
export function platformBetas(
  platform: ClaudePlatform,
  caller: IncomingHttpHeaders,
  allowed: readonly string[] | undefined,
): PlatformBetas {
  const header = caller['anthropic-beta'];
  if (header === undefined) return NO_BETAS;
  const kept = new Set<string>();
  const dropped: string[] = [];
  let systemAsUser = false;
  for (const raw of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const beta = raw.trim();
    if (!beta) continue;
    const named = platform.betas.get(beta) ?? (allowed?.includes(beta) ? beta : undefined);
    if (named !== undefined) {
      kept.add(named);
      continue;
    }
    if (beta.startsWith('mid-conversation-system-')) systemAsUser = true;
    // The caller's text goes back in a header: bounded in number and length.
    if (beta.length <= 100 && dropped.length < 32) dropped.push(`anthropic-beta:${beta}`);
  }
  return { kept: [...kept], dropped, systemAsUser };
}

/**
 * The caller's body as the platform takes it, spliced (its other bytes as they are): without the
 * kind's `remove` fields (`model`…), without the fields the platform does not take or whose beta it
 * does not take (their names pushed to `dropped`), with mid-conversation system messages as user
 * turns when `betas.systemAsUser`. `anthropic_version` is left for the kind to set.
 */
export function platformBody(
  platform: ClaudePlatform,
  body: Buffer,
  betas: PlatformBetas,
  remove: readonly string[],
  dropped: string[],
): Buffer {
  const removed = new Set<string>();
  const trimmed = removeTopLevelWhere(body, (key) => {
    if (remove.includes(key)) return true;
    if (key === 'anthropic_version' || !dropsField(platform, key, betas.kept)) return false;
    removed.add(key);
    return true;
  });
  dropped.push(...removed);
  return betas.systemAsUser ? systemMessagesAsUser(trimmed) : trimmed;
}

/** Whether a top-level field stays out: one the platform does not take, or one whose beta is not kept. */
function dropsField(platform: ClaudePlatform, field: string, kept: readonly string[]): boolean {
  if (!platform.fields.has(field)) return true;
  const needs = platform.gated.get(field);
  return needs !== undefined && !kept.some((b) => b.startsWith(needs));
}

/**
 * Each `{"role": "system", …}` in `messages` made `"role": "user"` in place: its content (a string
 * or text blocks) is a user turn's too, and the API joins consecutive user turns into one.
 */
function systemMessagesAsUser(body: Buffer): Buffer {
  const messages = topLevelSpans(body).get('messages');
  if (!messages) return body;
  const edits: Array<{ span: Span; text: string }> = [];
  for (const [start] of arrayElementSpans(body, messages[0])) {
    if (body[start] !== 0x7b) continue;
    const role = objectSpans(body, start).get('role');
    if (role && body.toString('utf8', role[0], role[1]) === '"system"') edits.push({ span: role, text: '"user"' });
  }
  return edits.length > 0 ? replaceSpans(body, edits) : body;
}
