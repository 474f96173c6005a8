/**
 * Budgets and rate limits around the provider call: reserve before (refusing with 429, no
 * upstream call, when a limit would be passed), settle after the response or stream has ended,
 * failed or been cut off. Settling is idempotent and also runs from `ctx.onDone`, so a reply
 * that is never written (the caller left first) still gives its reservation back.
 */

import { costNanoUsd, formatUsd, nanoToUsd } from '../budget/cost.js';
import {
  describeScope,
  planCountLimits,
  planLimits,
  settlementOps,
  unreservedOps,
  type Limiter,
  type LimitPlan,
} from '../budget/plan.js';
import { tokenIdCount } from '../core/embeddings.js';
import { GatewayError } from '../core/errors.js';
import { isStreamReply, wrapStream } from '../core/reply.js';
import { maxBilledOutputTokens } from '../formats/output-cap.js';
import { HTTP_PROVIDERS } from '../providers/registry.js';
import type { Candidate } from '../routing/resolve-model.js';
import type { CounterOp, ReserveResult } from '../state/store.js';
import { embeddingsStage, type Next, routedStage, type Stage } from './compose.js';
import type { AuthorisedContext, RequestContext } from '../request/context.js';

export const COST_HEADER = 'x-gateway-cost-usd';
/** A budget period ending within this long gets a `retry-after`. */
const SOON_MS = 3600_000;

export const limits: Stage = routedStage((ctx, next) =>
  limited(ctx, next, {
    // What each candidate is sent as its output limit, times the choices (thinking budgets included).
    outputTokens: (c) =>
      maxBilledOutputTokens(ctx.chat, ctx.format.id, HTTP_PROVIDERS[c.provider.api]?.speaks, c.model.maxOutputTokens),
  }),
);

/**
 * An embedding has no output: its input is reserved (at the input price), at least as many
 * tokens as the token ids it sends, and settled to the provider's `prompt_tokens`.
 */
export const embeddingsLimits: Stage = embeddingsStage((ctx, next) =>
  limited(ctx, next, { outputTokens: () => 0, minInputTokens: tokenIdCount(ctx.embeddings) }),
);

interface Estimate {
  outputTokens: (c: Candidate) => number;
  minInputTokens?: number;
}

function limited(ctx: AuthorisedContext, next: Next, estimate: Estimate): Promise<void> {
  const resolution = ctx.resolution;
  const now = Date.now();
  const plan = planLimits({
    config: ctx.config,
    principal: ctx.principal,
    modelId: resolution.id,
    candidates: resolution.candidates,
    bodyBytes: ctx.rawBody.length,
    outputTokens: estimate.outputTokens,
    minInputTokens: estimate.minInputTokens,
    now,
  });
  // Nothing limits this request: it only announces its cost (no async frame for the usual case).
  if (!plan) return next().then(() => announceCost(ctx, 0));
  return limitedBy(ctx, next, plan, now);
}

async function limitedBy(ctx: AuthorisedContext, next: Next, plan: LimitPlan, now: number): Promise<void> {
  const reserved = await reserve(ctx, plan.ops);
  if (reserved && !reserved.ok)
    throw refusal(plan.limiters[reserved.refused!], reserved.values[reserved.refused!], plan, now);
  if (reserved) {
    rateLimitHeaders(ctx, plan, reserved.values);
    warnBudgets(ctx, plan, reserved.values);
  }

  let settled = false;
  const settle = async (): Promise<void> => {
    if (settled) return;
    settled = true;
    const actual = finalCost(ctx, plan.estimateInputTokens);
    // Without a reservation (fail_open while the store was down) the full amounts are recorded.
    const ops = reserved ? settlementOps(plan, actual, ctx.usage) : unreservedOps(plan, actual, ctx.usage);
    await ctx.runtime.reconcile.add(ops);
  };
  // Recorded once the response has been written (observe runs onDone), so the store's round
  // trip is not between the provider's answer and the caller — except with an in-flight cap,
  // whose slot must be free before the caller can send its next request.
  ctx.onDone.push(settle);
  const holdsSlot = hasConcurrent(plan.limiters);

  try {
    await next();
  } catch (err) {
    if (holdsSlot) await settle();
    throw err;
  }
  if (holdsSlot && !isStreamReply(ctx.reply)) await settle();
  announceCost(ctx, plan.estimateInputTokens, holdsSlot ? settle : undefined);
}

