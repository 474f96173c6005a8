/**
 * Google's Gemini API (Generative Language API) format: an upstream format only (no caller
 * endpoint speaks it), reached from chat, messages and Responses callers through the canonical
 * model.
 * @see https://ai.google.dev/api/generate-content
 */

import type { UpstreamFormat } from '../types.js';
import { geminiCountTokens } from './count-tokens.js';
import { geminiErrorMessage, geminiErrorStatus, geminiRetryDelayMs } from './errors.js';
import { encodeGeminiRequest } from './request-encode.js';
import { decodeGeminiResponse } from './response.js';
import { decodeGeminiStream } from './stream-decode.js';

export { geminiCountTokens } from './count-tokens.js';
export { geminiErrorMessage, geminiErrorStatus, geminiRetryDelayMs, geminiStreamError } from './errors.js';
export { encodeGeminiRequest } from './request-encode.js';
export { decodeGeminiResponse } from './response.js';
export { decodeGeminiStream } from './stream-decode.js';
export { usageFromGemini } from './usage.js';

export const gemini: UpstreamFormat = {
  id: 'gemini',
  encodeRequest: encodeGeminiRequest,
  decodeResponse: decodeGeminiResponse,
  decodeStream: decodeGeminiStream,
  errorMessage: geminiErrorMessage,
  retryDelayMs: geminiRetryDelayMs,
  errorStatus: geminiErrorStatus,
  countTokens: geminiCountTokens,
};
