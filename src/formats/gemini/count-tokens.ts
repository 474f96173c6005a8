/**
 * Gemini's `models/{model}:countTokens`: the request as a `generateContentRequest` (so the tools
 * and system instruction are counted too), the count as `totalTokens`.
 * @see https://ai.google.dev/api/tokens#method:-models.counttokens
 */

import { isObject } from '../../core/json.js';

/** What of an encoded request counts as input (generation settings do not). */
const COUNTED = ['contents', 'systemInstruction', 'tools', 'toolConfig'];

export const geminiCountTokens = {
  body(encoded: Record<string, unknown>, model: string): Record<string, unknown> {
    const request: Record<string, unknown> = { model: `models/${model.replace(/^models\//, '')}` };
    for (const f of COUNTED) if (encoded[f] !== undefined) request[f] = encoded[f];
    return { generateContentRequest: request };
  },
  inputTokens(answer: unknown): number | undefined {
    const n = isObject(answer) ? answer.totalTokens : undefined;
    return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
  },
};
