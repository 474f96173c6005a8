/**
 * Gemini `finishReason` → canonical FinishReason. Gemini says STOP after a function call too:
 * a reply that calls tools ends with `tool_calls`, as the other formats say.
 * @see https://ai.google.dev/api/generate-content#FinishReason
 */

import type { FinishReason } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';

/** Content the model's safety and policy filters stopped. */
const FILTERED = new Set(['SAFETY', 'RECITATION', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'IMAGE_SAFETY']);

/** Throws for a reason that means the answer is unusable (a malformed function call). */
export function fromGeminiFinishReason(raw: unknown, calledTools: boolean): FinishReason {
  if (raw === 'MALFORMED_FUNCTION_CALL' || raw === 'UNEXPECTED_TOOL_CALL')
    throw new GatewayError('upstream_error', `The Gemini model produced an invalid function call (${raw}).`);
  if (raw === 'STOP') return calledTools ? 'tool_calls' : 'stop';
  if (raw === 'MAX_TOKENS') return 'length';
  if (typeof raw === 'string' && FILTERED.has(raw)) return 'content_filter';
  return 'other';
}
