import type { ChatRequest, Usage } from '../../core/canonical.js';
import { spliceTopLevel } from '../../core/json-splice.js';
import type { SseMessage } from '../../sse/decode.js';
import { usageFromOpenai } from './usage.js';
import { upstreamStreamError } from './errors.js';
import type { GatewayError } from '../../core/errors.js';

/**
 * OpenAI → OpenAI. Streams ask the upstream for `stream_options.include_usage` so the gateway
 * always sees usage; when the caller did not ask for it, the final usage-only chunk is hidden
 * (the `"usage":null` members OpenAI then adds to other chunks are left as they are).
 */
export const openaiPassThrough = {
  prepareBody(raw: Buffer, parsed: unknown, upstreamModel: string, chat: ChatRequest): Buffer {
    const replace: Record<string, string> = { model: JSON.stringify(upstreamModel) };
    if (chat.stream && !chat.includeUsage) {
      const options = (parsed as { stream_options?: Record<string, unknown> | null }).stream_options;
      replace.stream_options = JSON.stringify({ ...(options ?? {}), include_usage: true });
    }
    return spliceTopLevel(raw, replace);
  },

  errorOf(msg: SseMessage): GatewayError | undefined {
    if (msg.event !== 'error' && !msg.data.includes('"error"')) return undefined;
    try {
      const chunk = JSON.parse(msg.data) as { error?: unknown } | null;
      if (msg.event === 'error' || (chunk && chunk.error !== undefined && chunk.error !== null)) return upstreamStreamError(chunk?.error ?? chunk);
    } catch {
      return undefined;
    }
    return undefined;
  },

  /** Only the final usage chunk has a usage object; other chunks have none or `"usage":null`. */
  mayTap(run: string): boolean {
    return run.includes('"usage":{') || run.includes('"usage": {');
  },

  tapEvent(msg: SseMessage, chat: ChatRequest): { usage?: Usage; drop?: boolean } | undefined {
    // Cheap pre-check: only the usage chunk carries a usage object.
    if (!msg.data.includes('"usage":{') && !msg.data.includes('"usage": {')) return undefined;
    let chunk: { choices?: unknown[]; usage?: unknown };
    try {
      chunk = JSON.parse(msg.data);
    } catch {
      return undefined;
    }
    const usage = usageFromOpenai(chunk.usage as Parameters<typeof usageFromOpenai>[0]);
    const usageOnly = Array.isArray(chunk.choices) && chunk.choices.length === 0;
    return { usage, drop: usageOnly && !chat.includeUsage };
  },

  usageFromBody(body: unknown): Usage | undefined {
    return usageFromOpenai((body as { usage?: Parameters<typeof usageFromOpenai>[0] } | null)?.usage);
  },
};
