/**
 * The request pipeline: an onion of stages over one RequestContext. A model request
 * (server/routes.ts):
 *
 *   observe      → start clock            ↩ run onDone tasks, one record: log line, metrics, trace
 *   render       →                        ↩ write ctx.reply (bytes, or canonical encoded in the
 *                                           caller's format) or render the GatewayError
 *   authenticate → gateway key → principal (headers only: before any body byte is buffered)
 *   parseBody    → size limit, strict JSON parse once, canonical view
 *   authorise    → model id | alias → candidates; role check
 *   guardInput   → input guardrails (block / redact)
 *   limits       → reserve budgets and rate limits ↩ settle the real cost
 *   guardOutput  →                        ↩ output guardrails over a canonical reply
 *   dispatch     → innermost: the routing loop (routing/route-loop.ts); sets ctx.reply
 *
 * Stages run outermost first; the code after `await next()` runs on the way back out in reverse
 * order. A stage short-circuits by not calling next() or by throwing a GatewayError. A stage with
 * nothing to do on the way out returns next() from a plain function (no async frame per request).
 */

import {
  asEmbeddings,
  asRouted,
  type EmbeddingsContext,
  type RequestContext,
  type RoutedContext,
} from '../request/context.js';

export type Next = () => Promise<void>;
export type Stage = (ctx: RequestContext, next: Next) => Promise<void>;

export function compose(stages: readonly Stage[]): (ctx: RequestContext) => Promise<void> {
  return (ctx) => {
    let last = -1;
    const run = (i: number): Promise<void> => {
      if (i <= last) return Promise.reject(new Error('next() called twice'));
      last = i;
      const stage = stages[i];
      if (!stage) return Promise.resolve();
      // Stages with nothing to do on the way out are plain functions returning next(): one throw
      // from them is a rejection like any other stage's.
      try {
        return stage(ctx, () => run(i + 1));
      } catch (err) {
        return Promise.reject(err);
      }
    };
    return run(0);
  };
}

/** A stage that runs after `authorise`: it sees the routed request's fields as set. */
export function routedStage(run: (ctx: RoutedContext, next: Next) => Promise<void>): Stage {
  return (ctx, next) => run(asRouted(ctx), next);
}

/** The same for an embeddings request. */
export function embeddingsStage(run: (ctx: EmbeddingsContext, next: Next) => Promise<void>): Stage {
  return (ctx, next) => run(asEmbeddings(ctx), next);
}
