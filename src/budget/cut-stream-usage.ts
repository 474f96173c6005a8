/**
 * A stream that ended before the provider's final usage arrived (the caller left, or the stream
 * broke) still generated what it relayed, and the provider bills it: its output tokens are
 * counted locally over the text relayed so far (OpenAI reports usage only at the very end, and
 * Anthropic's message_start says 1 output token). Runs only for streams that did not complete.
 */

import type { ChatRequest, Usage } from '../core/canonical.js';
import type { RelayedOutput } from '../core/reply.js';
import type { ModelSpec } from '../config/types.js';
import { countInputTokensLocally, countTextTokensLocally } from '../tokens/count-local.js';

/** The usage to bill for a cut stream: `usage` as reported so far, raised to what was relayed. */
export function cutStreamUsage(
  usage: Usage | undefined,
  relayed: RelayedOutput | undefined,
  chat: ChatRequest,
  model: ModelSpec,
): Usage | undefined {
  if (!relayed || relayed.output.length === 0) return usage;
  // The provider's end marker came with its final usage (the caller left after the answer was
  // complete, e.g. before a non-stream reply was written): that is what it bills. Counting would
  // load a tokenizer (tens of MB, and a pause) for nothing.
  if (relayed.complete && usage) return usage;
  const output = countTextTokensLocally(relayed.output.join(''), model);
  if (usage && usage.outputTokens >= output) return usage;
  // No usage at all yet (OpenAI): the prompt was read in full, count it too.
  return usage
    ? { ...usage, outputTokens: output }
    : { inputTokens: countInputTokensLocally(chat, model).inputTokens, outputTokens: output };
}
