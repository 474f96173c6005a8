import type { EnvelopeId, UpstreamFormatId, WireFormatId } from '../core/canonical.js';
import { bedrockConverse } from './bedrock-converse/index.js';
import { anthropicMessages } from './anthropic-messages/index.js';
import { bedrockInvoke } from './bedrock-invoke/index.js';
import { gemini } from './gemini/index.js';
import { openaiChat } from './openai-chat/index.js';
import { openaiResponses } from './openai-responses/index.js';
import type { Envelope, UpstreamFormat, WireFormat } from './types.js';

export const WIRE_FORMATS: Readonly<Partial<Record<WireFormatId, WireFormat>>> = {
  'openai-chat': openaiChat,
  'anthropic-messages': anthropicMessages,
  'openai-responses': openaiResponses,
};

/** Every format an upstream may speak: the caller formats, and those only upstreams speak. */
export const UPSTREAM_FORMATS: Readonly<Partial<Record<UpstreamFormatId, UpstreamFormat>>> = {
  ...WIRE_FORMATS,
  gemini,
  'bedrock-converse': bedrockConverse,
};

/** The envelopes a provider kind may name (`envelope`): how its API wraps the format it speaks. */
export const ENVELOPES: Readonly<Record<EnvelopeId, Envelope>> = {
  'bedrock-invoke': bedrockInvoke,
};
