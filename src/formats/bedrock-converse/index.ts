/**
 * AWS Bedrock's Converse API: an upstream format only (no caller endpoint speaks it), reached
 * from chat, messages and Responses callers through the canonical model. Streams
 * (ConverseStream) come in AWS event-stream framing, turned into messages by event-stream.ts
 * before decodeStream sees them. Token counts come from CountTokens (count-tokens.ts).
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */

import type { UpstreamFormat } from '../types.js';
import { bedrockCountTokens } from './count-tokens.js';
import { bedrockErrorMessage, bedrockErrorStatus } from './errors.js';
import { decodeEventStream } from './event-stream.js';
import { encodeBedrockRequest } from './request-encode.js';
import { decodeBedrockResponse } from './response.js';
import { decodeBedrockStream } from './stream-decode.js';

export { bedrockCountTokens } from './count-tokens.js';
export { decodeEventStream } from './event-stream.js';
export { bedrockErrorMessage, bedrockErrorStatus, bedrockStreamError } from './errors.js';
export { encodeBedrockRequest } from './request-encode.js';
export { decodeBedrockResponse } from './response.js';
export { decodeBedrockStream } from './stream-decode.js';
export { usageFromBedrock } from './usage.js';

export const bedrockConverse: UpstreamFormat = {
  id: 'bedrock-converse',
  encodeRequest: encodeBedrockRequest,
  decodeResponse: decodeBedrockResponse,
  decodeStream: decodeBedrockStream,
  errorMessage: bedrockErrorMessage,
  errorStatus: bedrockErrorStatus,
  streamFraming: { mediaType: 'application/vnd.amazon.eventstream', decode: decodeEventStream },
  countTokens: bedrockCountTokens,
};
