import type { WireFormatId } from '../core/canonical.js';
import { openaiChat } from './openai-chat/index.js';
import type { WireFormat } from './types.js';

export const WIRE_FORMATS: Readonly<Partial<Record<WireFormatId, WireFormat>>> = {
  'openai-chat': openaiChat,
};
