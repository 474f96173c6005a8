import { GatewayError } from '../core/errors.js';
import { attemptHttp } from '../dispatch/attempt-http.js';
import { attemptMock } from '../dispatch/attempt-mock.js';
import { HTTP_PROVIDERS } from '../providers/registry.js';
import type { Candidate } from '../routing/resolve-model.js';
import type { Stage } from './compose.js';
import type { Reply, RequestContext } from './context.js';

/**
 * Innermost stage: send the request to the first available candidate. (Weighted choice,
 * retries and fallbacks across candidates are the routing policy's; this is the single attempt
 * they will loop over.)
 */
export const dispatch: Stage = async (ctx) => {
  const resolution = ctx.resolution!;
  const candidate = resolution.candidates.find((c) => c.provider.available);
  if (!candidate) {
    const reasons = [...new Set(resolution.candidates.map((c) => `provider "${c.provider.id}": ${c.provider.unavailableReason ?? 'unavailable'}`))];
    throw new GatewayError('no_available_provider', `No provider is available for "${resolution.id}" (${reasons.join('; ')}).`);
  }
  ctx.served = candidate;
  ctx.attempts += 1;
  ctx.responseHeaders['x-gateway-model'] = candidate.model.id;
  ctx.reply = await attempt(ctx, candidate);
};

export function attempt(ctx: RequestContext, c: Candidate): Promise<Reply> {
  if (c.provider.api === 'mock') return attemptMock(ctx, c);
  const kind = HTTP_PROVIDERS[c.provider.api];
  if (!kind) throw new GatewayError('no_available_provider', `Provider kind "${c.provider.api}" is not supported by this version.`);
  return attemptHttp(ctx, c, kind);
}
