import type { StreamEvent } from '../core/canonical.js';
import { foldStream } from '../core/fold-stream.js';
import type { Reply, RequestContext } from '../pipeline/context.js';
import { primeStream } from './prime.js';

/** Records usage from the terminal event as it passes (also when the caller disconnects early). */
async function* tapUsage(ctx: RequestContext, events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent> {
  for await (const ev of events) {
    if (ev.type === 'message_start' && ev.usage) ctx.usage = { inputTokens: 0, outputTokens: 0, ...ev.usage };
    else if (ev.type === 'message_stop') ctx.usage = ev.usage;
    yield ev;
  }
}

/** Canonical events (from a translated upstream or the mock) → a reply in the caller's format. */
export async function replyFromEvents(ctx: RequestContext, events: AsyncIterable<StreamEvent>): Promise<Reply> {
  const chat = ctx.chat!;
  if (chat.stream) {
    const chunks = await primeStream(ctx.format.encodeStream(tapUsage(ctx, events), chat));
    return { kind: 'sse', chunks };
  }
  const res = await foldStream(tapUsage(ctx, events));
  return { kind: 'json', status: 200, body: ctx.format.encodeResponse(res) as object };
}
