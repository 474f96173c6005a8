/**
 * The routing loop: candidates in the resolution's order (an alias's targets in its strategy's
 * order, then its fallbacks); for each, attempts with retries while the failure is in `retry_on`,
 * moving on while it is in `fallback_on`, within `max_attempts`. Targets whose circuit (or whose
 * provider credential's circuit) is open are skipped. A stream can still move on until its first
 * event reaches the caller (an attempt resolves only once its stream is primed), never after.
 *
 * Plain inputs, no sockets: the attempt itself is a function, so the whole policy is unit-tested
 * with scripted outcomes (test/unit/routing/route-loop.test.ts).
 */

import type { RoutingPolicy } from '../config/types.js';
import { type CancelSignal, sleepUnlessCancelled } from '../core/cancel.js';
import { GatewayError, toGatewayError, withMessage } from '../core/errors.js';
import type { StreamEvent } from '../core/canonical.js';
import { isStreamReply, type Reply } from '../core/reply.js';
import type { AttemptRecord } from '../observe/record.js';
import { backoffMs } from './backoff.js';
import type { Credential, CredentialPlan } from './byok.js';
import type { Breakers } from './cooldown.js';
import { classifyFailure, type Failure, failureMatches, isProviderFault } from './failure.js';
import type { Candidate } from './resolve-model.js';

export type StreamOutcome = 'completed' | 'failed' | 'abandoned';

/** Where the loop counts and records attempts (the request context fits as is). */
export interface AttemptTally {
  attempts: number;
  backoffMs: number;
  attemptLog: AttemptRecord[];
}

export interface RouteLoopInput {
  /** The name the caller used (for the error when nothing served it). */
  id: string;
  isAlias: boolean;
  candidates: readonly Candidate[];
  policy: RoutingPolicy;
  breakers: Breakers;
  plan: CredentialPlan;
  /** The caller's cancel signal: its firing ends the loop (never a reason to move on). */
  signal: CancelSignal;
  tally: AttemptTally;
  /** One attempt; resolves once a stream's first event has arrived. */
  attempt(c: Candidate, cred: Credential): Promise<Reply>;
  /** An attempt produced the reply (before a stream has run). */
  onServed?(c: Candidate, cred: Credential): void;
  /** A served stream ended; `abandoned`: the caller left, or the stream was never read. */
  onStreamEnd?(c: Candidate, outcome: StreamOutcome): void;
  /** Registers cleanup to run once the response is done, read or not. */
  onDone?(fn: () => Promise<void>): void;
}

export async function routeRequest(input: RouteLoopInput): Promise<Reply> {
  const { candidates, policy, breakers, plan, signal, tally } = input;
  const skipped: string[] = [];
  let cooling = 0;
  let last: GatewayError | undefined;

  for (const c of candidates) {
    if (tally.attempts >= policy.maxAttempts) break;
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
      tally.attempts += 1;
      const record: AttemptRecord = {
        provider: c.provider.id,
        model: c.model.id,
        startMs: Date.now(),
        outcome: 'pending',
        byok: cred.byok,
      };
      tally.attemptLog.push(record);
      let reply: Reply;
      try {
        reply = await input.attempt(c, cred);
      } catch (e) {
        const err = toGatewayError(e);
        const failure = classifyFailure(err);
        record.endMs = Date.now();
        record.outcome = signal.aborted ? 'abandoned' : 'failed';
        record.status = err.upstream?.status ?? err.status;
        record.errorCode = err.code;
        if (signal.aborted || !failure) {
          // The caller went away, or the error is the caller's or the gateway's: never sent elsewhere.
          breakers.release(c.model.id);
          if (!cred.byok) breakers.release(credentialKey);
          throw err;
        }
        last = err;
        settleFailure(breakers, c, cred, credentialKey, failure);
        const wait = probing ? undefined : retryDelay(policy, failure, retry);
        if (wait !== undefined && tally.attempts < policy.maxAttempts) {
          tally.backoffMs += wait;
          await sleepUnlessCancelled(wait, signal);
          if (signal.aborted) throw err;
          continue;
        }
        if (!failureMatches(policy.fallbackOn, failure)) {
          // The caller's own mistakes come back as they are; provider failures name the alias.
          const named = isProviderFault(failure) || failure.cls === 'auth';
          throw named ? exhausted(input, tally.attempts, err, skipped, 0) : err;
        }
        break;
      }
      record.firstByteMs = Date.now();
      // The credential worked; the target's health is known once the reply is complete.
      if (!cred.byok) breakers.success(credentialKey);
      input.onServed?.(c, cred);
      return watchOutcome(input, c, record, reply);
    }
  }
  throw exhausted(input, tally.attempts, last, skipped, cooling);
}

