import type { HttpProviderKind } from './types.js';

/**
 * Google's Gemini API (Generative Language API): the model is in the path (`models/{model}`
 * before each model endpoint), streams are `streamGenerateContent?alt=sse`, the key goes in
 * `x-goog-api-key` (one string, so BYOK works). Every caller is translated (no caller speaks
 * Gemini). Its token counter is `countTokens`.
 * @see https://ai.google.dev/api/generate-content
 */
export const geminiProvider: HttpProviderKind = {
  api: 'gemini',
  speaks: 'gemini',
  chatPath: ':generateContent',
  streamPath: ':streamGenerateContent?alt=sse',
  countTokensPath: ':countTokens',
  healthPath: '/models',
  probeBody: () => ({
    contents: [{ role: 'user', parts: [{ text: 'ping' }] }],
    generationConfig: { maxOutputTokens: 1 },
  }),
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { 'x-goog-api-key': apiKey } : {}),
  // A model's endpoints are `/models/{model}:{method}`; without a model, the resource's path (the model list).
  pathFor: (path, _provider, model) => (model ? `${modelPath(model.upstreamName)}${path}` : path),
};

/** `/models/{model}`: a name given with its `models/` prefix is not prefixed twice; the rest is escaped. */
function modelPath(model: string): string {
  return `/models/${encodeURIComponent(model.replace(/^models\//, ''))}`;
}
