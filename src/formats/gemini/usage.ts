/**
 * Gemini `usageMetadata` → canonical Usage. `promptTokenCount` includes the tokens served from
 * cached content (canonical `inputTokens` excludes them); `candidatesTokenCount` excludes the
 * thinking tokens, which are billed as output, so the canonical output is their sum.
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */

import type { Usage } from '../../core/canonical.js';
import { isObject } from '../../core/json.js';

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0;
}

export function usageFromGemini(u: unknown): Usage {
  if (!isObject(u)) return { inputTokens: 0, outputTokens: 0 };
  const cached = count(u.cachedContentTokenCount);
  const thoughts = count(u.thoughtsTokenCount);
  // Tokens of a tool's prompt (e.g. search results) are input too.
  const prompt = count(u.promptTokenCount) + count(u.toolUsePromptTokenCount);
  const out: Usage = {
    inputTokens: Math.max(0, prompt - cached),
    outputTokens: count(u.candidatesTokenCount) + thoughts,
  };
  if (cached > 0) out.cacheReadTokens = cached;
  if (thoughts > 0) out.reasoningTokens = thoughts;
  return out;
}
