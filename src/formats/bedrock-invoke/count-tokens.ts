/**
 * Bedrock's CountTokens for an InvokeModel body: `POST /model/{modelId}/count-tokens` with
 * `{"input": {"invokeModel": {"body": "<base64>"}}}` → `{"inputTokens": N}`. `body` is a blob, so
 * base64 on the wire, and it must be a body InvokeModel takes: the kind's edited Anthropic body, with
 * a `max_tokens` when the count request has none (above a thinking budget, as InvokeModel requires;
 * it does not change the input count). A model CountTokens does not support answers 400
 * ValidationException ("The provided model doesn't support counting tokens"): counted locally then.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelTokensRequest.html
 */

import { isObject } from '../../core/json.js';
import { bedrockErrorMessage } from '../bedrock-converse/index.js';

export function countTokensBody(chatBody: Buffer): Buffer {
  const body = JSON.parse(chatBody.toString('utf8')) as Record<string, unknown>;
  if (body.max_tokens === undefined) {
    const thinking = isObject(body.thinking) ? body.thinking.budget_tokens : undefined;
    body.max_tokens = typeof thinking === 'number' ? thinking + 1 : 1;
  }
  const blob = Buffer.from(JSON.stringify(body)).toString('base64');
  return Buffer.from(JSON.stringify({ input: { invokeModel: { body: blob } } }));
}

export function countTokensAnswer(answer: unknown): number | undefined {
  const n = isObject(answer) ? answer.inputTokens : undefined;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
}

export function countUnsupported(status: number, body: unknown): boolean {
  return status === 400 && /(doesn't|does not) support counting tokens/i.test(bedrockErrorMessage(body) ?? '');
}
