import { appendAll } from '../core/flat-map.js';
import type { ChatRequest, ContentPart } from '../core/canonical.js';

/**
 * Every system part of a request, for a format with one system field (Anthropic, Gemini,
 * Bedrock): the request's own, then those of system messages in the conversation, in order.
 */
export function allSystemParts(req: ChatRequest): ContentPart[] {
  const parts = [...req.system];
  for (const m of req.messages) if (m.role === 'system') appendAll(parts, m.content);
  return parts;
}
