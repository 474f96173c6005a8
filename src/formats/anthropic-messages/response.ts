/**
 * Anthropic `message` object ↔ canonical ChatResponse.
 * @see https://docs.anthropic.com/en/api/messages (response body)
 */

import type { ChatResponse, ContentPart, Usage } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { randomId } from '../../core/ids.js';
import { isObject } from './request-decode.js';
import { fromAnthropicStopReason, toAnthropicStopReason } from './stop-reason.js';
import { usageFromAnthropic, usageToAnthropic } from './usage.js';

/** Anthropic ids start with `msg_`, and some clients check; ids from other formats get the prefix. */
export function anthropicMessageId(id: string): string {
  if (id.length === 0) return randomId('msg_');
  return id.startsWith('msg_') ? id : `msg_${id}`;
}

/**
 * Upstream message → canonical. Blocks the canonical model has no place for are skipped:
 * redacted_thinking (opaque to anyone but Anthropic) and server-tool blocks (server tools are
 * only forwarded to Anthropic upstreams, whose replies pass through unless output rules apply).
 */
export function decodeAnthropicResponse(body: unknown): ChatResponse {
  if (!isObject(body) || !Array.isArray(body.content)) {
    throw new GatewayError('upstream_error', 'The upstream sent a response that is not an Anthropic message.');
  }
  const content: ContentPart[] = [];
  for (const b of body.content) {
    if (!isObject(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') content.push({ type: 'text', text: b.text });
    else if (b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string') {
      content.push({ type: 'tool_call', id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) });
    } else if (b.type === 'thinking' && typeof b.thinking === 'string') {
      const part: ContentPart = { type: 'reasoning', text: b.thinking };
      if (typeof b.signature === 'string' && b.signature) part.signature = b.signature;
      content.push(part);
    }
  }
  return anthropicResponseOf(body, content, usageFromAnthropic(body.usage));
}

/**
 * The canonical response from a message's top-level members, its content decoded and its usage read
 * already (the complete-answer fast path, plain-answer.ts, takes them from its own captures).
 */
export function anthropicResponseOf(
  body: Record<string, unknown>,
  content: ContentPart[],
  usage: Usage | undefined,
): ChatResponse {
  const res: ChatResponse = {
    id: typeof body.id === 'string' ? body.id : '',
    model: typeof body.model === 'string' ? body.model : '',
    // Anthropic messages carry no timestamp; "now" is when the gateway received it.
    created: Math.floor(Date.now() / 1000),
    content,
    finish: fromAnthropicStopReason(body.stop_reason),
    usage: usage ?? { inputTokens: 0, outputTokens: 0 },
  };
  if (typeof body.stop_sequence === 'string') res.stopSequence = body.stop_sequence;
  return res;
}

/**
 * Canonical → the `message` object Anthropic callers expect. Tool arguments are JSON text in the
 * canonical model but an object here: text that does not parse to an object (e.g. arguments cut
 * off by max_tokens at another provider) becomes `{}`, since `input` must be an object and the
 * stop_reason already tells the caller the turn was truncated. Unsigned reasoning gets
 * `signature: ""` (the field is required); it is dropped again if sent back upstream.
 */
export function encodeAnthropicResponse(res: ChatResponse) {
  const content: Array<Record<string, unknown>> = [];
  for (const part of res.content) {
    if (part.type === 'text') {
      if (part.text.length > 0) content.push({ type: 'text', text: part.text });
    } else if (part.type === 'tool_call') {
      content.push({ type: 'tool_use', id: part.id, name: part.name, input: parseToolInput(part.arguments) });
    } else if (part.type === 'reasoning') {
      content.push({ type: 'thinking', thinking: part.text, signature: part.signature ?? '' });
    }
    // image and tool_result parts cannot occur in an assistant reply.
  }
  return {
    id: anthropicMessageId(res.id),
    type: 'message' as const,
    role: 'assistant' as const,
    model: res.model,
    content,
    stop_reason: toAnthropicStopReason(res.finish, res.stopSequence),
    stop_sequence: res.finish === 'stop' ? (res.stopSequence ?? null) : null,
    usage: usageToAnthropic(res.usage),
  };
}

export function parseToolInput(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json);
    return isObject(v) ? v : {};
  } catch {
    return {};
  }
}
