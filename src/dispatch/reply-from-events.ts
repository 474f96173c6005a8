import type { ChatResponse, StreamEvent, Usage } from '../core/canonical.js';
import { foldStream } from '../core/fold-stream.js';
import type { Reply, RequestContext } from '../pipeline/context.js';
import { primeStream } from './prime.js';
import { guardOutputEvents, guardOutputResponse } from '../pipeline/guard.js';
import { withoutSecrets } from '../pipeline/request-secrets.js';

/** Merge usage seen so far with a newer partial report (later fields win, field by field). */
export function mergeUsage(prev: Usage | undefined, next: Partial<Usage>): Usage {
  const out: Usage = { inputTokens: 0, outputTokens: 0, ...prev };
  for (const [k, v] of Object.entries(next) as Array<[keyof Usage, number | undefined]>)
    if (v !== undefined) out[k] = v;
  return out;
}

/**
 * Records usage and generated text as events pass (so they are known even when the caller
 * disconnects early, and a cut stream is billed for what it relayed); redacts upstream errors;
 * names the model the caller asked for (the response `model` rule, response-model.ts).
 */
async function* tapUsage(
  ctx: RequestContext,
  events: AsyncIterable<StreamEvent>,
  modelName: string,
): AsyncGenerator<StreamEvent> {
  const relayed = { output: [] as string[], complete: false };
  ctx.relayed = relayed;
  for await (const ev of events) {
    if (ev.type === 'message_start') {
      if (ev.usage) ctx.usage = mergeUsage(ctx.usage, ev.usage);
      yield { ...ev, model: modelName };
      continue;
    } else if (ev.type === 'block_delta') {
      const d = ev.delta;
      if (d.kind === 'text' || d.kind === 'reasoning') relayed.output.push(d.text);
      else if (d.kind === 'tool_arguments') relayed.output.push(d.json);
    } else if (ev.type === 'message_stop') {
      ctx.usage = mergeUsage(ctx.usage, ev.usage);
      relayed.complete = true;
    } else if (ev.type === 'error') {
      // The caller's encoder writes it as an in-stream error: secrets are removed here, by value.
      yield { type: 'error', error: withoutSecrets(ctx, ev.error) };
      continue;
    }
    yield ev;
  }
}

/** An upstream whose first event is an error has not started answering: fail before committing. */
function rejectErrorFirst(ev: StreamEvent): void {
  if (ev.type === 'error') throw ev.error;
}

/**
 * Canonical events (from a translated upstream or the mock) → a reply in the caller's format.
 * `modelName`: the name the response carries (the one the caller sent, response-model.ts).
 */
export async function replyFromEvents(
  ctx: RequestContext,
  events: AsyncIterable<StreamEvent>,
  modelName: string,
): Promise<Reply> {
  const chat = ctx.chat!;
  if (chat.stream) {
    // Usage is tapped before the guard, so a stream a guardrail ends still counts what it used.
    const guarded = await guardOutputEvents(ctx, tapUsage(ctx, events, modelName));
    const primed = await primeStream(guarded, rejectErrorFirst);
    return { kind: 'sse', chunks: ctx.format.encodeStream(primed, chat) };
  }
  return replyFromResponse(ctx, await foldStream(tapUsage(ctx, events, modelName)), modelName);
}

export async function replyFromResponse(ctx: RequestContext, res: ChatResponse, modelName: string): Promise<Reply> {
  ctx.usage = res.usage;
  res = { ...res, model: modelName };
  const checked = await guardOutputResponse(ctx, res);
  return { kind: 'json', status: 200, body: ctx.format.encodeResponse(checked) as object };
}
