import { GatewayError } from '../core/errors.js';
import type { Reply } from '../core/reply.js';
import { replyFromEvents } from '../formats/canonical-reply.js';
import { mockEvents } from '../providers/mock.js';
import { callerModel, type RoutedContext } from '../request/context.js';
import { withoutSecrets } from '../request/secrets.js';
import type { Candidate } from '../routing/resolve-model.js';

/** One attempt against the built-in mock provider: its canonical events become the reply. */
export function attemptMock(ctx: RoutedContext, c: Candidate): Promise<Reply> {
  const chat = ctx.chat;
  // Messages, roles or parts without a canonical form would be silently left out of the echo:
  // refused by name, as translation refuses them.
  const dropped = chat.unmapped.find((f) => f.startsWith('messages['));
  if (dropped !== undefined) {
    return Promise.reject(
      new GatewayError('invalid_request', `${dropped} is not supported by the mock provider.`, { param: dropped }),
    );
  }
  return replyFromEvents(mockEvents(chat, c.model, c.provider.mock, ctx.signal), {
    modelName: callerModel(ctx),
    redact: (err) => withoutSecrets(ctx, err),
    sink: ctx,
    chat,
  });
}
