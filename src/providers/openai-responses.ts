import type { HttpProviderKind } from './types.js';

/**
 * OpenAI's Responses API (`POST /responses`): Responses callers pass through, chat and messages
 * callers are translated. Its token counter takes a Responses body.
 */
export const openaiResponsesProvider: HttpProviderKind = {
  api: 'openai-responses',
  speaks: 'openai-responses',
  chatPath: '/responses',
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
  countTokensPath: '/responses/input_tokens',
};
