/**
 * What both guardrail stages share: the config's compiled rules, the request's scope (role, key,
 * model) and the caller-bound abort signal for webhook calls.
 */

import type { GatewayConfig } from '../config/types.js';
import { compileGuardrails, type CompiledGuardrail, type GuardrailScope } from '../guardrails/index.js';
import type { AuthorisedContext } from '../request/context.js';

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

export function scopeOf(ctx: AuthorisedContext): GuardrailScope {
  return {
    role: ctx.principal.role,
    keyId: ctx.principal.keyId,
    modelId: ctx.resolution.id,
    reachableModelIds: ctx.resolution.candidates.map((c) => c.model.id),
  };
}

/**
 * Webhook calls stop when the caller goes away: an AbortSignal tied to the request's cancel
 * signal, made only when a webhook rule exists (the common path allocates nothing).
 */
export async function withCallerSignal<T>(
  ctx: AuthorisedContext,
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