function hasConcurrent(limiters: readonly Limiter[]): boolean {
  for (const l of limiters) if (l.kind === 'concurrent') return true;
  return false;
}

/**
 * count_tokens: request rates and concurrency only, in counters of their own (budget/plan.ts,
 * planCountLimits). The slot is given back before the reply is written.
 */
export const countTokensLimits: Stage = routedStage(async (ctx, next) => {
  const plan = planCountLimits({
    config: ctx.config,
    principal: ctx.principal,
    modelId: ctx.resolution.id,
    now: Date.now(),
  });
  if (!plan) return next();
  const reserved = await reserve(ctx, plan.ops);
  if (reserved && !reserved.ok)
    throw refusal(plan.limiters[reserved.refused!], reserved.values[reserved.refused!], plan, Date.now());
  try {
    await next();
  } finally {
    await ctx.runtime.reconcile.add(reserved ? settlementOps(plan, 0, undefined) : unreservedOps(plan, 0, undefined));
  }
});

/** The request's final cost, from what the provider reported (computed once, locally). */
function finalCost(ctx: RequestContext, estimateInputTokens: number): number {
  if (ctx.costNano === undefined) {
    // A stream cut before the provider reported usage (OpenAI reports it last) still had its
    // prompt read: it counts at the estimated input tokens.
    if (!ctx.usage && isStreamReply(ctx.reply)) ctx.usage = { inputTokens: estimateInputTokens, outputTokens: 0 };
    ctx.costNano = costNanoUsd(ctx.usage, ctx.served?.model.price);
  }
  return ctx.costNano;
}

/**
 * The cost header on a JSON reply; on a stream, known at its end, an HTTP trailer (after
 * `settleFirst`, when the stream's end must free a slot before the caller sees it).
 */
function announceCost(ctx: RequestContext, estimateInputTokens: number, settleFirst?: () => Promise<void>): void {
  const reply = ctx.reply;
  if (!isStreamReply(reply)) {
    ctx.responseHeaders[COST_HEADER] = formatUsd(finalCost(ctx, estimateInputTokens));
    return;
  }
  ctx.responseHeaders.trailer = COST_HEADER;
  ctx.reply = wrapStream(reply, (items) => costAtEnd(ctx, items, estimateInputTokens, settleFirst));
}

async function* costAtEnd<T>(
  ctx: RequestContext,
  chunks: AsyncIterable<T>,
  estimateInputTokens: number,
  settleFirst?: () => Promise<void>,
): AsyncGenerator<T> {
  try {
    yield* chunks;
  } finally {
    if (settleFirst) await settleFirst();
    // Computed even when the caller has gone: what the stream relayed is still recorded.
    const usd = formatUsd(finalCost(ctx, estimateInputTokens));
    if (!ctx.res.destroyed) ctx.res.addTrailers({ [COST_HEADER]: usd });
  }
}

/** The store's answer, or undefined when it is down and the policy is fail_open. */
async function reserve(ctx: RequestContext, ops: CounterOp[]): Promise<ReserveResult | undefined> {
  try {
    return await ctx.runtime.store.reserve(ops);
  } catch (err) {
    if (ctx.config.state.onUnavailable === 'fail_open') {
      ctx.runtime.logger.log(
        'error',
        'state store unavailable: serving without budget and rate-limit checks (fail_open)',
        {
          correlation_id: ctx.id,
          error: (err as Error).message,
        },
      );
      return undefined;
    }
    throw new GatewayError(
      'state_store_unavailable',
      'Budgets and rate limits cannot be checked right now; the request was not sent. Try again shortly.',
      { cause: err },
    );
  }
}

