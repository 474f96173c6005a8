import type { ErrorKind, GatewayError } from '../../core/errors.js';
import { sseData } from '../../sse/encode.js';

/** OpenAI error `type` per kind. @see https://platform.openai.com/docs/guides/error-codes */
const TYPE_BY_KIND: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  too_large: 'invalid_request_error',
  rate_limit: 'rate_limit_error',
  upstream: 'upstream_error',
  timeout: 'timeout_error',
  overloaded: 'overloaded_error',
  internal: 'server_error',
};

export function openaiErrorBody(err: GatewayError) {
  return {
    error: { message: err.message, type: TYPE_BY_KIND[err.kind], param: err.param ?? null, code: err.code },
  };
}

/** After a stream has started: OpenAI-compatible SDKs raise an APIError for `data: {"error":…}`. */
export function openaiStreamError(err: GatewayError): string {
  return sseData(JSON.stringify(openaiErrorBody(err)));
}

/** The `message` of an OpenAI-format error body, if it has one. */
export function openaiErrorMessage(body: unknown): string | undefined {
  const e = (body as { error?: { message?: unknown } } | null)?.error;
  return typeof e?.message === 'string' ? e.message : undefined;
}
