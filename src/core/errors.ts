/**
 * One internal error type and one catalogue of stable codes. Each wire format renders a
 * GatewayError in its own body shape (formats/<id>/errors.ts); only catalogue messages and
 * messages we wrote reach callers — never upstream bodies verbatim, stack traces or secrets.
 */

export type ErrorCode =
  | 'invalid_json'
  | 'invalid_request'
  | 'body_too_large'
  | 'headers_too_large'
  | 'request_timeout'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'model_not_found'
  | 'model_not_allowed'
  | 'tool_not_allowed'
  | 'route_not_found'
  | 'response_not_found'
  | 'previous_response_not_found'
  | 'method_not_allowed'
  | 'upgrade_not_supported'
  | 'no_available_provider'
  | 'provider_key_not_allowed'
  | 'provider_key_required'
  | 'provider_key_rejected'
  | 'guardrail_blocked'
  | 'budget_exceeded'
  | 'rate_limit_exceeded'
  | 'state_store_unavailable'
  | 'upstream_error'
  | 'upstream_unavailable'
  | 'upstream_timeout'
  | 'client_disconnected'
  | 'internal_error';

/** Broad category, used by renderers to pick the wire `type`. */
export type ErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'too_large'
  | 'rate_limit'
  | 'upstream'
  | 'timeout'
  | 'overloaded'
  | 'internal';

interface CatalogueEntry {
  status: number;
  kind: ErrorKind;
  /** Whether a client may usefully retry (becomes `x-should-retry`). */
  retryable: boolean;
}

export const ERROR_CATALOGUE: Readonly<Record<ErrorCode, CatalogueEntry>> = {
  invalid_json: { status: 400, kind: 'invalid_request', retryable: false },
  invalid_request: { status: 400, kind: 'invalid_request', retryable: false },
  body_too_large: { status: 413, kind: 'too_large', retryable: false },
  headers_too_large: { status: 431, kind: 'too_large', retryable: false },
  // The request did not arrive in time (a slow or stalled client): 408, which SDKs retry.
  request_timeout: { status: 408, kind: 'timeout', retryable: true },
  missing_api_key: { status: 401, kind: 'authentication', retryable: false },
  invalid_api_key: { status: 401, kind: 'authentication', retryable: false },
  model_not_allowed: { status: 403, kind: 'permission', retryable: false },
  tool_not_allowed: { status: 403, kind: 'permission', retryable: false },
  model_not_found: { status: 404, kind: 'not_found', retryable: false },
  route_not_found: { status: 404, kind: 'not_found', retryable: false },
  // A stored response (GET/DELETE /v1/responses/{id}) this key cannot see: absent, expired or another key's.
  response_not_found: { status: 404, kind: 'not_found', retryable: false },
  // A conversation reference in a request body (previous_response_id, item_reference): the request is wrong.
  previous_response_not_found: { status: 400, kind: 'invalid_request', retryable: false },
  method_not_allowed: { status: 405, kind: 'invalid_request', retryable: false },
  // A WebSocket upgrade (Codex tries one on /v1/responses first): 426 makes it use HTTP at once.
  upgrade_not_supported: { status: 426, kind: 'invalid_request', retryable: false },
  no_available_provider: { status: 503, kind: 'overloaded', retryable: true },
  provider_key_not_allowed: { status: 400, kind: 'invalid_request', retryable: false },
  provider_key_required: { status: 401, kind: 'authentication', retryable: false },
  provider_key_rejected: { status: 401, kind: 'authentication', retryable: false },
  // Limits say no until a window or period ends: SDKs must not retry on their own.
  guardrail_blocked: { status: 400, kind: 'invalid_request', retryable: false },
  budget_exceeded: { status: 429, kind: 'rate_limit', retryable: false },
  rate_limit_exceeded: { status: 429, kind: 'rate_limit', retryable: false },
  state_store_unavailable: { status: 503, kind: 'overloaded', retryable: true },
  upstream_error: { status: 502, kind: 'upstream', retryable: true },
  upstream_unavailable: { status: 502, kind: 'upstream', retryable: true },
  upstream_timeout: { status: 504, kind: 'timeout', retryable: true },
  // The caller went away (nginx's 499): never a provider failure, only ever seen in logs and records.
  client_disconnected: { status: 499, kind: 'invalid_request', retryable: false },
  internal_error: { status: 500, kind: 'internal', retryable: true },
};

