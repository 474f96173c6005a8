/**
 * Anthropic → Anthropic: the caller's bytes go up with only `model` rewritten (and Claude's thinking
 * fitted to the model: thinking-fit.ts), and the upstream's events come back untouched (Anthropic
 * streams always carry usage, so nothing is added or hidden).
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types
 */

import type { Usage } from '../../core/canonical.js';
import { jsonString } from '../../core/json-string.js';
import { removeTopLevel, spliceTopLevel } from '../../core/json-splice.js';
import type { BodyEdits, CallerRequest, EncodeTarget, PassThrough } from '../types.js';
import { anthropicErrorMessage } from './errors.js';
import { AnthropicStreamWatch } from './stream-watch.js';
import { plainAnswerUsage, plainUsage } from './plain-answer.js';
import { fitThinking } from './thinking-fit.js';
import { usageFromAnthropic } from './usage.js';

export const anthropicPassThrough: PassThrough = {
  // `max_tokens` is required in this format, so the caller's body always carries an output cap.
  prepareBody({ raw, members, parsed }: CallerRequest, target: EncodeTarget, edits: BodyEdits): Buffer {
    const model = jsonString(target.model);
    const fit = fitThinking(parsed, target, edits);
    if (!fit) return spliceTopLevel(raw, { model }, {}, members);
    const spliced = spliceTopLevel(raw, { ...fit.replace, model }, {}, members);
    return fit.remove.length > 0 ? removeTopLevel(spliced, fit.remove) : spliced;
  },

  watchStream() {
    return new AnthropicStreamWatch();
  },

  usageFromBody(body: unknown): Usage | undefined {
    return usageFromAnthropic((body as { usage?: unknown } | null)?.usage);
  },

  plainAnswerUsage,
  plainUsage,

  errorMessage: anthropicErrorMessage,
};
