/**
 * Gemini names no function call, and its thinking models sign each call (`thoughtSignature`) and
 * refuse a follow-up turn whose call comes back without it. The tool-call id is the one thing
 * every caller format sends back verbatim (a chat caller has nowhere else to keep it), so the id
 * the gateway makes for a signed call carries the signature; an unsigned call's id is a hash of
 * what the call is, so decoding the same answer twice gives the same id. Towards any other format
 * such an id is shortened and its signature left out (withoutGeminiSignatures), as each format
 * drops another's signed reasoning: OpenAI refuses tool-call ids over 40 characters.
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */

import { createHash } from 'node:crypto';
import type { ChatRequest, ContentPart } from '../core/canonical.js';

/** Prefix of an id that carries a signature (base64url after it); ids never contain anything else. */
const SIGNED = 'call_gs_';
const UNSIGNED = 'call_g_';

/** The id of the `position`-th call of an answer (`answerId`: Gemini's responseId, when it sent one). */
export function geminiToolCallId(
  call: { name: string; args: string; signature?: string },
  position: number,
  answerId: string,
): string {
  if (call.signature) return SIGNED + Buffer.from(call.signature, 'base64').toString('base64url');
  const hash = createHash('sha256').update(`${answerId}\n${position}\n${call.name}\n${call.args}`).digest('hex');
  return UNSIGNED + hash.slice(0, 24);
}

/** The thought signature an id made by geminiToolCallId carries (standard base64, as Gemini sent it). */
export function signatureFromToolCallId(id: string): string | undefined {
  if (!id.startsWith(SIGNED) || id.length === SIGNED.length) return undefined;
  const raw = id.slice(SIGNED.length);
  return /^[A-Za-z0-9_-]+$/.test(raw) ? Buffer.from(raw, 'base64url').toString('base64') : undefined;
}

/**
 * The request with every id that carries a signature replaced by a short one made from it (the
 * same for a call and the results answering it); `thought_signature` named in `dropped` when
 * one was. The request itself when none does (the usual case: nothing copied).
 */
export function withoutGeminiSignatures(req: ChatRequest, dropped: string[]): ChatRequest {
  const signed = (p: ContentPart) =>
    (p.type === 'tool_call' && p.id.startsWith(SIGNED)) ||
    (p.type === 'tool_result' && p.toolCallId.startsWith(SIGNED));
  if (!req.messages.some((m) => m.content.some(signed))) return req;
  dropped.push('thought_signature');
  const short = (id: string) =>
    id.startsWith(SIGNED) ? UNSIGNED + createHash('sha256').update(id).digest('hex').slice(0, 24) : id;
  const messages = req.messages.map((m) => ({
    ...m,
    content: m.content.map((p): ContentPart => {
      if (p.type === 'tool_call') return { ...p, id: short(p.id) };
      if (p.type === 'tool_result') return { ...p, toolCallId: short(p.toolCallId) };
      return p;
    }),
  }));
  return { ...req, messages };
}
