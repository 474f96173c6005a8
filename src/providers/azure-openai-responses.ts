import { azureAuthHeaders, contentFilterMessage, forgetAzureToken } from './azure-openai.js';
import type { HttpProviderKind } from './types.js';

/**
 * Azure OpenAI's Responses API: OpenAI's Responses paths under `/openai/v1` of the resource (the
 * base URL ends there, config/normalise.ts), the deployment in the body's `model`. Responses
 * callers pass through, chat and messages callers are translated; stored responses are read and
 * deleted at the same paths. Auth and the content filter as for `azure-openai`.
 */
export const azureOpenaiResponsesProvider: HttpProviderKind = {
  api: 'azure-openai-responses',
  speaks: 'openai-responses',
  chatPath: '/responses',
  embeddingsPath: '/embeddings',
  healthPath: '/models',
  // As for openai-responses: 16 is the smallest max_output_tokens the API accepts.
  probeBody: (model) => ({ model, input: 'ping', max_output_tokens: 16, store: false }),
  authHeaders: azureAuthHeaders,
  credentialRejected: forgetAzureToken,
  errorMessage: contentFilterMessage,
};
