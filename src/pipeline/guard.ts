/**
 * Guardrails in the pipeline. Input rules run here, after authorise and before budgets (a
 * blocked request costs nothing and reaches no provider); they read the caller's body, and a
 * redaction replaces the body, its bytes and its canonical view together. Output rules are applied where the reply
 * is made (dispatch/reply-from-events.ts): they need the canonical events, so a request they
 * apply to never takes the byte pass-through.
 */

import type { GatewayConfig } from '../config/types.js';
import type { ChatResponse, StreamEvent } from '../core/canonical.js';
import { foldStream } from '../core/fold-stream.js';
import { spliceTopLevel } from '../core/json-splice.js';
import {
  checkInput,
  checkOutput,
  compileGuardrails,
  guardrailBlockedError,
  guardStream,
  hasOutputWebhook,
  responseAsEvents,
  selectGuardrails,
  toRecordedHits,
  type CompiledGuardrail,
  type GuardrailScope,
  type RequestBody,
} from '../guardrails/index.js';
import type { Stage } from './compose.js';
import type { RequestContext } from './context.js';

const compiled = new WeakMap<GatewayConfig, CompiledGuardrail[]>();

/** Compiled once per config (a reload compiles the new one). */
export function guardrailsOf(config: GatewayConfig): CompiledGuardrail[] {
  let rules = compiled.get(config);
  if (!rules) {
    rules = compileGuardrails(config.guardrails);
    compiled.set(config, rules);
  }
  return rules;
}

function scopeOf(ctx: RequestContext): GuardrailScope {
  return {
    role: ctx.principal!.role,
    keyId: ctx.principal!.keyId,
    modelId: ctx.resolution!.id,
    reachableModelIds: ctx.resolution!.candidates.map((c) => c.model.id),
  };
}

/**
 * Webhook calls stop when the caller goes away: an AbortSignal tied to the request's cancel
 * signal, made only when a webhook rule exists (the common path allocates nothing).
 */
async function withCallerSignal<T>(
  ctx: RequestContext,
  rules: readonly CompiledGuardrail[],
  run: (signal?: AbortSignal) => Promise<T>,
): Promise<T> {
  if (!rules.some((r) => r.kind === 'webhook')) return run();
  const ac = new AbortController();
  const gone = () => ac.abort();
  if (ctx.signal.aborted) ac.abort();
  else ctx.signal.once('abort', gone);
  try {
    return await run(ac.signal);
  } finally {
    ctx.signal.off('abort', gone);
  }
}

export const guardInput: Stage = async (ctx, next) => {
  const rules = guardrailsOf(ctx.config);
  if (rules.length === 0) return next();
  const scope = scopeOf(ctx);
  const body = ctx.body as RequestBody;
  const deps = {
    config: ctx.config,
    // The body already passed its route's checks and redaction never touches max_tokens, so the
    // counting decoder (which only relaxes max_tokens) reads any rewritten body as the original was.
    decode: (b: RequestBody) => ctx.format.decodeRequest(b, { forCounting: true }),
  };
  const r = await withCallerSignal(ctx, rules, (signal) =>
    checkInput(rules, scope, { body, chat: ctx.chat! }, signal ? { ...deps, signal } : deps),
  );
  ctx.guardrailHits.push(...toRecordedHits(r.hits, 'input'));
  if (r.blockedBy !== undefined) throw guardrailBlockedError(r.blockedBy, 'input');
  if (r.changed) {
    ctx.rawBody = withChangedMembers(ctx.rawBody!, body, r.body);
    ctx.body = r.body;
    ctx.chat = r.chat;
  }
  ctx.outputGuarded = selectGuardrails(rules, 'output', scope).length > 0;
  await next();
};

/**
 * The caller's bytes with the top-level members a guardrail rewrote replaced (the rest goes up
 * byte for byte, as in pass-through); the upstream of either format then gets the redacted body.
 */
function withChangedMembers(raw: Buffer, before: RequestBody, after: RequestBody): Buffer {
  const replace: Record<string, string> = {};
  for (const k of Object.keys(after)) if (after[k] !== before[k]) replace[k] = JSON.stringify(after[k]);
  return spliceTopLevel(raw, replace);
}

/** Output rules over a stream of canonical events (webhooks: the whole stream is checked first). */
export async function guardOutputEvents(
  ctx: RequestContext,
  events: AsyncIterable<StreamEvent>,
): Promise<AsyncIterable<StreamEvent>> {
  if (!ctx.outputGuarded) return events;
  const rules = guardrailsOf(ctx.config);
  const scope = scopeOf(ctx);
  if (hasOutputWebhook(rules, scope)) {
    const checked = await guardOutputResponse(ctx, await foldStream(events));
    return responseAsEvents(checked);
  }
  return guardStream(events, rules, scope, (hit) => ctx.guardrailHits.push(...toRecordedHits([hit], 'output')));
}

/** Output rules over a complete response; a block becomes the error naming the guardrail. */
export async function guardOutputResponse(ctx: RequestContext, res: ChatResponse): Promise<ChatResponse> {
  if (!ctx.outputGuarded) return res;
  const rules = guardrailsOf(ctx.config);
  const r = await withCallerSignal(ctx, rules, (signal) =>
    checkOutput(rules, scopeOf(ctx), res, signal ? { signal } : {}),
  );
  ctx.guardrailHits.push(...toRecordedHits(r.hits, 'output'));
  if (r.blockedBy !== undefined) throw guardrailBlockedError(r.blockedBy, 'output');
  return r.response;
}
