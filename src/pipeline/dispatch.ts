/**
 * Innermost stage: hands the request to the routing loop (routing/route-loop.ts) with this
 * request's candidates, policy and credential plan, and one attempt per candidate (attempt/).
 * It records what served the request and bills a stream cut before its usage arrived.
 */

import { attemptEmbeddingsHttp, attemptMockEmbeddings } from '../attempt/embeddings.js';
import { attemptHttp } from '../attempt/http.js';
import { attemptMock } from '../attempt/mock.js';
import { cutStreamUsage } from '../budget/cut-stream-usage.js';
import { GatewayError } from '../core/errors.js';
import type { Reply } from '../core/reply.js';
import type { HttpProviderKind } from '../providers/types.js';
import { HTTP_PROVIDERS } from '../providers/registry.js';
import type { AuthorisedContext, RoutedContext } from '../request/context.js';
import { type Credential, CredentialPlan } from '../routing/byok.js';
import type { Candidate } from '../routing/resolve-model.js';
import { routeRequest, type StreamOutcome } from '../routing/route-loop.js';
import { embeddingsStage, routedStage, type Stage } from './compose.js';

export const dispatch: Stage = routedStage((ctx) =>
  route(
    ctx,
    (c, cred) => attempt(ctx, c, cred),
    (c, outcome) => {
      if (outcome !== 'completed') ctx.usage = cutStreamUsage(ctx.usage, ctx.relayed, ctx.chat, c.model);
    },
  ),
);

/** POST /v1/embeddings: the same routing loop, with an embeddings attempt per candidate. */
export const dispatchEmbeddings: Stage = embeddingsStage((ctx) =>
  route(ctx, (c, cred) =>
    c.provider.api === 'mock' ? attemptMockEmbeddings(ctx, c) : attemptEmbeddingsHttp(ctx, c, httpKind(c), cred.apiKey),
  ),
);

/** Sets ctx.reply and, on every outcome, `x-gateway-attempts`: over the loop's promise, no async frame. */
function route(
  ctx: AuthorisedContext,
  run: (c: Candidate, cred: Credential) => Promise<Reply>,
  onStreamEnd?: (c: Candidate, outcome: StreamOutcome) => void,
): Promise<void> {
  const resolution = ctx.resolution;
  const isAlias = resolution.kind === 'alias';
  const noteAttempts = () => {
    ctx.responseHeaders['x-gateway-attempts'] = String(ctx.attempts);
  };
  let routed: Promise<Reply>;
  try {
    routed = routeRequest({
      id: resolution.id,
      isAlias,
      candidates: resolution.candidates,
      policy: isAlias ? resolution.alias.routing : ctx.config.routing,
      breakers: ctx.runtime.breakers,
      plan: CredentialPlan.forRequest(
        ctx.req.headers,
        resolution.candidates,
        isAlias ? resolution.alias.byokFallback : 'same_provider',
      ),
      signal: ctx.signal,
      tally: ctx,
      attempt: run,
      onServed: (c, cred) => {
        ctx.served = c;
        ctx.byok = cred.byok;
        ctx.responseHeaders['x-gateway-model'] = c.model.id;
        ctx.responseHeaders['x-gateway-fallback'] = String(c.fallback);
      },
      onStreamEnd,
      onDone: (fn) => ctx.onDone.push(fn),
    });
  } catch (err) {
    noteAttempts();
    return Promise.reject(err);
  }
  return routed.then(
    (reply) => {
      noteAttempts();
      ctx.reply = reply;
    },
    (err: unknown) => {
      noteAttempts();
      throw err;
    },
  );
}

function attempt(ctx: RoutedContext, c: Candidate, cred: Credential): Promise<Reply> {
  if (c.provider.api === 'mock') return attemptMock(ctx, c);
  return attemptHttp(ctx, c, httpKind(c), cred.apiKey);
}

function httpKind(c: Candidate): HttpProviderKind {
  const kind = HTTP_PROVIDERS[c.provider.api];
  if (!kind) {
    throw new GatewayError(
      'no_available_provider',
      `Provider kind "${c.provider.api}" is not supported by this version.`,
    );
  }
  return kind;
}
