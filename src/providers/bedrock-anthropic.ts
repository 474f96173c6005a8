import type { IncomingHttpHeaders } from 'node:http';
import type { UpstreamFormatId } from '../core/canonical.js';
import { removeTopLevel, spliceTopLevel } from '../core/json-splice.js';
import { bedrockProvider } from './bedrock.js';
import type { HttpProviderKind } from './types.js';

/** What Bedrock takes in the body instead of Anthropic's `anthropic-version` header. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/**
 * Claude models on AWS Bedrock through InvokeModel: Anthropic's messages format at
 * `/model/{modelId}/invoke` (`/invoke-with-response-stream` for a stream, in AWS event-stream
 * chunks: the `bedrock-invoke` envelope unwraps them into Anthropic's SSE). The body's edits from
 * Anthropic's: no `model` (it is in the URL), no `stream` (the path says it), `anthropic_version:
 * "bedrock-2023-05-31"` first, and the caller's `anthropic-beta` header as the `anthropic_beta`
 * array; messages callers otherwise pass through, others are translated, then edited the same way.
 * SigV4 signs the edited body as sent. Region, auth, config and the health check are the `bedrock`
 * kind's; count_tokens is Bedrock's CountTokens (local for a model it does not support).
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html
 */
export const bedrockAnthropicProvider: HttpProviderKind = {
  api: 'bedrock-anthropic',
  speaks: 'anthropic-messages',
  envelope: 'bedrock-invoke',
  chatPath: '/invoke',
  streamPath: '/invoke-with-response-stream',
  countTokensPath: '/count-tokens',
  healthPath: bedrockProvider.healthPath,
  probeBody: () => ({
    anthropic_version: BEDROCK_ANTHROPIC_VERSION,
    max_tokens: 1,
    messages: [{ role: 'user', content: 'ping' }],
  }),
  authHeaders: bedrockProvider.authHeaders,
  pathFor: bedrockProvider.pathFor,
  editBody: bedrockBody,
  // CountTokens counts the body InvokeModel would take (the bedrock-invoke envelope wraps it).
  editCountBody: bedrockBody,
};

function bedrockBody(body: Buffer, caller: IncomingHttpHeaders, callerFormat: UpstreamFormatId): Buffer {
  const betas = callerFormat === 'anthropic-messages' ? betaValues(caller) : [];
  return spliceTopLevel(
    removeTopLevel(body, ['model', 'stream']),
    {},
    {
      anthropic_version: JSON.stringify(BEDROCK_ANTHROPIC_VERSION),
      ...(betas.length > 0 ? { anthropic_beta: JSON.stringify(betas) } : {}),
    },
  );
}

/** `anthropic-beta: a,b` (or the header repeated) → ['a', 'b']. */
function betaValues(headers: IncomingHttpHeaders): string[] {
  const v = headers['anthropic-beta'];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v.join(',') : v)
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0);
}
