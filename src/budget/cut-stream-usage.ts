/**
 * A stream that ended before the provider's final usage arrived (the caller left, or the stream
 * broke) still generated what it relayed, and the provider bills it: its output tokens are
 * counted locally over the text relayed so far (OpenAI reports usage only at the very end, and
 * Anthropic's message_start says 1 output token). Runs only for streams that did not complete.
 */

import type { RequestContext } from '../pipeline/context.js';
import type { Candidate } from '../routing/resolve-model.js';
import { countInputTokensLocally, countTextTokensLocally } from '../tokens/count-local.js';

export function billCutStream(ctx: RequestContext, c: Candidate): void {
  const relayed = ctx.relayed;
  if (!relayed || relayed.output.length === 0) return;
  const output = countTextTokensLocally(relayed.output.join(''), c.model);
  const usage = ctx.usage;
  if (usage && usage.outputTokens >= output) return;
  // No usage at all yet (OpenAI): the prompt was read in full, count it too.
  ctx.usage = usage
    ? { ...usage, outputTokens: output }
    : { inputTokens: countInputTokensLocally(ctx.chat!, c.model).inputTokens, outputTokens: output };
}
