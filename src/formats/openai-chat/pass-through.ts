import type { ChatRequest, Usage } from '../../core/canonical.js';
import { jsonString } from '../../core/json-string.js';
import { spliceTopLevel } from '../../core/json-splice.js';
import { defaultOutputCap } from '../output-cap.js';
import type { CallerRequest, EncodeTarget } from '../types.js';
import { plainAnswerUsage, plainUsage } from './plain-answer.js';
import { usageFromOpenai } from './usage.js';
import { OpenaiStreamWatch } from './stream-watch.js';

/**
 * OpenAI → OpenAI. Streams ask the upstream for `stream_options.include_usage` so the gateway
 * always sees usage; when the caller did not ask for it, the final usage-only chunk is hidden
 * (the `"usage":null` members OpenAI then adds to other chunks are left as they are). A request
 * without an output limit gets `max_completion_tokens` (see output-cap.ts).
 */
export const openaiPassThrough = {
  prepareBody({ raw, members, parsed, chat }: CallerRequest, target: EncodeTarget): Buffer {
    const replace: Record<string, string> = { model: jsonString(target.model) };
    if (chat.stream && !chat.includeUsage) {
      const options = (parsed as { stream_options?: Record<string, unknown> | null }).stream_options;
      replace.stream_options = JSON.stringify({ ...(options ?? {}), include_usage: true });
    }
    // No caller limit: one is sent, so the upstream cannot generate past what budgets reserved.
    // `max_completion_tokens`, since reasoning models refuse `max_tokens` (an explicit null is replaced).
    if (chat.maxTokens === undefined) replace.max_completion_tokens = String(defaultOutputCap(target.maxOutputTokens));
    return spliceTopLevel(raw, replace, {}, members);
  },

  watchStream(chat: ChatRequest) {
    return new OpenaiStreamWatch(chat);
  },

  usageFromBody(body: unknown): Usage | undefined {
    return usageFromOpenai((body as { usage?: Parameters<typeof usageFromOpenai>[0] } | null)?.usage);
  },

  plainAnswerUsage,
  plainUsage,
};
