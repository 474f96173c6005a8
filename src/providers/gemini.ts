import type { HttpProviderKind } from './types.js';

/**
 * Google's Gemini API (Generative Language API): the model is in the path, streams are
 * `streamGenerateContent?alt=sse`, the key goes in `x-goog-api-key` (one string, so BYOK works).
 * Every caller is translated (no caller speaks Gemini). Its token counter is `countTokens`.
 * @see https://ai.google.dev/api/generate-content
 */
export const geminiProvider: HttpProviderKind = {
  api: 'gemini',
  speaks: 'gemini',
  chatPath: (model, stream) => `${modelPath(model)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
  countTokensPath: (model) => `${modelPath(model)}:countTokens`,
  healthPath: '/models',
  probeBody: () => ({
    contents: [{ role: 'user', parts: [{ text: 'ping' }] }],
    generationConfig: { maxOutputTokens: 1 },
  }),
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { 'x-goog-api-key': apiKey } : {}),
};

/** `/models/{model}`: a name given with its `models/` prefix is not prefixed twice; the rest is escaped. */
function modelPath(model: string): string {
  return `/models/${encodeURIComponent(model.replace(/^models\//, ''))}`;
}
