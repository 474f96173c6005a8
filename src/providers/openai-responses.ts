import type { HttpProviderKind } from './types.js';

/**
 * OpenAI's Responses API (`POST /responses`): Responses callers pass through, chat and messages
 * callers are translated. Its token counter takes a Responses body.
 */
export const openaiResponsesProvider: HttpProviderKind = {
  api: 'openai-responses',
  speaks: 'openai-responses',
  chatPath: () => '/responses',
  // OpenAI's own API: its embeddings endpoint sits next to /responses.
  embeddingsPath: '/embeddings',
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
  countTokensPath: () => '/responses/input_tokens',
};
