import { mockEvents } from '../providers/mock.js';
import type { Candidate } from '../routing/resolve-model.js';
import type { Reply, RequestContext } from '../pipeline/context.js';
import { replyFromEvents } from './reply-from-events.js';

export function attemptMock(ctx: RequestContext, c: Candidate): Promise<Reply> {
  return replyFromEvents(ctx, mockEvents(ctx.chat!, c.model, c.provider.mock, ctx.signal));
}
