/**
 * Innermost stage: the routing loop. Candidates in the resolution's order (an alias's targets in
 * its strategy's order, then its fallbacks); for each, attempts with retries while the failure
 * is in `retry_on`, moving on while it is in `fallback_on`, within `max_attempts`. Targets whose
 * circuit is open are skipped. A stream can still move on until its first event reaches the
 * caller (attempts resolve only once the stream is primed), never after.
 */

import type { RoutingPolicy } from '../config/types.js';
import { sleepUnlessCancelled } from '../core/cancel.js';
import { GatewayError, toGatewayError, withMessage } from '../core/errors.js';
import { attemptHttp } from '../dispatch/attempt-http.js';
import { attemptMock } from '../dispatch/attempt-mock.js';
import { HTTP_PROVIDERS } from '../providers/registry.js';
import { billCutStream } from '../budget/cut-stream-usage.js';
import { backoffMs } from '../routing/backoff.js';
import { callerProviderKey, CredentialPlan, type Credential } from '../routing/byok.js';
import { classifyFailure, failureMatches, isProviderFault, type Failure } from '../routing/failure.js';
import type { AttemptRecord } from '../observe/record.js';
import type { Candidate } from '../routing/resolve-model.js';
import type { Stage } from './compose.js';
import type { Reply, RequestContext } from './context.js';

export const dispatch: Stage = async (ctx) => {
  const resolution = ctx.resolution!;
  const policy: RoutingPolicy = resolution.kind === 'alias' ? resolution.alias.routing : ctx.config.routing;
  const callerKey = callerProviderKey(ctx.req.headers);
  CredentialPlan.check(resolution.candidates, callerKey);
  const plan = new CredentialPlan(
    callerKey,
    resolution.kind === 'alias' ? resolution.alias.byokFallback : 'same_provider',
  );
  const breakers = ctx.runtime.breakers;
  const skipped: string[] = [];
  let cooling = 0;
  let last: GatewayError | undefined;

  try {
    for (const c of resolution.candidates) {
      if (ctx.attempts >= policy.maxAttempts) break;
      const cred = plan.credentialFor(c);
      if ('skip' in cred) {
        skipped.push(cred.skip);
        continue;
      }
      const credentialKey = `credential:${c.provider.id}`;
      const gates = [breakers.admit(c.model.id), cred.byok ? 'yes' : breakers.admit(credentialKey)];
      if (gates.includes('no')) {
        for (const [i, g] of gates.entries()) if (g === 'probe') breakers.release(i === 0 ? c.model.id : credentialKey);
        cooling = Math.max(cooling, breakers.retryInMs(c.model.id), cred.byok ? 0 : breakers.retryInMs(credentialKey));
        skipped.push(`"${c.model.id}" is cooling down after repeated failures`);
        continue;
      }
      const probing = gates.includes('probe');
      plan.used(c, cred);
      for (let retry = 0; ; retry++) {
        ctx.attempts += 1;
        const record: AttemptRecord = {
          provider: c.provider.id,
          model: c.model.id,
          startMs: Date.now(),
          outcome: 'pending',
          byok: cred.byok,
        };
        ctx.attemptLog.push(record);
        try {
          const reply = await attempt(ctx, c, cred);
          record.firstByteMs = Date.now();
          // The credential worked; the target's health is known once the reply is complete.
          if (!cred.byok) breakers.success(credentialKey);
          served(ctx, c, cred);
          if (reply.kind === 'sse') {
            // Safety net: a stream never iterated (caller gone first) must not leave a probe open.
            ctx.onDone.push(async () => breakers.release(c.model.id));
            ctx.reply = {
              ...reply,
              chunks: reportStreamOutcome(ctx, reply.chunks, (o) => {
                record.endMs = Date.now();
                record.outcome = o === 'completed' ? 'ok' : o;
                record.status = 200;
                if (o === 'completed') breakers.success(c.model.id);
                else if (o === 'failed') breakers.failure(c.model.id, c.provider.cooldown);
                else breakers.release(c.model.id);
                if (o !== 'completed') billCutStream(ctx, c);
              }),
            };
          } else {
            record.endMs = Date.now();
            record.outcome = 'ok';
            record.status = reply.status;
            breakers.success(c.model.id);
            ctx.reply = reply;
          }
          return;
        } catch (e) {
          const err = toGatewayError(e);
          const failure = classifyFailure(err);
          record.endMs = Date.now();
          record.outcome = ctx.signal.aborted ? 'abandoned' : 'failed';
          record.status = err.upstream?.status ?? err.status;
          record.errorCode = err.code;
          // Every circuit this attempt was let through settles below (a probe must not stay open).
          const release = () => {
            breakers.release(c.model.id);
            if (!cred.byok) breakers.release(credentialKey);
          };
          if (ctx.signal.aborted || !failure) {
            release();
            throw err; // the caller went away, or the error is the caller's or the gateway's: never sent elsewhere
          }
          last = err;
          if (failure.cls === 'auth') {
            breakers.release(c.model.id);
            if (cred.byok)
              throw new GatewayError(
                'provider_key_rejected',
                `Provider "${c.provider.id}" rejected the key sent in x-provider-api-key (HTTP ${failure.status}).`,
              );
            breakers.trip(credentialKey, c.provider.cooldown);
          } else if (cred.byok && failure.status === 429) {
            // The caller's own account is rate-limited: says nothing about the shared model.
            breakers.release(c.model.id);
          } else if (isProviderFault(failure)) {
            breakers.failure(c.model.id, c.provider.cooldown);
            if (!cred.byok) breakers.release(credentialKey);
          } else {
            // The provider answered (e.g. 400): it and the credential are fine.
            breakers.success(c.model.id);
            if (!cred.byok) breakers.success(credentialKey);
          }
          const wait = probing ? undefined : retryDelay(policy, failure, retry);
          if (wait !== undefined && ctx.attempts < policy.maxAttempts) {
            ctx.backoffMs += wait;
            await sleepUnlessCancelled(wait, ctx.signal);
            if (ctx.signal.aborted) throw err;
            continue;
          }
          if (!failureMatches(policy.fallbackOn, failure)) {
            // The caller's own mistakes come back as they are; provider failures name the alias.
            throw isProviderFault(failure) || failure.cls === 'auth'
              ? exhausted(resolution.id, resolution.kind === 'alias', ctx.attempts, err, skipped, 0)
              : err;
          }
          break;
        }
      }
    }
  } finally {
    ctx.responseHeaders['x-gateway-attempts'] = String(ctx.attempts);
  }
  throw exhausted(resolution.id, resolution.kind === 'alias', ctx.attempts, last, skipped, cooling);
};

