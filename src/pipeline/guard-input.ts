/**
 * Input guardrails: after authorise and before budgets (a blocked request costs nothing and
 * reaches no provider). They read the caller's body; a redaction replaces the body, its bytes and
 * its canonical view together. Also decides whether output rules apply (ctx.outputGuarded).
 */

import { type MemberOffsets, spliceTopLevel } from '../core/json-splice.js';
import { decodeEmbeddingsRequest } from '../formats/openai-embeddings/request-decode.js';
import {
  checkEmbeddingsInput,
  checkInput,
  guardrailBlockedError,
  selectGuardrails,
  toRecordedHits,
  type RequestBody,
} from '../guardrails/index.js';
import { embeddingsStage, type Next, routedStage, type Stage } from './compose.js';
import type { RoutedContext } from '../request/context.js';
import { guardrailsOf, scopeOf, withCallerSignal } from './guardrail-scope.js';

export const guardInput: Stage = routedStage((ctx, next) =>
  // No rules (the usual case): no async frame.
  guardrailsOf(ctx.config).length === 0 ? next() : guardedInput(ctx, next),
);

async function guardedInput(ctx: RoutedContext, next: Next): Promise<void> {
  const rules = guardrailsOf(ctx.config);
  const scope = scopeOf(ctx);
  const body = ctx.body as RequestBody;
  const deps = {
    config: ctx.config,
    // The body already passed its route's checks and redaction never touches max_tokens, so the
    // counting decoder (which only relaxes max_tokens) reads any rewritten body as the original was.
    decode: (b: RequestBody) => ctx.format.decodeRequest(b, { forCounting: true }),
  };
  const r = await withCallerSignal(ctx, rules, (signal) =>
    checkInput(rules, scope, { body, chat: ctx.chat }, signal ? { ...deps, signal } : deps),
  );
  ctx.guardrailHits.push(...toRecordedHits(r.hits, 'input'));
  if (r.blockedBy !== undefined) throw guardrailBlockedError(r.blockedBy, 'input');
  if (r.changed) {
    ctx.rawBody = withChangedMembers(ctx.rawBody, ctx.rawMembers, body, r.body);
    ctx.rawMembers = undefined;
    ctx.body = r.body;
    ctx.chat = r.chat;
  }
  ctx.outputGuarded = selectGuardrails(rules, 'output', scope).length > 0;
  await next();
}

/**
 * The same for an embeddings request, over its input texts. Only a redaction re-serialises
 * anything: `input`, spliced into the caller's bytes. Vectors are not text: no output rules.
 */
export const guardEmbeddingsInput: Stage = embeddingsStage(async (ctx, next) => {
  const rules = guardrailsOf(ctx.config);
  if (rules.length === 0) return next();
  const body = ctx.body as RequestBody;
  const deps = { config: ctx.config };
  const r = await withCallerSignal(ctx, rules, (signal) =>
    checkEmbeddingsInput(rules, scopeOf(ctx), body, signal ? { ...deps, signal } : deps),
  );
  ctx.guardrailHits.push(...toRecordedHits(r.hits, 'input'));
  if (r.blockedBy !== undefined) throw guardrailBlockedError(r.blockedBy, 'input');
  if (r.body !== body) {
    ctx.rawBody = withChangedMembers(ctx.rawBody, ctx.rawMembers, body, r.body);
    ctx.rawMembers = undefined;
    ctx.body = r.body;
    ctx.embeddings = decodeEmbeddingsRequest(r.body);
  }
  await next();
});

/**
 * The caller's bytes with the top-level members a guardrail rewrote replaced (the rest goes up
 * byte for byte, as in pass-through); the upstream of either format then gets the redacted body.
 */
function withChangedMembers(
  raw: Buffer,
  members: MemberOffsets | undefined,
  before: RequestBody,
  after: RequestBody,
): Buffer {
  const replace: Record<string, string> = {};
  for (const k of Object.keys(after)) if (after[k] !== before[k]) replace[k] = JSON.stringify(after[k]);
  return spliceTopLevel(raw, replace, {}, members);
}
