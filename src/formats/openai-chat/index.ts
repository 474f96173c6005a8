import type { WireFormat } from '../types.js';
import { openaiErrorBody, openaiErrorMessage, openaiStreamError } from './errors.js';
import { openaiPassThrough } from './pass-through.js';
import { decodeOpenaiRequest } from './request.js';
import { encodeOpenaiResponse } from './response.js';
import { encodeOpenaiStream } from './stream.js';

export const openaiChat: WireFormat = {
  id: 'openai-chat',
  decodeRequest: decodeOpenaiRequest,
  encodeResponse: encodeOpenaiResponse,
  encodeStream: (events, req) => encodeOpenaiStream(events, { includeUsage: req.includeUsage }),
  renderError: openaiErrorBody,
  streamError: openaiStreamError,
  passThrough: { ...openaiPassThrough, errorMessage: openaiErrorMessage },
};