/** Delay before retrying the same target, or undefined when it is not to be retried. */
function retryDelay(policy: RoutingPolicy, f: Failure, retriesDone: number): number | undefined {
  if (retriesDone >= policy.retry.maxRetries || !failureMatches(policy.retryOn, f)) return undefined;
  if (f.retryAfterMs !== undefined) return f.retryAfterMs <= policy.retry.maxRetryAfterMs ? f.retryAfterMs : undefined;
  return backoffMs(retriesDone + 1, policy.retry);
}

function served(ctx: RequestContext, c: Candidate, cred: Credential): void {
  ctx.served = c;
  ctx.byok = cred.byok;
  ctx.responseHeaders['x-gateway-model'] = c.model.id;
  ctx.responseHeaders['x-gateway-fallback'] = String(c.fallback);
}

/** The one error a caller sees when nothing served the request. */
function exhausted(
  id: string,
  isAlias: boolean,
  attempts: number,
  last: GatewayError | undefined,
  skipped: string[],
  coolingMs: number,
): GatewayError {
  const what = isAlias ? `alias "${id}"` : `model "${id}"`;
  if (!last) {
    const reasons = [...new Set(skipped)].join('; ');
    return new GatewayError(
      'no_available_provider',
      `No provider is available for ${what}${reasons ? ` (${reasons})` : ''}.`,
      {
        headers: coolingMs > 0 ? { 'retry-after': String(Math.ceil(coolingMs / 1000)) } : undefined,
      },
    );
  }
  const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  return withMessage(last, `${what} could not be served (${tries}). Last failure: ${last.message}`);
}

export function attempt(ctx: RequestContext, c: Candidate, cred: Credential): Promise<Reply> {
  if (c.provider.api === 'mock') return attemptMock(ctx, c);
  const kind = HTTP_PROVIDERS[c.provider.api];
  if (!kind)
    throw new GatewayError(
      'no_available_provider',
      `Provider kind "${c.provider.api}" is not supported by this version.`,
    );
  return attemptHttp(ctx, c, kind, cred.apiKey);
}

/**
 * A committed stream counts for its target's circuit when it ends: a success only once it has
 * completed, a failure when it breaks later. A caller leaving early (including the cancelled
 * upstream read that follows) counts as neither: one user pressing Esc must not cool a model
 * down for everyone.
 */
async function* reportStreamOutcome<T>(
  ctx: RequestContext,
  chunks: AsyncIterable<T>,
  outcome: (o: 'completed' | 'failed' | 'abandoned') => void,
): AsyncGenerator<T> {
  let settled = false;
  try {
    yield* chunks;
    settled = true;
    outcome('completed');
  } catch (err) {
    settled = true;
    const left = ctx.signal.aborted || (err instanceof GatewayError && err.code === 'client_disconnected');
    outcome(left ? 'abandoned' : 'failed');
    throw err;
  } finally {
    if (!settled) outcome('abandoned');
  }
}
