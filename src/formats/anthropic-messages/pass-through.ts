/**
 * Anthropic → Anthropic: the caller's bytes go up with only `model` rewritten, and the upstream's
 * events come back untouched (Anthropic streams always carry usage, so nothing is added or hidden).
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types
 */

import type { Usage } from '../../core/canonical.js';
import { spliceTopLevel } from '../../core/json-splice.js';
import type { PassThrough } from '../types.js';
import { anthropicErrorMessage } from './errors.js';
import { AnthropicStreamWatch } from './stream-watch.js';
import { usageFromAnthropic } from './usage.js';

export const anthropicPassThrough: PassThrough = {
  prepareBody(raw: Buffer, _parsed: unknown, upstreamModel: string): Buffer {
    return spliceTopLevel(raw, { model: JSON.stringify(upstreamModel) });
  },

  watchStream() {
    return new AnthropicStreamWatch();
  },

  usageFromBody(body: unknown): Usage | undefined {
    return usageFromAnthropic((body as { usage?: unknown } | null)?.usage);
  },

  errorMessage: anthropicErrorMessage,
};
