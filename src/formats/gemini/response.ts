/**
 * Gemini `GenerateContentResponse` → canonical ChatResponse: the first candidate's parts (text,
 * thought summaries as reasoning, function calls as tool calls with generated ids), its finish
 * reason and the usage. A prompt Gemini blocked has no candidate: a clear 400 saying why.
 * @see https://ai.google.dev/api/generate-content#generatecontentresponse
 */

import type { ChatResponse, ContentPart } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { randomId } from '../../core/ids.js';
import { isObject, type Json } from '../../core/json.js';
import { fromGeminiFinishReason } from './stop-reason.js';
import { geminiToolCallId } from '../gemini-tool-ids.js';
import { usageFromGemini } from './usage.js';

export function decodeGeminiResponse(body: unknown): ChatResponse {
  if (!isObject(body))
    throw new GatewayError('upstream_error', 'The upstream sent a Gemini answer that is not an object.');
  refuseBlockedPrompt(body);
  const candidate = firstCandidate(body);
  const id = answerId(body);
  const content: ContentPart[] = [];
  let calls = 0;
  for (const part of candidateParts(candidate)) {
    const p = decodePart(part, calls, id);
    if (!p) continue;
    if (p.type === 'tool_call') calls++;
    const last = content[content.length - 1];
    // Gemini may split one text over several parts: one canonical part each kind, in order.
    if (p.type === 'text' && last?.type === 'text') last.text += p.text;
    else if (p.type === 'reasoning' && last?.type === 'reasoning') last.text += p.text;
    else content.push(p);
  }
  return {
    id,
    model: typeof body.modelVersion === 'string' ? body.modelVersion : '',
    created: Math.floor(Date.now() / 1000),
    content,
    finish: fromGeminiFinishReason(candidate?.finishReason, calls > 0),
    usage: usageFromGemini(body.usageMetadata),
  };
}

/** `promptFeedback.blockReason` (SAFETY, BLOCKLIST, PROHIBITED_CONTENT…): Gemini refused the prompt itself. */
export function refuseBlockedPrompt(body: Json): void {
  const feedback = isObject(body.promptFeedback) ? body.promptFeedback : undefined;
  if (typeof feedback?.blockReason !== 'string') return;
  throw new GatewayError(
    'invalid_request',
    `The Gemini model refused the prompt: it was blocked by Google's content filters (${feedback.blockReason}).`,
  );
}

export function firstCandidate(body: Json): Json | undefined {
  return Array.isArray(body.candidates) && isObject(body.candidates[0]) ? body.candidates[0] : undefined;
}

export function candidateParts(candidate: Json | undefined): Json[] {
  const parts = isObject(candidate?.content) ? candidate.content.parts : undefined;
  return Array.isArray(parts) ? parts.filter(isObject) : [];
}

/** Gemini's `responseId`, else one made here (a stream's chunks all carry the same responseId). */
export function answerId(body: Json): string {
  return typeof body.responseId === 'string' && body.responseId ? body.responseId : randomId('gemini-');
}

/** What a Gemini answer part can be, canonically. */
type AnswerPart = Extract<ContentPart, { type: 'text' | 'reasoning' | 'tool_call' }>;

/**
 * One part → canonical, or undefined for a part with nothing canonical (an empty text carrying
 * only a signature, executable code…). `calls`: the function calls before it in the answer.
 */
export function decodePart(part: Json, calls: number, answer: string): AnswerPart | undefined {
  if (isObject(part.functionCall)) {
    const fc = part.functionCall;
    const name = typeof fc.name === 'string' ? fc.name : '';
    const args = JSON.stringify(isObject(fc.args) ? fc.args : {});
    const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
    return { type: 'tool_call', id: geminiToolCallId({ name, args, signature }, calls, answer), name, arguments: args };
  }
  if (typeof part.text !== 'string' || part.text.length === 0) return undefined;
  return part.thought === true ? { type: 'reasoning', text: part.text } : { type: 'text', text: part.text };
}
