/**
 * Bedrock's InvokeModel API as an envelope around Anthropic's messages format (api:
 * bedrock-anthropic): the bodies are Anthropic's (the kind's edits aside), the streams AWS
 * event-stream chunks (stream.ts), the errors AWS exceptions mapped as for Converse
 * (bedrock-converse/errors.ts), the token count CountTokens (count-tokens.ts).
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html
 */

import { bedrockErrorMessage, bedrockErrorStatus } from '../bedrock-converse/index.js';
import type { Envelope } from '../types.js';
import { countTokensAnswer, countTokensBody, countUnsupported } from './count-tokens.js';
import { invokeStreamToSse } from './stream.js';

export const bedrockInvoke: Envelope = {
  id: 'bedrock-invoke',
  streamMediaType: 'application/vnd.amazon.eventstream',
  unwrapStream: invokeStreamToSse,
  errorMessage: bedrockErrorMessage,
  errorStatus: bedrockErrorStatus,
  countTokens: { body: countTokensBody, inputTokens: countTokensAnswer, unsupported: countUnsupported },
};
