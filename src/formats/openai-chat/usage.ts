import type { Usage } from '../../core/canonical.js';

interface OpenaiUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

/** OpenAI `prompt_tokens` includes cached tokens; canonical `inputTokens` excludes them. */
export function usageFromOpenai(u: OpenaiUsage | null | undefined): Usage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const prompt = num(u.prompt_tokens);
  const cached = num(u.prompt_tokens_details?.cached_tokens);
  return {
    inputTokens: Math.max(0, prompt - cached),
    outputTokens: num(u.completion_tokens),
    ...(cached > 0 ? { cacheReadTokens: cached } : {}),
  };
}

export function usageToOpenai(u: Usage) {
  const cached = u.cacheReadTokens ?? 0;
  const prompt = u.inputTokens + cached + (u.cacheWriteTokens ?? 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: u.outputTokens,
    total_tokens: prompt + u.outputTokens,
    ...(cached > 0 ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
  };
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}
