/**
 * Gemini names no function call, and its thinking models sign each call (`thoughtSignature`) and
 * refuse a follow-up turn whose call comes back without it. The tool-call id is the one thing
 * every caller format sends back verbatim (a chat caller has nowhere else to keep it), so the id
 * the gateway makes for a signed call carries the signature; an unsigned call's id is a hash of
 * what the call is, so decoding the same answer twice gives the same id.
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */

import { createHash } from 'node:crypto';

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
