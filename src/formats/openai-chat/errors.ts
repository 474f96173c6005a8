import { type GatewayError, upstreamStatusError, type ErrorKind } from '../../core/errors.js';
import { boundText, redactSecrets } from '../../observe/redact.js';
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

/** Upstream error `type`/`code` strings whose HTTP status is known. */
const STATUS_BY_TYPE = new Map<unknown, number>(
  Object.entries({
    invalid_request_error: 400,
    authentication_error: 401,
    invalid_api_key: 401,
    permission_error: 403,
    not_found_error: 404,
    rate_limit_error: 429,
    rate_limit_exceeded: 429,
    insufficient_quota: 429,
    server_error: 500,
    api_error: 500,
    overloaded_error: 503,
  }),
);

/**
 * An upstream's in-stream `{"error": {...}}` → GatewayError('upstream_error'). The status comes
 * from a numeric `code` (some compatible servers send one) or a known `type`/`code`, else 502.
 * The upstream's message is kept (credential-shaped text redacted, length bounded).
 */
export function upstreamStreamError(error: unknown): GatewayError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    message?: unknown;
    type?: unknown;
    code?: unknown;
  };
  let status = 502;
  if (typeof e.code === 'number' && e.code >= 400 && e.code <= 599) status = e.code;
  else status = STATUS_BY_TYPE.get(e.type) ?? STATUS_BY_TYPE.get(e.code) ?? 502;
  const detail =
    typeof e.message === 'string' && e.message.length > 0 ? `: ${boundText(redactSecrets(e.message), 4000)}` : '.';
  return upstreamStatusError(`The upstream reported an error mid-stream${detail}`, status);
}
