import type { WireFormatId } from '../core/canonical.js';
import { anthropicMessages } from './anthropic-messages/index.js';
import { openaiChat } from './openai-chat/index.js';
import { openaiResponses } from './openai-responses/index.js';
import type { WireFormat } from './types.js';

export const WIRE_FORMATS: Readonly<Partial<Record<WireFormatId, WireFormat>>> = {
  'openai-chat': openaiChat,
  'anthropic-messages': anthropicMessages,
  'openai-responses': openaiResponses,
};
