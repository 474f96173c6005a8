import type { HttpProviderKind } from './types.js';

/** The version sent when the caller did not name one (the caller's own value is passed on). */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/** Anthropic's Messages API. @see https://docs.anthropic.com/en/api/messages */
export const anthropicProvider: HttpProviderKind = {
  api: 'anthropic',
  speaks: 'anthropic-messages',
  chatPath: '/v1/messages',
  countTokensPath: '/v1/messages/count_tokens',
  healthPath: '/v1/models',
  probeBody: (model) => ({ model, max_tokens: 1, messages: [{ role: 'user', content: 'ping' }] }),
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { 'x-api-key': apiKey } : {}),
  forwardHeaders(caller, callerFormat) {
    const version = callerFormat === 'anthropic-messages' ? caller['anthropic-version'] : undefined;
    const beta = callerFormat === 'anthropic-messages' ? caller['anthropic-beta'] : undefined;
    const out: Record<string, string> = {
      'anthropic-version': typeof version === 'string' && version ? version : DEFAULT_ANTHROPIC_VERSION,
    };
    if (typeof beta === 'string' && beta) out['anthropic-beta'] = beta;
    else if (Array.isArray(beta) && beta.length > 0) out['anthropic-beta'] = beta.join(',');
    return out;
  },
};
