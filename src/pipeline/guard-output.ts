/**
 * Output guardrails, a stage of their own: on the way back out of dispatch they read the reply
 * the attempt left. A request they apply to gets its reply in canonical form (attempt/http.ts):
 * a complete response is checked whole and goes out as the upstream's own bytes when nothing
 * changed it; a stream is checked as it flows (webhooks: the whole stream first) and re-primed,
 * so a block on its first event is still a plain HTTP error.
 */

import type { ChatResponse, StreamEvent } from '../core/canonical.js';
import { foldStream } from '../core/fold-stream.js';
import { primeStream, rejectErrorFirst } from '../core/prime-stream.js';
import {
  checkOutput,
  guardrailBlockedError,
  guardStream,
  hasOutputWebhook,
  responseAsEvents,
  toRecordedHits,
} from '../guardrails/index.js';
import type { RoutedContext } from '../request/context.js';
import { routedStage, type Stage } from './compose.js';
import { guardrailsOf, scopeOf, withCallerSignal } from './guardrail-scope.js';

export const guardOutput: Stage = routedStage((ctx, next) => (ctx.outputGuarded ? guarded(ctx, next) : next()));

async function guarded(ctx: RoutedContext, next: () => Promise<void>): Promise<void> {
  await next();
  const reply = ctx.reply;
  if (!reply) return;
  if (reply.kind === 'response') {
    const checked = await guardResponse(ctx, reply.response);
    ctx.reply = checked === reply.response ? reply : { kind: 'response', response: checked };
  } else if (reply.kind === 'events') {
    ctx.reply = { kind: 'events', events: await primeStream(await guardEvents(ctx, reply.events), rejectErrorFirst) };
  }
}

/** Output rules over a stream of canonical events (webhooks: the whole stream is checked first). */
async function guardEvents(
  ctx: RoutedContext,
  events: AsyncIterable<StreamEvent>,
): Promise<AsyncIterable<StreamEvent>> {
  const rules = guardrailsOf(ctx.config);
  const scope = scopeOf(ctx);
  if (hasOutputWebhook(rules, scope)) {
    const checked = await guardResponse(ctx, await foldStream(events));
    return responseAsEvents(checked);
  }
  return guardStream(events, rules, scope, (hit) => ctx.guardrailHits.push(...toRecordedHits([hit], 'output')));
}

/** Output rules over a complete response; a block becomes the error naming the guardrail. */
async function guardResponse(ctx: RoutedContext, res: ChatResponse): Promise<ChatResponse> {
  const rules = guardrailsOf(ctx.config);
  const r = await withCallerSignal(ctx, rules, (signal) =>
    checkOutput(rules, scopeOf(ctx), res, signal ? { signal } : {}),
  );
  ctx.guardrailHits.push(...toRecordedHits(r.hits, 'output'));
  if (r.blockedBy !== undefined) throw guardrailBlockedError(r.blockedBy, 'output');
  return r.changed ? r.response : res;
}
