/**
 * Bedrock's CountTokens (`POST /model/{modelId}/count-tokens`): the Converse request's input
 * (messages, system, toolConfig) under `input.converse`, the count as `inputTokens`. Not every
 * model can be counted: the others answer 400 ValidationException "The provided model doesn't
 * support counting tokens." (cross-region inference profiles among them), which `unsupported`
 * recognises so the gateway counts such a model locally instead of failing the caller.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html
 */

import { isObject } from '../../core/json.js';

/** What of an encoded Converse request counts as input (inferenceConfig does not; CountTokens refuses it). */
const COUNTED = ['messages', 'system', 'toolConfig'];

const UNSUPPORTED = /(?:doesn't|does not) support counting tokens/i;

export const bedrockCountTokens = {
  body(encoded: Record<string, unknown>): Record<string, unknown> {
    const converse: Record<string, unknown> = {};
    for (const f of COUNTED) if (encoded[f] !== undefined) converse[f] = encoded[f];
    return { input: { converse } };
  },
  inputTokens(answer: unknown): number | undefined {
    const n = isObject(answer) ? answer.inputTokens : undefined;
    return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
  },
  unsupported(status: number, body: unknown): boolean {
    return status === 400 && isObject(body) && typeof body.message === 'string' && UNSUPPORTED.test(body.message);
  },
};
