import { GatewayError } from '../core/errors.js';
import { mockEvents } from '../providers/mock.js';
import type { Candidate } from '../routing/resolve-model.js';
import type { Reply, RequestContext } from '../pipeline/context.js';
import { callerModel } from './response-model.js';
import { replyFromEvents } from './reply-from-events.js';

export function attemptMock(ctx: RequestContext, c: Candidate): Promise<Reply> {
  // Messages, roles or parts without a canonical form would be silently left out of the echo:
  // refused by name, as translation refuses them.
  const dropped = ctx.chat!.unmapped.find((f) => f.startsWith('messages['));
  if (dropped !== undefined) {
    return Promise.reject(
      new GatewayError('invalid_request', `${dropped} is not supported by the mock provider.`, { param: dropped }),
    );
  }
  return replyFromEvents(ctx, mockEvents(ctx.chat!, c.model, c.provider.mock, ctx.signal), callerModel(ctx));
}
