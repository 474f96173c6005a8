import type { ProviderConfig } from '../config/types.js';
import { isObject } from '../core/json.js';
import type { HttpProviderKind } from './types.js';
import { forgetVertexToken, vertexToken } from './vertex-token.js';

/**
 * Gemini models on Google Cloud's Vertex AI: the Gemini API's format (reused as it is) at
 * `…/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent`
 * (the base URL ends at the location: config/normalise.ts), streams at
 * `:streamGenerateContent?alt=sse`. Auth is a Google Cloud access token (vertex-token.ts), so no
 * caller's key (BYOK) can stand in for it. Every caller is translated. Token counts are the
 * model's `:countTokens`, which takes the request's fields at the top (not the Gemini API's
 * `generateContentRequest`) and answers `totalTokens`.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference
 * @see https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.publishers.models/countTokens
 */
export const vertexProvider: HttpProviderKind = {
  api: 'vertex',
  speaks: 'gemini',
  chatPath: ':generateContent',
  streamPath: ':streamGenerateContent?alt=sse',
  countTokensPath: ':countTokens',
  editCountBody: vertexCountBody,
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

/** What Vertex's countTokens takes of a request (it has no `toolConfig`; its `model` is in the URL). */
const VERTEX_COUNTED = ['contents', 'systemInstruction', 'tools'];

/** The Gemini API's `{generateContentRequest: {…}}` → Vertex's body, the counted fields at the top. */
function vertexCountBody(body: Buffer): Buffer {
  const parsed: unknown = JSON.parse(body.toString('utf8'));
  const request = isObject(parsed) && isObject(parsed.generateContentRequest) ? parsed.generateContentRequest : {};
  const out: Record<string, unknown> = {};
  for (const f of VERTEX_COUNTED) if (request[f] !== undefined) out[f] = request[f];
  return Buffer.from(JSON.stringify(out));
}

/** A bearer token for the provider's Google Cloud credentials (`vertex` and `vertex-anthropic`). */
export async function vertexAuthHeaders(
  _apiKey: string | undefined,
  provider: ProviderConfig,
): Promise<Record<string, string>> {
  if (!provider.vertex) return {};
  return { authorization: `Bearer ${await vertexToken(provider, provider.vertex)}` };
}
