/**
 * A Responses `status` (with `incomplete_details.reason`) ↔ the canonical finish reason. The
 * format has no finish reason of its own: a completed response that calls tools finished for
 * tool calls, an incomplete one names what cut it.
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-status
 */

import type { FinishReason } from '../../core/canonical.js';

export type ResponsesStatus = 'completed' | 'incomplete' | 'failed';

export interface ResponsesOutcome {
  status: ResponsesStatus;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
}

export function toResponsesStatus(finish: FinishReason): ResponsesOutcome {
  switch (finish) {
    case 'length':
      return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
    case 'content_filter':
      return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
    case 'error':
      return { status: 'failed', incomplete_details: null };
    default:
      return { status: 'completed', incomplete_details: null };
  }
}

/**
 * `calledTools`: the output has a function or custom tool call. A `failed` response never gets
 * here: it is the upstream's error (errors.ts, upstreamFailure).
 */
export function fromResponsesStatus(status: unknown, reason: unknown, calledTools: boolean): FinishReason {
  switch (status) {
    case 'completed':
      return calledTools ? 'tool_calls' : 'stop';
    case 'incomplete':
      if (reason === 'max_output_tokens') return 'length';
      return reason === 'content_filter' ? 'content_filter' : 'other';
    default:
      // `cancelled`, or a status the API adds later.
      return 'other';
  }
}
