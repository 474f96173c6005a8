/**
 * Watches a relayed Responses stream (same format on both sides): every event's data must be a
 * typed JSON object; `error` and `response.failed` are the upstream's in-stream errors; the
 * stream is complete at `response.completed` or `response.incomplete`, whose response carries the
 * usage; generated text (output text, refusals, reasoning, function arguments, custom tool input)
 * is kept for billing a stream cut before its usage. Nothing is hidden from the caller.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */

import type { Usage } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { isObject } from '../../core/json.js';
import type { SseMessage } from '../../sse/decode.js';
import type { StreamWatch } from '../types.js';
import { upstreamErrorEvent, upstreamFailure } from './errors.js';
import { usageFromResponses } from './usage.js';
import { plainTextDeltaEvent } from './plain-text-delta-event.js';

/** Events whose `delta` is generated text. */
const TEXT_DELTAS = new Set([
  'response.output_text.delta',
  'response.refusal.delta',
  'response.reasoning_summary_text.delta',
  'response.reasoning_text.delta',
  'response.function_call_arguments.delta',
  'response.custom_tool_call_input.delta',
]);

export class ResponsesStreamWatch implements StreamWatch {
  complete = false;
  usage: Usage | undefined;
  readonly output: string[] = [];
  /** The `sequence_number` an event the gateway adds after the relayed ones must carry. */
  nextSequenceNumber = 0;

  see(msg: SseMessage): undefined {
    if (msg.data.length === 0) return undefined;
    // An output text delta in OpenAI's own shape: what the full read below keeps of it.
    const fast = plainTextDeltaEvent(msg.data);
    if (fast !== undefined) {
      if (fast.delta.length > 0) this.output.push(fast.delta);
      this.nextSequenceNumber = fast.sequenceNumber + 1;
      return undefined;
    }
    let data: unknown;
    try {
      data = JSON.parse(msg.data);
    } catch {
      throw new GatewayError('upstream_error', 'The upstream sent a stream event that is not JSON.');
    }
    if (!isObject(data))
      throw new GatewayError('upstream_error', 'The upstream sent a stream event that is not a JSON object.');
    const type = typeof data.type === 'string' ? data.type : msg.event;
    if (type === 'error') throw upstreamErrorEvent(data);
    if (type === 'response.failed') throw upstreamFailure(isObject(data.response) ? data.response.error : undefined);
    if (type === 'response.completed' || type === 'response.incomplete') {
      this.complete = true;
      if (isObject(data.response)) this.usage = usageFromResponses(data.response.usage) ?? this.usage;
    } else if (type !== undefined && TEXT_DELTAS.has(type)) {
      if (typeof data.delta === 'string' && data.delta.length > 0) this.output.push(data.delta);
    } else if (type === 'response.output_item.added' && isObject(data.item) && typeof data.item.name === 'string') {
      this.output.push(data.item.name);
    }
    if (Number.isSafeInteger(data.sequence_number)) this.nextSequenceNumber = (data.sequence_number as number) + 1;
    return undefined;
  }
}
