/**
 * The canonical side of a reply: events decoded from a translated upstream (or made by the mock)
 * become a reply still in canonical form, for the output guard to read and render to encode in
 * the caller's format. Usage and the generated text are recorded as events pass, so they are
 * known even when the caller leaves early (a cut stream is billed for what it relayed).
 */

import type { ChatRequest, ChatResponse, StreamEvent, Usage } from '../core/canonical.js';
import type { GatewayError } from '../core/errors.js';
import { foldStream } from '../core/fold-stream.js';
import { mapIterable } from '../core/map-iterable.js';
import { primeStream, rejectErrorFirst } from '../core/prime-stream.js';
import type { RelayedOutput, Reply } from '../core/reply.js';

/** Where a reply reports what it used and relayed (the request context fits as is). */
export interface ReplySink {
  usage?: Usage;
  relayed?: RelayedOutput;
}

export interface ReplyOptions {
  /** The `model` the response names: the name the caller sent (response-model.ts). */
  modelName: string;
  /** Secrets removed, by value, from an upstream error before the caller sees it. */
  redact(err: GatewayError): GatewayError;
  sink: ReplySink;
  /** The caller's request (a stream or not; what translators need of it). */
  chat: ChatRequest;
}

/** Merge usage seen so far with a newer partial report (later fields win, field by field). */
export function mergeUsage(prev: Usage | undefined, next: Partial<Usage>): Usage {
  const out: Usage = { inputTokens: 0, outputTokens: 0, ...prev };
  for (const [k, v] of Object.entries(next) as Array<[keyof Usage, number | undefined]>) {
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function tapUsage(events: AsyncIterable<StreamEvent>, o: ReplyOptions): AsyncIterable<StreamEvent> {
  const relayed = { output: [] as string[], complete: false };
  const sink = o.sink;
  sink.relayed = relayed;
  return mapIterable(events, (ev): StreamEvent => {
    if (ev.type === 'message_start') {
      if (ev.usage) sink.usage = mergeUsage(sink.usage, ev.usage);
      return { ...ev, model: o.modelName };
    }
    if (ev.type === 'block_delta') {
      const d = ev.delta;
      if (d.kind === 'text' || d.kind === 'reasoning') relayed.output.push(d.text);
      else if (d.kind === 'tool_arguments') relayed.output.push(d.json);
    } else if (ev.type === 'message_stop') {
      sink.usage = mergeUsage(sink.usage, ev.usage);
      relayed.complete = true;
    } else if (ev.type === 'error') {
      // The caller's encoder writes it as an in-stream error: secrets are removed here, by value.
      return { type: 'error', error: o.redact(ev.error) };
    }
    return ev;
  });
}

/** Canonical events → a stream reply (primed: its first event has arrived), or a folded response. */
export async function replyFromEvents(events: AsyncIterable<StreamEvent>, o: ReplyOptions): Promise<Reply> {
  if (o.chat.stream) return { kind: 'events', events: await primeStream(tapUsage(events, o), rejectErrorFirst) };
  return replyFromResponse(await foldStream(tapUsage(events, o)), o);
}

export function replyFromResponse(res: ChatResponse, o: ReplyOptions): Extract<Reply, { kind: 'response' }> {
  o.sink.usage = res.usage;
  return { kind: 'response', response: { ...res, model: o.modelName } };
}

/** The upstream body with read failures turned into catalogue errors (`transportError`). */
export function withTransportErrors(
  body: AsyncIterable<Buffer>,
  transportError: (err: unknown) => GatewayError,
): AsyncIterable<Buffer> {
  return mapIterable(body, (chunk) => chunk, transportError);
}
