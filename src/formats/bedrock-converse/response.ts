/**
 * Bedrock Converse response → canonical ChatResponse: `output.message.content` blocks (text,
 * toolUse, reasoningContent), `stopReason`, `usage`. Converse gives no response id and does
 * not repeat the model: the id is made here, the model left to the caller's side (response-model.ts).
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */

import type { ChatResponse, ContentPart } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { randomId } from '../../core/ids.js';
import { isObject, type Json } from '../../core/json.js';
import { fromBedrockStopReason } from './stop-reason.js';
import { usageFromBedrock } from './usage.js';

export function decodeBedrockResponse(body: unknown): ChatResponse {
  if (!isObject(body))
    throw new GatewayError('upstream_error', 'The upstream sent a Bedrock answer that is not an object.');
  const message = isObject(body.output) && isObject(body.output.message) ? body.output.message : undefined;
  const blocks = Array.isArray(message?.content) ? message.content.filter(isObject) : [];
  const content = blocks.map(decodeBlock).filter((p): p is ContentPart => p !== undefined);
  return {
    id: randomId('bedrock-'),
    model: '',
    created: Math.floor(Date.now() / 1000),
    content,
    finish: fromBedrockStopReason(body.stopReason),
    usage: usageFromBedrock(body.usage),
  };
}

/** One answer block → canonical, or undefined for one with nothing canonical (an empty text). */
function decodeBlock(block: Json): ContentPart | undefined {
  if (typeof block.text === 'string') return block.text ? { type: 'text', text: block.text } : undefined;
  if (isObject(block.toolUse)) {
    const t = block.toolUse;
    return {
      type: 'tool_call',
      id: typeof t.toolUseId === 'string' ? t.toolUseId : '',
      name: typeof t.name === 'string' ? t.name : '',
      arguments: JSON.stringify(t.input ?? {}),
    };
  }
  if (isObject(block.reasoningContent)) {
    const r = block.reasoningContent;
    if (typeof r.redactedContent === 'string') return { type: 'reasoning', text: '', redacted: r.redactedContent };
    const t = isObject(r.reasoningText) ? r.reasoningText : {};
    return {
      type: 'reasoning',
      text: typeof t.text === 'string' ? t.text : '',
      ...(typeof t.signature === 'string' ? { signature: t.signature } : {}),
    };
  }
  return undefined;
}
