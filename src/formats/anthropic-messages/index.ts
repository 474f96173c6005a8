/**
 * The Anthropic Messages wire format (`POST /v1/messages`).
 * @see https://docs.anthropic.com/en/api/messages
 */

import type { WireFormat } from '../types.js';
import { anthropicErrorBody, anthropicErrorMessage, anthropicStreamError } from './errors.js';
import { anthropicPassThrough } from './pass-through.js';
import { decodeAnthropicRequest } from './request-decode.js';
import { encodeAnthropicRequest } from './request-encode.js';
import { plainAnswer } from './plain-answer.js';
import { decodeAnthropicResponse, encodeAnthropicResponse } from './response.js';
import { decodeAnthropicStream } from './stream-decode.js';
import { AnthropicStreamEncoder } from './stream-encode.js';
import { estimateInputTokens } from './usage.js';

export { anthropicErrorBody, anthropicErrorMessage, anthropicStreamError, upstreamStreamError } from './errors.js';
export { anthropicPassThrough } from './pass-through.js';
export { decodeAnthropicRequest } from './request-decode.js';
export { DEFAULT_MAX_TOKENS, EFFORT_BUDGET_TOKENS, encodeAnthropicRequest } from './request-encode.js';
export { anthropicMessageId, decodeAnthropicResponse, encodeAnthropicResponse } from './response.js';
export {
  anthropicStopReason,
  fromAnthropicStopReason,
  toAnthropicStopReason,
  type AnthropicStopReason,
} from './stop-reason.js';
export { decodeAnthropicStream } from './stream-decode.js';
export { AnthropicStreamEncoder } from './stream-encode.js';
export { partialUsageFromAnthropic, usageFromAnthropic, usageToAnthropic } from './usage.js';

export const anthropicMessages: WireFormat = {
  id: 'anthropic-messages',
  decodeRequest: decodeAnthropicRequest,
  encodeRequest: encodeAnthropicRequest,
  decodeResponse: decodeAnthropicResponse,
  decodePlainResponse: plainAnswer,
  encodeResponse: encodeAnthropicResponse,
  decodeStream: decodeAnthropicStream,
  streamEncoder: (req) => new AnthropicStreamEncoder(req.model, () => estimateInputTokens(req)),
  renderError: anthropicErrorBody,
  streamError: anthropicStreamError,
  errorMessage: anthropicErrorMessage,
  passThrough: anthropicPassThrough,
};
