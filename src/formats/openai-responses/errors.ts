/**
 * Errors in the Responses format. An HTTP error body is the same as the chat format's
 * (`{"error": {message, type, param, code}}`). In a stream an error is an `error` event; the one
 * the gateway writes carries the documented flat members (`code`, `message`, `param`,
 * `sequence_number`) and the same `error` object as an HTTP body: the openai SDK raises an
 * APIError for an event whose data has `error`, and the AI SDK's schema accepts either shape.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming/error
 */

import { type GatewayError, upstreamStatusError } from '../../core/errors.js';
import { boundText, redactSecrets } from '../../observe/redact.js';
import { openaiErrorBody, upstreamStreamError } from '../openai-chat/errors.js';

export {
  openaiErrorBody as responsesErrorBody,
  openaiErrorMessage as responsesErrorMessage,
} from '../openai-chat/errors.js';

/** `sequenceNumber`: the event's place in the stream (the number after the last event the caller got). */
export function responsesStreamError(err: GatewayError, sequenceNumber = 0): string {
  const { error } = openaiErrorBody(err);
  const data = {
    type: 'error',
    sequence_number: sequenceNumber,
    code: error.code,
    message: error.message,
    param: error.param,
    error,
  };
  return `event: error\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * An upstream's `error` event → GatewayError. OpenAI documents the members flat on the event and
 * also sends them nested in `error`; the status comes from the error's type or code (chat rules).
 */
export function upstreamErrorEvent(data: Record<string, unknown>): GatewayError {
  const nested = data.error;
  return upstreamStreamError(
    typeof nested === 'object' && nested !== null ? nested : { message: data.message, code: data.code },
  );
}

/** `response.error.code` values that are the provider's own failure; the other codes are about the input. */
const STATUS_BY_FAILURE = new Map<unknown, number>([
  ['rate_limit_exceeded', 429],
  ['server_error', 500],
  ['vector_store_timeout', 504],
]);

/**
 * A response that ended `failed` (`response.failed`, or a failed response body) → GatewayError.
 * Codes about the input (`invalid_prompt`, the image errors…) are the caller's: 400.
 */
export function upstreamFailure(error: unknown): GatewayError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : 'server_error';
  const detail =
    typeof e.message === 'string' && e.message.length > 0 ? `: ${boundText(redactSecrets(e.message), 4000)}` : '.';
  return upstreamStatusError(`The upstream response failed (${code})${detail}`, STATUS_BY_FAILURE.get(code) ?? 400);
}
