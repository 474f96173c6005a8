import type { ProviderApi } from '../config/types.js';
import { anthropicProvider } from './anthropic.js';
import { bedrockProvider } from './bedrock.js';
import { bedrockAnthropicProvider } from './bedrock-anthropic.js';
import { geminiProvider } from './gemini.js';
import { azureOpenaiProvider } from './azure-openai.js';
import { azureOpenaiResponsesProvider } from './azure-openai-responses.js';
import { openaiProvider } from './openai.js';
import { openaiResponsesProvider } from './openai-responses.js';
import type { HttpProviderKind } from './types.js';
import { vertexProvider } from './vertex.js';
import { vertexAnthropicProvider } from './vertex-anthropic.js';

/** HTTP provider kinds by `api`. `mock` is in-process (providers/mock.ts) and not listed here. */
export const HTTP_PROVIDERS: Readonly<Partial<Record<ProviderApi, HttpProviderKind>>> = {
  openai: openaiProvider,
  'openai-responses': openaiResponsesProvider,
  anthropic: anthropicProvider,
  gemini: geminiProvider,
  bedrock: bedrockProvider,
  'bedrock-anthropic': bedrockAnthropicProvider,
  'azure-openai': azureOpenaiProvider,
  'azure-openai-responses': azureOpenaiResponsesProvider,
  vertex: vertexProvider,
  'vertex-anthropic': vertexAnthropicProvider,
};
