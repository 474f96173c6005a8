/**
 * The one way a request goes to an HTTP provider (chat attempts and count_tokens alike): the
 * provider's configured headers, the caller headers its kind forwards, the correlation id and the
 * credential; and the one reader of an upstream error body, which names the provider and removes
 * the key used from anything it quotes.
 */

import type { Candidate } from '../routing/resolve-model.js';
import type { AuthorisedContext } from '../request/context.js';
import { HTTP_PROVIDERS } from '../providers/registry.js';
import { type HttpProviderKind, upstreamPath } from '../providers/types.js';
import type { UpstreamFormat } from '../formats/types.js';
import { upstreamFailure, type UpstreamResponse } from '../upstream/client.js';
import { upstreamHttpError } from '../upstream/http-error.js';
import type { GatewayError } from '../core/errors.js';
import { ENVELOPES } from '../formats/registry.js';
import { turnBatch } from '../core/turn-batch.js';

export interface UpstreamCall {
  /** One of the kind's paths (`chatPath`…); the kind places it for the model (`pathFor`). */
  path: string;
  body: Buffer;
  /** The media type asked for (SSE for a stream). */
  accept: string;
  /** The provider key for this call: the configured one, or the caller's own. */
  apiKey: string | undefined;
}

export function sendUpstream(
  ctx: AuthorisedContext,
  c: Candidate,
  kind: HttpProviderKind,
  call: UpstreamCall,
): Promise<UpstreamResponse> {
  const path = upstreamPath(kind, call.path, c.provider, c.model);
  const headers: Record<string, string> = {
    ...c.provider.headers,
    ...kind.forwardHeaders?.(ctx.req.headers, ctx.format.id, c.provider, call.path),
    'content-type': 'application/json',
    accept: call.accept,
    'x-correlation-id': ctx.id,
  };
  const url = `${c.provider.baseUrl}${path}`;
  const send = (auth: Record<string, string>) =>
    ctx.runtime.upstream.send({
      provider: c.provider,
      path,
      headers: Object.assign(headers, auth),
      body: call.body,
      timeouts: c.model.timeouts,
      signal: ctx.signal,
    });
  // A key is a header at once; only fetched credentials (tokens, signatures) wait.
  try {
    const auth = kind.authHeaders(call.apiKey, c.provider, { method: 'POST', url, headers, body: call.body });
    return auth instanceof Promise ? auth.then(send) : send(auth);
  } catch (err) {
    return Promise.reject(err);
  }
}

/** An upstream error answer (status ≥ 400) as the catalogue error; the body is read here. */
export async function upstreamErrorOf(
  up: UpstreamResponse,
  c: Candidate,
  format: UpstreamFormat,
  apiKey: string | undefined,
): Promise<GatewayError> {
  return upstreamErrorOfText(up, await up.body.text().catch(() => ''), c, format, apiKey);
}

/** As upstreamErrorOf, for an error body already read (`text`). */
export function upstreamErrorOfText(
  up: UpstreamResponse,
  text: string,
  c: Candidate,
  format: UpstreamFormat,
  apiKey: string | undefined,
): GatewayError {
  const kind = HTTP_PROVIDERS[c.provider.api];
  if (up.status === 401) kind?.credentialRejected?.(c.provider);
  let message: string | undefined;
  let bodyDelayMs: number | undefined;
  let status = up.status;
  // A kind whose API wraps the format (Bedrock's InvokeModel) answers errors in the envelope's shape.
  const errors = kind?.envelope ? ENVELOPES[kind.envelope] : format;
  try {
    const parsed: unknown = JSON.parse(text);
    message = kind?.errorMessage?.(parsed) ?? errors.errorMessage(parsed);
    bodyDelayMs = format.retryDelayMs?.(parsed);
    status = errors.errorStatus?.(status, parsed) ?? status;
  } catch {
    message = undefined;
  }
  const retryAfter = responseHeader(up, 'retry-after');
  const headerMs = responseHeader(up, 'retry-after-ms');
  // A delay the body gives (Gemini's RetryInfo) counts only when no header gives one.
  const bodyMs = retryAfter === undefined && bodyDelayMs !== undefined ? String(bodyDelayMs) : undefined;
  return upstreamHttpError(c.provider, status, text, message, {
    retryAfter,
    retryAfterMs: headerMs ?? bodyMs,
    secrets: [apiKey],
  });
}

/** The provider's request id, passed on as `x-upstream-request-id` (either format's header). */
export function noteUpstreamRequestId(ctx: AuthorisedContext, up: UpstreamResponse): void {
  const id = responseHeader(up, 'x-request-id') ?? responseHeader(up, 'request-id');
  if (id) ctx.responseHeaders['x-upstream-request-id'] = id;
}

/** Complete answers waiting for the end of the turn (readAnswer). */
const answers = turnBatch<{ raw: Buffer; resolve: (raw: Buffer) => void }>((a) => a.resolve(a.raw));

/**
 * A complete answer's bytes (formats/answer-body.ts reads them); a failed read names the provider.
 * Handed on at the end of the turn, with the other answers completed in it (core/turn-batch.ts):
 * the requests' remaining work (decoding, guards, encoding, writing the reply) then runs for all
 * of them in one stretch instead of between socket reads. Under load that cut the gateway's CPU
 * per request by a fifth to a quarter (bench/ab.mjs: pass-through 0.71× at c=128, the production
 * lane 0.73×, the Responses translation 0.81× at c=32).
 */
export function readAnswer(up: UpstreamResponse, c: Candidate): Promise<Buffer> {
  return up.body
    .bytes((err) => upstreamFailure(err, c.provider, c.model.timeouts))
    .then((raw) => new Promise<Buffer>((resolve) => answers.add({ raw, resolve })));
}

export function responseHeader(up: UpstreamResponse, name: string): string | undefined {
  const v = up.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
