import { removeTopLevel, spliceTopLevel } from '../core/json-splice.js';
import { vertexAuthHeaders, vertexProvider } from './vertex.js';
import type { HttpProviderKind } from './types.js';

/** What Vertex AI takes in the body instead of Anthropic's `anthropic-version` header. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/**
 * Claude models on Vertex AI: Anthropic's messages format at
 * `…/publishers/anthropic/models/{model}:rawPredict` (`:streamRawPredict` for a stream; the body's
 * `stream` says which it answers). The body has exactly two edits from Anthropic's: no `model` (it
 * is in the URL) and `anthropic_version: "vertex-2023-10-16"`; messages callers otherwise pass
 * through, others are translated. Auth as `vertex` (vertex-token.ts). Token counts are Vertex's
 * `count-tokens:rawPredict`, a publisher-level path whose body is Anthropic's count_tokens body with
 * its `model` kept (the URL names none), plus `anthropic_version` as the SDK sends it.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/count-tokens
 */
export const vertexAnthropicProvider: HttpProviderKind = {
  api: 'vertex-anthropic',
  speaks: 'anthropic-messages',
  chatPath: ':rawPredict',
  streamPath: ':streamRawPredict',
  countTokensPath: '/publishers/anthropic/models/count-tokens:rawPredict',
  editCountBody: (body) => spliceTopLevel(body, {}, { anthropic_version: JSON.stringify(VERTEX_ANTHROPIC_VERSION) }),
  healthPath: vertexProvider.healthPath,
  probeBody: () => ({
    anthropic_version: VERTEX_ANTHROPIC_VERSION,
    max_tokens: 1,
    messages: [{ role: 'user', content: 'ping' }],
  }),
  authHeaders: vertexAuthHeaders,
  credentialRejected: vertexProvider.credentialRejected,
  // Vertex takes Anthropic's beta features in the same header.
  forwardHeaders(caller, callerFormat): Record<string, string> {
    const beta = callerFormat === 'anthropic-messages' ? caller['anthropic-beta'] : undefined;
    if (typeof beta === 'string' && beta) return { 'anthropic-beta': beta };
    if (Array.isArray(beta) && beta.length > 0) return { 'anthropic-beta': beta.join(',') };
    return {};
  },
  editBody: (body) =>
    spliceTopLevel(
      removeTopLevel(body, ['model']),
      {},
      { anthropic_version: JSON.stringify(VERTEX_ANTHROPIC_VERSION) },
    ),
  // A model's methods (`:rawPredict`…) follow its path; Claude's Vertex ids carry a version after `@`
  // (claude-sonnet-4-5@20250929), written as is. The count path names its own resource.
  pathFor: (path, _provider, model) =>
    model && path.startsWith(':')
      ? `/publishers/anthropic/models/${encodeURIComponent(model.upstreamName).replace(/%40/g, '@')}${path}`
      : path,
};
