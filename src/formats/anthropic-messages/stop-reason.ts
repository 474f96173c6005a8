/**
 * Anthropic `stop_reason` ↔ canonical FinishReason. A stop sequence is canonical `stop` plus
 * `stopSequence`, so `stop_sequence` survives the round trip when the sequence is known.
 * @see https://docs.anthropic.com/en/api/handling-stop-reasons
 */

import type { FinishReason } from '../../core/canonical.js';

export type AnthropicStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

export function fromAnthropicStopReason(raw: unknown): FinishReason {
  switch (raw) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    // The model stopped because the context window filled: the same outcome for the caller.
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // pause_turn (a server-tool turn to be continued), null, and reasons added later.
      return 'other';
  }
}

/** Anthropic has no `error`/`other` reason; `end_turn` is what its SDKs treat as a normal end. */
export function toAnthropicStopReason(f: FinishReason, stopSequence?: string): AnthropicStopReason {
  switch (f) {
    case 'stop':
      return stopSequence !== undefined ? 'stop_sequence' : 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/** Both directions in one place, for callers that translate stop reasons outside this folder. */
export const anthropicStopReason = {
  toCanonical: fromAnthropicStopReason,
  fromCanonical: toAnthropicStopReason,
} as const;