/** A failed attempt's effect on the target's and the credential's circuits. */
function settleFailure(b: Breakers, c: Candidate, cred: Credential, credentialKey: string, f: Failure): void {
  if (f.cls === 'auth') {
    b.release(c.model.id);
    if (cred.byok) {
      throw new GatewayError(
        'provider_key_rejected',
        `Provider "${c.provider.id}" rejected the key sent in x-provider-api-key (HTTP ${f.status}).`,
      );
    }
    b.trip(credentialKey, c.provider.cooldown);
  } else if (cred.byok && f.status === 429) {
    // The caller's own account is rate-limited: says nothing about the shared model.
    b.release(c.model.id);
  } else if (isProviderFault(f)) {
    b.failure(c.model.id, c.provider.cooldown);
    if (!cred.byok) b.release(credentialKey);
  } else {
    // The provider answered (e.g. 400): it and the credential are fine.
    b.success(c.model.id);
    if (!cred.byok) b.success(credentialKey);
  }
}

/** A complete reply settles the target now; a stream settles it when it ends. */
function watchOutcome(input: RouteLoopInput, c: Candidate, record: AttemptRecord, reply: Reply): Reply {
  const { breakers } = input;
  const end = (o: StreamOutcome) => {
    record.endMs = Date.now();
    record.outcome = o === 'completed' ? 'ok' : o;
    record.status = 200;
    if (o === 'completed') breakers.success(c.model.id);
    else if (o === 'failed') breakers.failure(c.model.id, c.provider.cooldown);
    else breakers.release(c.model.id);
    input.onStreamEnd?.(c, o);
  };
  if (isStreamReply(reply)) {
    // Safety net: a stream never iterated (caller gone first) must not leave a probe open.
    input.onDone?.(async () => breakers.release(c.model.id));
    if (reply.kind === 'sse') return { ...reply, chunks: reportStreamOutcome(input.signal, reply.chunks, end) };
    // Canonical events are read by an encoder that stops at the stream's last event: that is its end.
    const last = (ev: StreamEvent) => ev.type === 'message_stop' || ev.type === 'error';
    return { ...reply, events: reportStreamOutcome(input.signal, reply.events, end, last) };
  }
  record.endMs = Date.now();
  record.outcome = 'ok';
  record.status = reply.kind === 'json' ? reply.status : 200;
  breakers.success(c.model.id);
  return reply;
}

/** Delay before retrying the same target, or undefined when it is not to be retried. */
function retryDelay(policy: RoutingPolicy, f: Failure, retriesDone: number): number | undefined {
  if (retriesDone >= policy.retry.maxRetries || !failureMatches(policy.retryOn, f)) return undefined;
  if (f.retryAfterMs !== undefined) return f.retryAfterMs <= policy.retry.maxRetryAfterMs ? f.retryAfterMs : undefined;
  return backoffMs(retriesDone + 1, policy.retry);
}

/** The one error a caller sees when nothing served the request. */
function exhausted(
  input: RouteLoopInput,
  attempts: number,
  last: GatewayError | undefined,
  skipped: string[],
  coolingMs: number,
): GatewayError {
  const what = input.isAlias ? `alias "${input.id}"` : `model "${input.id}"`;
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

/**
 * A committed stream counts for its target's circuit when it ends: a success only once it has
 * completed (its source ran out, or `isLast` saw its last item), a failure when it breaks later.
 * A caller leaving early (including the cancelled upstream read that follows) counts as neither:
 * one user pressing Esc must not cool a model down for everyone.
 */
async function* reportStreamOutcome<T>(
  signal: CancelSignal,
  items: AsyncIterable<T>,
  outcome: (o: StreamOutcome) => void,
  isLast?: (item: T) => boolean,
): AsyncGenerator<T> {
  let settled = false;
  try {
    for await (const item of items) {
      if (isLast?.(item)) {
        settled = true;
        outcome('completed');
      }
      yield item;
    }
    if (settled) return;
    settled = true;
    outcome('completed');
  } catch (err) {
    if (settled) throw err; // its last item had already arrived: the outcome is known
    settled = true;
    const left = signal.aborted || (err instanceof GatewayError && err.code === 'client_disconnected');
    outcome(left ? 'abandoned' : 'failed');
    throw err;
  } finally {
    if (!settled) outcome('abandoned');
  }
}