export interface GatewayErrorOptions {
  /** The request field at fault, e.g. `messages[0].role`. */
  param?: string;
  /** Overrides the catalogue status (upstream errors keep the upstream's status). */
  status?: number;
  kind?: ErrorKind;
  retryable?: boolean;
  /** Extra response headers (e.g. retry-after passed on from upstream). */
  headers?: Record<string, string>;
  /** What the provider answered, for routing decisions (never rendered). */
  upstream?: UpstreamFailureInfo;
  cause?: unknown;
}

export interface UpstreamFailureInfo {
  /** The provider's own HTTP status (before any mapping, e.g. 401 rendered as 502). */
  status?: number;
  retryAfterMs?: number;
}

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly kind: ErrorKind;
  readonly retryable: boolean;
  readonly param?: string;
  readonly headers?: Record<string, string>;
  readonly upstream?: UpstreamFailureInfo;

  constructor(code: ErrorCode, message: string, opts: GatewayErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    const entry = ERROR_CATALOGUE[code];
    this.name = 'GatewayError';
    this.code = code;
    this.status = opts.status ?? entry.status;
    this.kind = opts.kind ?? entry.kind;
    this.retryable = opts.retryable ?? entry.retryable;
    this.param = opts.param;
    this.headers = opts.headers;
    this.upstream = opts.upstream;
  }
}

/** A canonical stream that ran out before its end: what a caller's stream ends with. */
export function streamEndedEarly(): GatewayError {
  return new GatewayError('upstream_unavailable', 'The upstream stream ended early.');
}

/** Anything thrown that is not a GatewayError becomes an opaque internal error. */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  return new GatewayError('internal_error', 'The gateway failed to handle the request.', { cause: err });
}

/** Kind for an upstream HTTP status we pass on. */
export function kindForStatus(status: number): ErrorKind {
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 413) return 'too_large';
  if (status === 429) return 'rate_limit';
  if (status === 504 || status === 408) return 'timeout';
  if (status === 503 || status === 529) return 'overloaded';
  if (status >= 500) return 'upstream';
  return 'invalid_request';
}

/**
 * A provider answered with an error status (as an HTTP response or inside a stream): the status
 * is kept and passed on, except a refused credential (401/403), which is the gateway's problem,
 * not the caller's: 502, so SDKs do not report the caller's gateway key as wrong. The provider's
 * own status stays in `upstream` for routing.
 */
export function upstreamStatusError(
  message: string,
  status: number,
  opts: { headers?: Record<string, string>; retryAfterMs?: number } = {},
): GatewayError {
  const upstream = { status, ...(opts.retryAfterMs !== undefined ? { retryAfterMs: opts.retryAfterMs } : {}) };
  if (status === 401 || status === 403)
    return new GatewayError('upstream_error', message, { status: 502, kind: 'upstream', retryable: false, upstream });
  return new GatewayError('upstream_error', message, {
    status: status >= 400 && status <= 599 ? status : 502,
    kind: kindForStatus(status),
    retryable: status === 429 || status >= 500,
    headers: opts.headers,
    upstream,
  });
}

/** The same error with another message (every other field kept; the original as its cause). */
export function withMessage(err: GatewayError, message: string): GatewayError {
  return new GatewayError(err.code, message, {
    status: err.status,
    kind: err.kind,
    retryable: err.retryable,
    param: err.param,
    headers: err.headers,
    upstream: err.upstream,
    cause: err,
  });
}
