/**
 * Google's Gemini API (Generative Language API) format: an upstream format only (no caller
 * endpoint speaks it), reached from chat, messages and Responses callers through the canonical
 * model.
 * @see https://ai.google.dev/api/generate-content
 */

import type { UpstreamFormat } from '../types.js';
import { geminiErrorMessage, geminiRetryDelayMs } from './errors.js';
import { encodeGeminiRequest } from './request-encode.js';
import { decodeGeminiResponse } from './response.js';
import { decodeGeminiStream } from './stream-decode.js';

export { geminiErrorMessage, geminiRetryDelayMs, geminiStreamError } from './errors.js';
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
};
