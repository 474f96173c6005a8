import type { ProviderConfig } from '../config/types.js';
import type { HttpProviderKind } from './types.js';
import { forgetVertexToken, vertexToken } from './vertex-token.js';

/**
 * Gemini models on Google Cloud's Vertex AI: the Gemini API's format (reused as it is) at
 * `…/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent`
 * (the base URL ends at the location: config/normalise.ts), streams at
 * `:streamGenerateContent?alt=sse`. Auth is a Google Cloud access token (vertex-token.ts), so no
 * caller's key (BYOK) can stand in for it. Every caller is translated. Token counts are local.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference
 */
export const vertexProvider: HttpProviderKind = {
  api: 'vertex',
  speaks: 'gemini',
  chatPath: ':generateContent',
  streamPath: ':streamGenerateContent?alt=sse',
  // The project's models in the location (the Model Registry list): costs nothing, needs the token.
  healthPath: '/models?pageSize=1',
  probeBody: () => ({
    contents: [{ role: 'user', parts: [{ text: 'ping' }] }],
    generationConfig: { maxOutputTokens: 1 },
  }),
  authHeaders: vertexAuthHeaders,
  credentialRejected: (provider) => {
    if (provider.vertex) forgetVertexToken(provider.vertex);
  },
  pathFor: (path, _provider, model) =>
    model ? `/publishers/google/models/${encodeURIComponent(model.upstreamName)}${path}` : path,
};

/** A bearer token for the provider's Google Cloud credentials (`vertex` and `vertex-anthropic`). */
export async function vertexAuthHeaders(
  _apiKey: string | undefined,
  provider: ProviderConfig,
): Promise<Record<string, string>> {
  if (!provider.vertex) return {};
  return { authorization: `Bearer ${await vertexToken(provider, provider.vertex)}` };
}