function refusal(l: Limiter, value: number, plan: LimitPlan, now: number): GatewayError {
  const headers: Record<string, string> = { 'x-should-retry': 'false' };
  if (l.kind === 'budget') {
    const b = l.budget;
    const instance = plan.ops[plan.limiters.indexOf(l)].key.split(':')[2];
    const resets =
      l.resetMs !== undefined ? `resets at ${new Date(l.resetMs).toISOString()}` : 'never resets (period total)';
    if (l.resetMs !== undefined && l.resetMs - now <= SOON_MS)
      headers['retry-after'] = String(Math.max(1, Math.ceil((l.resetMs - now) / 1000)));
    headers['x-gateway-limit'] = `budget=${b.id}`;
    return new GatewayError(
      'budget_exceeded',
      `Budget "${b.id}" (${describeScope(b.scope, instance)}, ${b.period}) would be exceeded: ` +
        `$${nanoToUsd(value).toFixed(6)} of $${b.limitUsd} used, ` +
        `this request may cost up to $${nanoToUsd(plan.estimateNano).toFixed(6)}; it ${resets}.`,
      { headers, param: `budget:${b.id}` },
    );
  }
  const what =
    (l.counting ? 'token-counting ' : '') +
    (l.kind === 'requests' ? 'requests per minute' : l.kind === 'tokens' ? 'tokens per minute' : 'requests in flight');
  const instance = plan.ops[plan.limiters.indexOf(l)].key.split(':')[2];
  headers['x-gateway-limit'] = `rate_limit=${l.limit.id}`;
  if (l.kind !== 'concurrent') {
    const wait = Math.max(1, Math.ceil((l.resetMs - now) / 1000));
    headers['retry-after'] = String(wait);
  } else headers['retry-after'] = '1';
  return new GatewayError(
    'rate_limit_exceeded',
    `Rate limit "${l.limit.id}" (${describeScope(l.limit.scope, instance)}): at most ${l.max} ${what}.`,
    {
      headers,
      param: `rate_limit:${l.limit.id}`,
    },
  );
}

/** The `x-ratelimit-*` header names of each kind, made once. */
const RATE_HEADERS = {
  requests: ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests'],
  tokens: ['x-ratelimit-limit-tokens', 'x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens'],
} as const;

/** OpenAI-style `x-ratelimit-*` headers from the tightest request and token limits. */
function rateLimitHeaders(ctx: RequestContext, plan: LimitPlan, values: number[]): void {
  const now = Date.now();
  tightestLimitHeaders(ctx.responseHeaders, plan.limiters, values, 'requests', now);
  tightestLimitHeaders(ctx.responseHeaders, plan.limiters, values, 'tokens', now);
}

/** The headers of the limit of this kind with the least left (the first of equals); none without one. */
function tightestLimitHeaders(
  headers: Record<string, string>,
  limiters: readonly Limiter[],
  values: number[],
  kind: 'requests' | 'tokens',
  now: number,
): void {
  let tightest: Extract<Limiter, { kind: 'requests' | 'tokens' }> | undefined;
  let remaining = 0;
  for (let i = 0; i < limiters.length; i++) {
    const l = limiters[i];
    if (l.kind !== kind) continue;
    const left = Math.max(0, l.max - values[i]);
    if (!tightest || left < remaining) {
      tightest = l;
      remaining = left;
    }
  }
  if (!tightest) return;
  const [limit, left, reset] = RATE_HEADERS[kind];
  headers[limit] = String(tightest.max);
  headers[left] = String(remaining);
  headers[reset] = `${Math.max(0, Math.ceil((tightest.resetMs - now) / 1000))}s`;
}

/** Warn-mode budgets never refuse: past their limit they log and add a header. */
function warnBudgets(ctx: RequestContext, plan: LimitPlan, values: number[]): void {
  let over: string[] | undefined;
  const { limiters } = plan;
  for (let i = 0; i < limiters.length; i++) {
    const l = limiters[i];
    if (l.kind === 'budget' && l.budget.mode === 'warn' && values[i] > l.budget.limitUsd * 1e9)
      (over ??= []).push(l.budget.id);
  }
  if (!over) return;
  ctx.responseHeaders['x-gateway-budget-warning'] = over.join(', ');
  ctx.runtime.logger.log('warn', 'budget over its limit (warn mode)', { correlation_id: ctx.id, budgets: over });
}
