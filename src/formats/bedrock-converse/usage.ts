/**
 * Bedrock `TokenUsage` → canonical Usage. `inputTokens` already excludes the tokens read from or
 * written to the prompt cache (`totalTokens` is the sum of all four), as canonical input does.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html
 */

import type { Usage } from '../../core/canonical.js';
import { isObject } from '../../core/json.js';

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0;
}

export function usageFromBedrock(u: unknown): Usage {
  if (!isObject(u)) return { inputTokens: 0, outputTokens: 0 };
  const out: Usage = { inputTokens: count(u.inputTokens), outputTokens: count(u.outputTokens) };
  const read = count(u.cacheReadInputTokens);
  const write = count(u.cacheWriteInputTokens);
  if (read > 0) out.cacheReadTokens = read;
  if (write > 0) out.cacheWriteTokens = write;
  return out;
}
