import type { WireFormat } from '../types.js';
import { decodeOpenaiStream } from './stream-decode.js';
import { encodeOpenaiRequest } from './request-encode.js';
import { openaiErrorBody, openaiErrorMessage, openaiStreamError } from './errors.js';
import { openaiPassThrough } from './pass-through.js';
import { decodeOpenaiRequest } from './request-decode.js';
import { plainAnswer } from './plain-answer.js';
import { decodeOpenaiResponse, encodeOpenaiResponse } from './response.js';
import { OpenaiStreamEncoder } from './stream-encode.js';

/** The OpenAI chat-completions wire format. @see https://platform.openai.com/docs/api-reference/chat */
export const openaiChat: WireFormat = {
  id: 'openai-chat',
  decodeRequest: decodeOpenaiRequest,
  encodeRequest: encodeOpenaiRequest,
  decodeResponse: decodeOpenaiResponse,
  decodePlainResponse: plainAnswer,
  encodeResponse: encodeOpenaiResponse,
  decodeStream: decodeOpenaiStream,
  streamEncoder: (req) => new OpenaiStreamEncoder({ includeUsage: req.includeUsage }),
  renderError: openaiErrorBody,
  streamError: openaiStreamError,
  errorMessage: openaiErrorMessage,
  passThrough: { ...openaiPassThrough, errorMessage: openaiErrorMessage },
};
