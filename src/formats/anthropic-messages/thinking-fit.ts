/**
 * Claude's thinking settings fitted to the model a same-format request goes to. Claude Code sends
 * adaptive thinking with an effort to any model name it does not know (every gateway alias), which
 * Claude before 4.6 refuses with a 400; Opus 4.7 and later refuse a budget (`enabled`). The edits,
 * named to the caller: adaptive → `enabled` with its effort's budget inside `max_tokens` (too little
 * room for the minimum budget: thinking dropped), `enabled` → adaptive, an effort the model does not
 * take dropped. The model's `reasoning: false` drops both; a name that is not Claude's is left alone.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html
 */

import { claudeThinkingModes, type ClaudeThinkingModes } from '../model-traits.js';
import { EFFORT_BUDGET_TOKENS, MIN_THINKING_BUDGET } from '../output-cap.js';
import type { BodyEdits, EncodeTarget } from '../types.js';

const NO_THINKING: ClaudeThinkingModes = { adaptive: false, enabled: false, effort: false };

/** Adaptive thinking's default effort (Anthropic's), whose budget stands in when the caller names none. */
const DEFAULT_EFFORT = 'high';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What the top-level members `thinking` and `output_config` become: new JSON text, or null to remove them. */
export interface ThinkingFit {
  replace: Record<string, string>;
  remove: string[];
}

/**
 * The edits this body needs for the target model, naming each in `edits`; undefined when it needs none (no
 * `thinking` or `output_config` in the body: nothing is looked up).
 */
export function fitThinking(parsed: unknown, target: EncodeTarget, edits: BodyEdits): ThinkingFit | undefined {
  const body = parsed as { thinking?: unknown; output_config?: unknown; max_tokens?: unknown };
  if (body.thinking === undefined && body.output_config === undefined) return undefined;
  const modes = target.reasoning === false ? NO_THINKING : claudeThinkingModes(target.model);
  if (!modes) return undefined;
  const fit: ThinkingFit = { replace: {}, remove: [] };
  const config = isObj(body.output_config) ? body.output_config : undefined;
  const effort = config?.effort;
  const thinking = isObj(body.thinking) ? body.thinking : undefined;
  if (thinking?.type === 'adaptive' && !modes.adaptive) {
    const budget = modes.enabled ? budgetWithin(effort, body.max_tokens) : undefined;
    if (budget === undefined) dropThinking(fit, edits);
    else rewriteThinking(fit, edits, { type: 'enabled', budget_tokens: budget }, thinking.display);
  } else if (thinking?.type === 'enabled' && !modes.enabled) {
    if (modes.adaptive) rewriteThinking(fit, edits, { type: 'adaptive' }, thinking.display);
    else dropThinking(fit, edits);
  }
  if (config && effort !== undefined && !modes.effort) {
    const { effort: _, ...rest } = config;
    if (Object.keys(rest).length > 0) fit.replace.output_config = JSON.stringify(rest);
    else fit.remove.push('output_config');
    edits.dropped.push('output_config.effort');
  }
  return fit.remove.length > 0 || Object.keys(fit.replace).length > 0 ? fit : undefined;
}

/**
 * The budget adaptive thinking at this effort becomes: the translation's (output-cap.ts), kept under `max_tokens`
 * (Anthropic requires budget_tokens < max_tokens); undefined when there is no room for the minimum.
 */
export function budgetWithin(effort: unknown, maxTokens: unknown): number | undefined {
  const known = typeof effort === 'string' && Object.hasOwn(EFFORT_BUDGET_TOKENS, effort);
  const wanted = EFFORT_BUDGET_TOKENS[known ? (effort as keyof typeof EFFORT_BUDGET_TOKENS) : DEFAULT_EFFORT];
  if (typeof maxTokens !== 'number') return undefined;
  const budget = Math.min(wanted, maxTokens - 1);
  return budget >= MIN_THINKING_BUDGET ? budget : undefined;
}

function rewriteThinking(fit: ThinkingFit, edits: BodyEdits, to: Obj, display: unknown): void {
  fit.replace.thinking = JSON.stringify(display === undefined ? to : { ...to, display });
  edits.rewritten.push('thinking');
}

function dropThinking(fit: ThinkingFit, edits: BodyEdits): void {
  fit.remove.push('thinking');
  edits.dropped.push('thinking');
}
