/**
 * Anthropic → Anthropic: the caller's bytes go up with only `model` rewritten, and the upstream's
 * events come back untouched (Anthropic streams always carry usage, so nothing is added or hidden).
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types
 */

import type { Usage } from '../../core/canonical.js';
import { spliceTopLevel } from '../../core/json-splice.js';
import type { EncodeTarget, PassThrough } from '../types.js';
import { anthropicErrorMessage } from './errors.js';
import { AnthropicStreamWatch } from './stream-watch.js';
import { usageFromAnthropic } from './usage.js';

export const anthropicPassThrough: PassThrough = {
  // `max_tokens` is required in this format, so the caller's body always carries an output cap.
  prepareBody(raw: Buffer, _parsed: unknown, target: EncodeTarget): Buffer {
    return spliceTopLevel(raw, { model: JSON.stringify(target.model) });
  },

  watchStream() {
    return new AnthropicStreamWatch();
  },

  usageFromBody(body: unknown): Usage | undefined {
    return usageFromAnthropic((body as { usage?: unknown } | null)?.usage);
  },

  errorMessage: anthropicErrorMessage,
};
