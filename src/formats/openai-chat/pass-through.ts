import type { ChatRequest, Usage } from '../../core/canonical.js';
import { spliceTopLevel } from '../../core/json-splice.js';
import { usageFromOpenai } from './usage.js';
import { OpenaiStreamWatch } from './stream-watch.js';

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

  watchStream(chat: ChatRequest) {
    return new OpenaiStreamWatch(chat);
  },

  usageFromBody(body: unknown): Usage | undefined {
    return usageFromOpenai((body as { usage?: Parameters<typeof usageFromOpenai>[0] } | null)?.usage);
  },
};
