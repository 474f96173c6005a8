import { spliceTopLevel } from '../core/json-splice.js';
import { NO_BETAS, platformBetas, platformBody, VERTEX_CLAUDE, VERTEX_CLAUDE_COUNT } from './claude-platform.js';
import { vertexAuthHeaders, vertexProvider } from './vertex.js';
import type { HttpProviderKind } from './types.js';

/** What Vertex AI takes in the body instead of Anthropic's `anthropic-version` header. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';
const COUNT_PATH = '/publishers/anthropic/models/count-tokens:rawPredict';

/**
 * Claude models on Vertex AI: Anthropic's messages format at
 * `…/publishers/anthropic/models/{model}:rawPredict` (`:streamRawPredict` for a stream; the body's
 * `stream` says which it answers). The body's edits from Anthropic's: no `model` (it is in the URL),
 * `anthropic_version: "vertex-2023-10-16"`, and only the fields Vertex takes, as the betas in the
 * header (claude-platform.ts: Vertex refuses any other with a 400; the rest is dropped and listed);
 * messages callers otherwise pass through, others are translated. Auth as `vertex`
 * (vertex-token.ts). Token counts are Vertex's `count-tokens:rawPredict`, a publisher-level path
 * whose body is Anthropic's count_tokens body with its `model` kept (the URL names none), plus
 * `anthropic_version` as the SDK sends it, and no betas (VERTEX_CLAUDE_COUNT).
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/count-tokens
 */
export const vertexAnthropicProvider: HttpProviderKind = {
  api: 'vertex-anthropic',
  speaks: 'anthropic-messages',
  chatPath: ':rawPredict',
  streamPath: ':streamRawPredict',
  countTokensPath: COUNT_PATH,
  editCountBody(body, caller, callerFormat, edit) {
    const betas =
      callerFormat === 'anthropic-messages' ? platformBetas(VERTEX_CLAUDE_COUNT, caller, undefined) : NO_BETAS;
    return spliceTopLevel(
      platformBody(VERTEX_CLAUDE_COUNT, body, betas, [], edit.dropped),
      {},
      { anthropic_version: JSON.stringify(VERTEX_ANTHROPIC_VERSION) },
    );
  },
  healthPath: vertexProvider.healthPath,
  probeBody: () => ({
    anthropic_version: VERTEX_ANTHROPIC_VERSION,
    max_tokens: 1,
    messages: [{ role: 'user', content: 'ping' }],
  }),
  authHeaders: vertexAuthHeaders,
  credentialRejected: vertexProvider.credentialRejected,
  // Vertex takes Anthropic's beta features in the same header: those it knows (editBody lists the rest);
  // its count takes none.
  forwardHeaders(caller, callerFormat, provider, path): Record<string, string> {
    if (callerFormat !== 'anthropic-messages' || path === COUNT_PATH) return {};
    const { kept } = platformBetas(VERTEX_CLAUDE, caller, provider.anthropicBetas);
    return kept.length > 0 ? { 'anthropic-beta': kept.join(',') } : {};
  },
  editBody(body, caller, callerFormat, edit) {
    const betas =
      callerFormat === 'anthropic-messages'
        ? platformBetas(VERTEX_CLAUDE, caller, edit.provider.anthropicBetas)
        : NO_BETAS;
    edit.dropped.push(...betas.dropped);
    return spliceTopLevel(
      platformBody(VERTEX_CLAUDE, body, betas, ['model'], edit.dropped),
      {},
      { anthropic_version: JSON.stringify(VERTEX_ANTHROPIC_VERSION) },
    );
  },
  // A model's methods (`:rawPredict`…) follow its path; Claude's Vertex ids carry a version after `@`
  // (claude-sonnet-4-5@20250929), written as is. The count path names its own resource.
  pathFor: (path, _provider, model) =>
    model && path.startsWith(':')
      ? `/publishers/anthropic/models/${encodeURIComponent(model.upstreamName).replace(/%40/g, '@')}${path}`
      : path,
};
