/**
 * One embeddings attempt. An HTTP provider (OpenAI format) gets the caller's bytes with only
 * `model` spliced in, as chat pass-through does, and its answer goes back as it came with `model`
 * renamed to the name the caller sent (formats/response-model.ts: an OpenAI embeddings body names
 * `model` once, after `data`, whose items have no `model`); usage is its `prompt_tokens`. The
 * mock makes its vectors in-process.
 */

import { sleepUnlessCancelled, throwIfCancelled } from '../core/cancel.js';
import { GatewayError } from '../core/errors.js';
import { spliceTopLevel } from '../core/json-splice.js';
import type { Reply } from '../core/reply.js';
import { embeddingsBody, usageFromEmbeddingsBody } from '../formats/openai-embeddings/response.js';
import { UPSTREAM_FORMATS } from '../formats/registry.js';
import { relayAnswer } from '../formats/answer-body.js';
import { mockEmbeddings } from '../providers/mock-embeddings.js';
import type { HttpProviderKind } from '../providers/types.js';
import { callerModel, type EmbeddingsContext } from '../request/context.js';
import type { Candidate } from '../routing/resolve-model.js';
import { noteUpstreamRequestId, readAnswer, sendUpstream, upstreamErrorOf } from './upstream-request.js';

/** `apiKey`: the provider key for this attempt (the configured one, or the caller's own). */
export async function attemptEmbeddingsHttp(
  ctx: EmbeddingsContext,
  c: Candidate,
  kind: HttpProviderKind,
  apiKey: string | undefined,
): Promise<Reply> {
  const format = UPSTREAM_FORMATS[kind.speaks];
  // check-config allows embedding models only on provider kinds that have the endpoint.
  if (!kind.embeddingsPath || !format)
    throw new GatewayError('internal_error', `Provider kind "${kind.api}" has no embeddings endpoint.`);
  const request = spliceTopLevel(ctx.rawBody, { model: JSON.stringify(c.model.upstreamName) }, {}, ctx.rawMembers);
  const up = await sendUpstream(ctx, c, kind, {
    path: kind.embeddingsPath,
    body: request,
    accept: 'application/json',
    apiKey,
  });
  noteUpstreamRequestId(ctx, up);
  if (up.status >= 400) throw await upstreamErrorOf(up, c, format, apiKey);
  const { body, parsed } = relayAnswer(await readAnswer(up, c), callerModel(ctx), c.provider.id);
  ctx.usage = usageFromEmbeddingsBody(parsed);
  return { kind: 'json', status: up.status, body };
}

/** The mock: deterministic vectors (providers/mock-embeddings.ts), after its `latency_ms`. */
export async function attemptMockEmbeddings(ctx: EmbeddingsContext, c: Candidate): Promise<Reply> {
  const latency = c.provider.mock?.latencyMs ?? 0;
  if (latency > 0) await sleepUnlessCancelled(latency, ctx.signal);
  throwIfCancelled(ctx.signal);
  const req = ctx.embeddings;
  const { vectors, promptTokens } = mockEmbeddings(req, c.model);
  ctx.usage = { inputTokens: promptTokens, outputTokens: 0 };
  return {
    kind: 'json',
    status: 200,
    body: embeddingsBody(vectors, callerModel(ctx), promptTokens, req.encodingFormat),
  };
}
