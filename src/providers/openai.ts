import type { HttpProviderKind } from './types.js';

/** Any OpenAI-compatible server: OpenAI, Azure-compatible proxies, Ollama, vLLM, llama.cpp, Groq… */
export const openaiProvider: HttpProviderKind = {
  api: 'openai',
  speaks: 'openai-chat',
  chatPath: () => '/chat/completions',
  embeddingsPath: '/embeddings',
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
};
