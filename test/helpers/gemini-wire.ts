/**
 * Gemini's wire format (the Generative Language API, and Gemini on Vertex AI), as THE fake upstream
 * (fake-upstream.ts) writes it: GenerateContentResponse bodies, `streamGenerateContent?alt=sse`
 * chunks, Google's error shape, the model list. Shares no code with src/.
 *
 * A JSON answer is one candidate whose parts are the thought summaries (only when the request's
 * `thinkingConfig.includeThoughts` asks), the text, then one `functionCall` per call; on a thinking
 * model (gemini-2.5…, gemini-3…) the first call carries a thoughtSignature the fake can recognise
 * later (sealed, as the Responses reasoning is). A stream sends one chunk per thought or text piece
 * and per call, then a closing chunk with the finish reason and the full usage. A blocked prompt
 * has no candidate, only `promptFeedback.blockReason`.
 * @see https://ai.google.dev/api/generate-content#generatecontentresponse
 */

import type { WireAnswer, WireError, WireUsage } from './upstream-wire.js';

type Obj = Record<string, unknown>;
type Headers = Record<string, string>;

/** Gemini 2.5 and later think, and sign their function calls. */
export const thinks = (model: string): boolean => /^gemini-(2\.5|3)/.test(model);

const SIGNATURE_SEAL = 'fake-gemini-signature:';

/** The thoughtSignature of the first call of an answer: the answer id and the call's name, sealed. */
export const geminiSignature = (answerId: string, name: string): string =>
  Buffer.from(`${SIGNATURE_SEAL}${answerId}:${name}`).toString('base64');

/** Whether a signature is one the fake issued (whole and unaltered). */
export function isGeminiSignature(sig: unknown): boolean {
  if (typeof sig !== 'string' || !/^[A-Za-z0-9+/]+=*$/.test(sig)) return false;
  const plain = Buffer.from(sig, 'base64').toString('utf8');
  return plain.startsWith(SIGNATURE_SEAL) && Buffer.from(plain).toString('base64') === sig;
}

const FINISH = { stop: 'STOP', length: 'MAX_TOKENS', tool_calls: 'STOP' } as const;

/** promptTokenCount includes the cached tokens (Gemini has no cache writes: counted as prompt). */
const promptTokens = (u: WireUsage): number => u.input + u.cacheRead + u.cacheWrite;

/** The full usage; candidatesTokenCount excludes the thoughts. */
function usageMetadata(u: WireUsage): Obj {
  const prompt = promptTokens(u);
  const candidates = Math.max(0, u.output - u.reasoning);
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + u.output,
    ...(u.cacheRead > 0 ? { cachedContentTokenCount: u.cacheRead } : {}),
    ...(u.reasoning > 0 ? { thoughtsTokenCount: u.reasoning } : {}),
  };
}

/** The answer's parts in order: a stream sends each piece on its own, a JSON body each text whole. */
function parts(a: WireAnswer, whole: boolean): Obj[] {
  const config = (a.request?.generationConfig as Obj | undefined)?.thinkingConfig as Obj | undefined;
  const pieces = (p: string[]) => (whole && p.length > 0 ? [p.join('')] : p);
  const out: Obj[] = [];
  if (a.thinking && config?.includeThoughts === true)
    for (const text of pieces(a.thinking.pieces)) out.push({ text, thought: true });
  for (const text of pieces(a.text)) out.push({ text });
  a.toolCalls.forEach((c, i) => {
    const part: Obj = { functionCall: { name: c.name, args: JSON.parse(c.args.join('') || '{}') } };
    if (i === 0 && thinks(a.model)) part.thoughtSignature = geminiSignature(a.id, c.name);
    out.push(part);
  });
  return out;
}

function envelope(a: WireAnswer, candidateParts: Obj[], closing: boolean): Obj {
  const prompt = promptTokens(a.usage);
  if (a.blocked !== undefined) {
    return {
      promptFeedback: { blockReason: a.blocked },
      usageMetadata: { promptTokenCount: prompt, totalTokenCount: prompt },
      modelVersion: a.model,
      responseId: a.id,
    };
  }
  return {
    candidates: [
      {
        content: { parts: candidateParts, role: 'model' },
        ...(closing ? { finishReason: FINISH[a.finish] } : {}),
        index: 0,
      },
    ],
    usageMetadata: closing ? usageMetadata(a.usage) : { promptTokenCount: prompt, totalTokenCount: prompt },
    modelVersion: a.model,
    responseId: a.id,
  };
}

const chunk = (body: unknown) => `data: ${JSON.stringify(body)}\r\n\r\n`;

export function geminiJson(a: WireAnswer): unknown {
  return envelope(a, parts(a, true), true);
}

/** One chunk per part, then the closing chunk (an empty text part, the finish reason, the usage). */
export function geminiStream(a: WireAnswer): string[] {
  if (a.blocked !== undefined) return [chunk(envelope(a, [], true))];
  return [...parts(a, false).map((p) => chunk(envelope(a, [p], false))), chunk(envelope(a, [{ text: '' }], true))];
}

/** Google's `status` for an HTTP status, and back. */
const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};
const codeOf = (status: string): number =>
  Number(Object.entries(GOOGLE_STATUS).find(([, s]) => s === status)?.[0] ?? 500);
const statusOf = (type: string | undefined, code: number): string =>
  type !== undefined && Object.values(GOOGLE_STATUS).includes(type)
    ? type
    : (GOOGLE_STATUS[code] ?? (code >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION'));

/**
 * `{error: {code, message, status, details}}`: `e.type` a Google status (else the HTTP status's),
 * `e.code` the reason of an ErrorInfo detail (API_KEY_INVALID). Google sends no Retry-After: a
 * `retry-after` header the reply asks for becomes a RetryInfo detail (`retryDelay: "7s"`).
 */
export function geminiError(httpStatus: number, e: WireError, headers: Headers): { body: unknown; headers: Headers } {
  const { 'retry-after': retryAfter, ...rest } = headers;
  const details: Obj[] = [];
  if (e.code)
    details.push({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: e.code, domain: 'googleapis.com' });
  if (retryAfter !== undefined)
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` });
  const error = {
    code: httpStatus,
    message: e.message,
    status: statusOf(e.type, httpStatus),
    ...(details.length > 0 ? { details } : {}),
  };
  return { body: { error }, headers: rest };
}

/** An error inside a stream that started: a chunk holding Google's error object. */
export function geminiStreamError(message: string, type?: string): string {
  const status = statusOf(type, 500);
  return chunk({ error: { code: codeOf(status), message, status } });
}

/** The models the fake lists on GET /v1beta/models. */
export const GEMINI_MODELS = ['gemini-2.5-flash', 'gemini-2.0-flash'];

export function geminiModelList(): unknown {
  return { models: GEMINI_MODELS.map((m) => ({ name: `models/${m}`, displayName: m })) };
}
