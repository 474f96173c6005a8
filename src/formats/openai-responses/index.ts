/**
 * The OpenAI Responses wire format (`POST /v1/responses`).
 * @see https://platform.openai.com/docs/api-reference/responses
 */

import type { WireFormat } from '../types.js';
import { responsesErrorBody, responsesErrorMessage, responsesStreamError } from './errors.js';
import { responsesPassThrough } from './pass-through.js';
import { ResponsesStreamWatch } from './stream-watch.js';
import { decodeResponsesRequest } from './request-decode.js';
import { encodeResponsesRequest } from './request-encode.js';
import { decodeResponsesResponse, encodeResponsesResponse } from './response.js';
import { decodeResponsesStream } from './stream-decode.js';
import { ResponsesStreamEncoder } from './stream-encode.js';

export const openaiResponses: WireFormat = {
  id: 'openai-responses',
  decodeRequest: decodeResponsesRequest,
  encodeRequest: encodeResponsesRequest,
  decodeResponse: decodeResponsesResponse,
  encodeResponse: encodeResponsesResponse,
  decodeStream: decodeResponsesStream,
  streamEncoder: (req) => new ResponsesStreamEncoder(req),
  renderError: responsesErrorBody,
  // A relayed stream's error continues the upstream's numbering (the SDKs and the order expect no gap).
  streamError: (err, relayed) =>
    responsesStreamError(err, relayed instanceof ResponsesStreamWatch ? relayed.nextSequenceNumber : 0),
  errorMessage: responsesErrorMessage,
  passThrough: { ...responsesPassThrough, errorMessage: responsesErrorMessage },
};
