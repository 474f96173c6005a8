import type { ChatRequest, Usage } from '../../core/canonical.js';
import { jsonString } from '../../core/json-string.js';
import { spliceTopLevel } from '../../core/json-splice.js';
import { isObject } from '../../core/json.js';
import { defaultOutputCap } from '../output-cap.js';
import type { CallerRequest, EncodeTarget } from '../types.js';
import { ResponsesStreamWatch } from './stream-watch.js';
import { usageFromResponses } from './usage.js';

/**
 * Responses → Responses. The caller's bytes go up with `model` rewritten in place and, when the
 * caller set no `max_output_tokens`, a limit added (see output-cap.ts), so the upstream cannot
 * generate past what budgets reserved. Nothing else: a Responses stream always reports usage.
 * `previous_response_id`, `item_reference` items and `store` reach the upstream as sent.
 */
export const responsesPassThrough = {
  prepareBody({ raw, members, chat }: CallerRequest, target: EncodeTarget): Buffer {
    const replace: Record<string, string> = { model: jsonString(target.model) };
    // An explicit null is replaced too.
    if (chat.maxTokens === undefined) replace.max_output_tokens = String(defaultOutputCap(target.maxOutputTokens));
    return spliceTopLevel(raw, replace, {}, members);
  },

  watchStream(_chat: ChatRequest) {
    return new ResponsesStreamWatch();
  },

  usageFromBody(body: unknown): Usage | undefined {
    return isObject(body) ? usageFromResponses(body.usage) : undefined;
  },
};
