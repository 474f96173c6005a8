import type { HttpProviderKind } from './types.js';

/** Any OpenAI-compatible server: OpenAI, Azure-compatible proxies, Ollama, vLLM, llama.cpp, Groq… */
export const openaiProvider: HttpProviderKind = {
  api: 'openai',
  speaks: 'openai-chat',
  chatPath: '/chat/completions',
  embeddingsPath: '/embeddings',
  healthPath: '/models',
  // max_completion_tokens, as pass-through sends: reasoning models refuse max_tokens.
  probeBody: (model) => ({ model, messages: [{ role: 'user', content: 'ping' }], max_completion_tokens: 1 }),
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
};
