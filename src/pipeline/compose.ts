/**
 * The request pipeline: an onion of stages over one RequestContext.
 *
 *   correlation  → X-Correlation-ID fixed before anything can fail
 *   observe      → start clock            ↩ one log line after the response is written
 *   render       →                        ↩ write ctx.reply (JSON or SSE) or render the GatewayError
 *   authenticate → gateway key → principal (headers only: before any body byte is buffered)
 *   parse-body   → size limit, JSON.parse once
 *   authorise    → model id | alias → candidates; role check
 *   (byok, guardrails, budget join here)
 *   dispatch     → innermost: provider call; sets ctx.reply
 *
 * Stages run outermost first; the code after `await next()` runs on the way back out in reverse
 * order. A stage short-circuits by not calling next() or by throwing a GatewayError.
 */

import type { RequestContext } from './context.js';

export type Next = () => Promise<void>;
export type Stage = (ctx: RequestContext, next: Next) => Promise<void>;

export function compose(stages: readonly Stage[]): (ctx: RequestContext) => Promise<void> {
  return (ctx) => {
    let last = -1;
    const run = (i: number): Promise<void> => {
      if (i <= last) return Promise.reject(new Error('next() called twice'));
      last = i;
      const stage = stages[i];
      return stage ? stage(ctx, () => run(i + 1)) : Promise.resolve();
    };
    return run(0);
  };
}
