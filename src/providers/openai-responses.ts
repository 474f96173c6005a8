import type { HttpProviderKind } from './types.js';

/**
 * OpenAI's Responses API (`POST /responses`): Responses callers pass through, chat and messages
 * callers are translated. Its token counter takes a Responses body.
 */
export const openaiResponsesProvider: HttpProviderKind = {
  api: 'openai-responses',
  speaks: 'openai-responses',
  chatPath: '/responses',
  // OpenAI's own API: its embeddings endpoint sits next to /responses.
  embeddingsPath: '/embeddings',
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
  countTokensPath: '/responses/input_tokens',
  healthPath: '/models',
  // 16 is the smallest max_output_tokens the API accepts; store: false leaves nothing behind.
  probeBody: (model) => ({ model, input: 'ping', max_output_tokens: 16, store: false }),
};
