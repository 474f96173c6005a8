/**
 * Anthropic → Anthropic: the caller's bytes go up with only `model` rewritten, and the upstream's
 * events come back untouched (Anthropic streams always carry usage, so nothing is added or hidden).
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types
 */

import type { ChatRequest, Usage } from '../../core/canonical.js';
import { spliceTopLevel } from '../../core/json-splice.js';
import type { SseMessage } from '../../sse/decode.js';
import type { PassThrough } from '../types.js';
import { anthropicErrorMessage, upstreamStreamError } from './errors.js';
import type { GatewayError } from '../../core/errors.js';
import { combineUsage, partialUsageFromAnthropic, usageFromAnthropic } from './usage.js';

/**
 * Usage seen so far, per request. Anthropic splits it over two events (message_start: input and
 * cache counters; message_delta: cumulative output, sometimes input/cache again), while tapEvent
 * sees one message at a time. Keyed by the request's ChatRequest object, so it is collected with it.
 */
const seen = new WeakMap<ChatRequest, Partial<Usage>>();

export const anthropicPassThrough: PassThrough = {
  prepareBody(raw: Buffer, _parsed: unknown, upstreamModel: string): Buffer {
    return spliceTopLevel(raw, { model: JSON.stringify(upstreamModel) });
  },

  errorOf(msg: SseMessage): GatewayError | undefined {
    if (msg.event !== 'error' && !msg.data.includes('"error"')) return undefined;
    try {
      const data = JSON.parse(msg.data) as { type?: unknown } | null;
      if (msg.event === 'error' || data?.type === 'error') return upstreamStreamError(data);
    } catch {
      return undefined;
    }
    return undefined;
  },

  /** Usage rides on message_start and message_delta only (the bulk of a stream is deltas). */
  mayTap(run: string): boolean {
    return run.includes('message_start') || run.includes('message_delta');
  },

  /**
   * Merge contract: the usage returned is always COMPLETE for the request so far (message_start's
   * counters with message_delta's merged over them, later fields winning per field), so a caller
   * may either replace its usage with it or merge it field by field: both give the same result.
   * A message_start resets the accumulation (it opens a new message, e.g. on a retried attempt).
   */
  tapEvent(msg: SseMessage, chat: ChatRequest): { usage?: Usage } | undefined {
    // Cheap pre-check: only these two events carry usage, and ping/deltas are the bulk of a stream.
    const isStart = msg.event === 'message_start' || (msg.event === undefined && msg.data.includes('"message_start"'));
    const isDelta = msg.event === 'message_delta' || (msg.event === undefined && msg.data.includes('"message_delta"'));
    if (!isStart && !isDelta) return undefined;
    let data: { message?: { usage?: unknown }; usage?: unknown };
    try {
      data = JSON.parse(msg.data);
    } catch {
      return undefined;
    }
    const part = partialUsageFromAnthropic(isStart ? data?.message?.usage : data?.usage);
    const sofar = isStart ? part : { ...seen.get(chat), ...part };
    seen.set(chat, sofar);
    return { usage: combineUsage(sofar) };
  },

  usageFromBody(body: unknown): Usage | undefined {
    return usageFromAnthropic((body as { usage?: unknown } | null)?.usage);
  },

  errorMessage: anthropicErrorMessage,
};
