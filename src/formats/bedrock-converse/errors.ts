/**
 * Bedrock's error bodies are `{message}` (some add `__type`); the HTTP status says the kind
 * (429 ThrottlingException, 503 ServiceUnavailableException, 403 AccessDenied / UnrecognizedClient /
 * InvalidSignature, 400 ValidationException) and upstream/http-error.ts maps it into the
 * catalogue. A ConverseStream reports errors as exception frames (event-stream.ts names them).
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */

import { upstreamStatusError, type GatewayError } from '../../core/errors.js';
import { isObject } from '../../core/json.js';
import { boundText, redactSecrets } from '../../observe/redact.js';

/** Exception names → the status they mean (a frame has no HTTP status; a body's `__type` may say more). */
const STATUS_BY_EXCEPTION: Readonly<Record<string, number>> = {
  throttlingexception: 429,
  servicequotaexceededexception: 429,
  serviceunavailableexception: 503,
  // AWS answers 429 for a model that is still loading; it is unavailable, not a quota.
  modelnotreadyexception: 503,
  internalserverexception: 500,
  modelstreamerrorexception: 502,
  modeltimeoutexception: 504,
  modelerrorexception: 502,
  validationexception: 400,
  resourcenotfoundexception: 404,
  accessdeniedexception: 403,
  unrecognizedclientexception: 403,
  invalidsignatureexception: 403,
  expiredtokenexception: 403,
};

export function bedrockErrorMessage(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const message = typeof body.message === 'string' ? body.message : body.Message;
  if (typeof message !== 'string') return undefined;
  const type = exceptionName(body.__type);
  return type ? `${message} (${type})` : message;
}

/** The status a body's `__type` means, when it names an exception (ModelNotReady's 429 is a 503). */
export function bedrockErrorStatus(status: number, body: unknown): number {
  const type = isObject(body) ? exceptionName(body.__type) : undefined;
  return (type && STATUS_BY_EXCEPTION[type.toLowerCase()]) || status;
}

/** An exception frame of a stream → the catalogue error its type means (502 for one it does not know). */
export function bedrockStreamError(type: string, payload: unknown): GatewayError {
  const status = STATUS_BY_EXCEPTION[type.toLowerCase()] ?? 502;
  const message = bedrockErrorMessage(payload);
  const detail = message ? `: ${boundText(redactSecrets(message), 4000)}` : '';
  return upstreamStatusError(`The upstream reported ${type} during the stream${detail}`, status);
}

/** `com.amazon.coral.service#ThrottlingException` or `ThrottlingException:` → `ThrottlingException`. */
function exceptionName(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const name = raw.slice(raw.lastIndexOf('#') + 1).split(':')[0];
  return name || undefined;
}
