/**
 * Reasoning items ⇄ canonical reasoning parts. A Responses reasoning item carries a readable
 * `summary` and, for continuing a conversation without server-side state, an opaque
 * `encrypted_content` that only its own provider can read.
 *
 * Anthropic's signed reasoning (a thinking block's text and signature, or a redacted_thinking
 * block's data) reaches a Responses caller in `encrypted_content` too, as a gateway envelope:
 * ENVELOPE_PREFIX followed by the base64url of the JSON `{"text", "signature"}` or
 * `{"redacted"}`. A caller that sends the item back (Codex does, with every tool result) gets
 * the Anthropic part restored exactly, so Claude's tool loops with thinking keep working through
 * a Responses client. The envelope holds only what Anthropic already returned in the clear to the
 * caller's side of the gateway; nothing secret, nothing the gateway signs. Any other
 * `encrypted_content`, a malformed envelope included, is OpenAI's own and kept as it is.
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-output
 */

import type { ContentPart } from '../../core/canonical.js';
import { isObject, type Json } from '../../core/json.js';

type ReasoningPart = Extract<ContentPart, { type: 'reasoning' }>;

export const ENVELOPE_PREFIX = 'gateway.anthropic-thinking.v1.';

/** Between the texts of several summary parts (each is a paragraph). */
const PARAGRAPH = '\n\n';

/** The envelope of an Anthropic-signed part; undefined for a part that is not Anthropic-signed. */
export function sealAnthropicReasoning(part: ReasoningPart): string | undefined {
  let payload: Json;
  if (part.redacted !== undefined) payload = { redacted: part.redacted };
  else if (part.signature !== undefined) payload = { text: part.text, signature: part.signature };
  else return undefined;
  return ENVELOPE_PREFIX + Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** The Anthropic part an envelope holds; undefined when `encrypted` is not a well-formed envelope. */
export function openAnthropicReasoning(encrypted: string): ReasoningPart | undefined {
  if (!encrypted.startsWith(ENVELOPE_PREFIX)) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(encrypted.slice(ENVELOPE_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(payload)) return undefined;
  if (typeof payload.redacted === 'string') return { type: 'reasoning', text: '', redacted: payload.redacted };
  if (typeof payload.text === 'string' && typeof payload.signature === 'string')
    return { type: 'reasoning', text: payload.text, signature: payload.signature };
  return undefined;
}

/**
 * A reasoning item (already checked for shape) → canonical part: the summary texts, or the raw
 * reasoning texts (`content`, from open-weight models) when there is no summary.
 */
export function reasoningItemToPart(item: Json): ReasoningPart {
  const encrypted = typeof item.encrypted_content === 'string' ? item.encrypted_content : undefined;
  const restored = encrypted === undefined ? undefined : openAnthropicReasoning(encrypted);
  if (restored) return restored;
  const summary = texts(item.summary);
  const part: ReasoningPart = { type: 'reasoning', text: summary.length > 0 ? summary : texts(item.content) };
  if (encrypted !== undefined) part.encrypted = encrypted;
  if (typeof item.id === 'string') part.id = item.id;
  return part;
}

function texts(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  return parts
    .filter((p): p is Json => isObject(p) && typeof p.text === 'string')
    .map((p) => p.text)
    .join(PARAGRAPH);
}

/** Canonical part → the reasoning item a Responses caller receives (`id`: the item id to use). */
export function reasoningPartToItem(part: ReasoningPart, id: string): Json {
  const encrypted = part.encrypted ?? sealAnthropicReasoning(part);
  return {
    id,
    type: 'reasoning',
    summary: part.text.length > 0 ? [{ type: 'summary_text', text: part.text }] : [],
    ...(encrypted !== undefined ? { encrypted_content: encrypted } : {}),
  };
}
