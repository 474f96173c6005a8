/**
 * GatewayError ↔ Anthropic error bodies: `{type: "error", error: {type, message}}`, the same
 * shape as an HTTP error body and as the data of an in-stream `event: error`.
 * @see https://docs.anthropic.com/en/api/errors
 */

import { boundText, redactSecrets } from '../../observe/redact.js';
import { type GatewayError, upstreamStatusError, type ErrorKind } from '../../core/errors.js';

/**
 * Anthropic error `type` per kind; 502/503 are chosen by kind (upstream → api_error,
 * overloaded → overloaded_error).
 */
const TYPE_BY_KIND: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  too_large: 'request_too_large',
  rate_limit: 'rate_limit_error',
  upstream: 'api_error',
  timeout: 'timeout_error',
  overloaded: 'overloaded_error',
  internal: 'api_error',
};

/** The HTTP status Anthropic pairs with each error type (used for errors that arrive in a stream). */
const STATUS_BY_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

export function anthropicErrorBody(err: GatewayError) {
  return { type: 'error' as const, error: { type: TYPE_BY_KIND[err.kind], message: err.message } };
}

/** After the stream has committed: the SDKs raise an APIError for `event: error`. */
export function anthropicStreamError(err: GatewayError): string {
  return `event: error\ndata: ${JSON.stringify(anthropicErrorBody(err))}\n\n`;
}

/** The `message` of an Anthropic-format error body, if it has one. */
export function anthropicErrorMessage(body: unknown): string | undefined {
  const e = (body as { error?: { message?: unknown } } | null)?.error;
  return typeof e?.message === 'string' ? e.message : undefined;
}

/**
 * An error the upstream sent inside a stream (data of `event: error`) → GatewayError with the
 * status Anthropic documents for its type, so the caller sees e.g. 529 overloaded, not a bare 502.
 * The upstream's credentials being refused is the gateway's problem, hence 502 (as for HTTP errors).
 */
export function upstreamStreamError(data: unknown): GatewayError {
  const e = (data as { error?: { type?: unknown; message?: unknown } } | null)?.error;
  const type = typeof e?.type === 'string' ? e.type : 'api_error';
  const detail = typeof e?.message === 'string' && e.message ? `: ${boundText(redactSecrets(e.message), 4000)}` : '';
  return upstreamStatusError(
    `The upstream reported an error during the stream (${type})${detail}`,
    STATUS_BY_TYPE[type] ?? 500,
  );
}
