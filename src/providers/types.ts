import type { IncomingHttpHeaders } from 'node:http';
import type { ProviderApi } from '../config/types.js';
import type { UpstreamFormatId } from '../core/canonical.js';

/** A provider kind is data plus tiny functions; adding one is one file and a registry line. */
export interface HttpProviderKind {
  api: Exclude<ProviderApi, 'mock'>;
  speaks: UpstreamFormatId;
  /**
   * Path of the chat endpoint for one model, appended to the provider's base_url (a kind that
   * names the model in the path, as Gemini does, has one per model and per stream or not).
   */
  chatPath(model: string, stream: boolean): string;
  authHeaders(apiKey: string | undefined): Record<string, string>;
  /**
   * Path of a GET that costs no tokens (a model list), appended to base_url: `gateway providers`
   * checks reachability and credentials with it.
   */
  healthPath: string;
  /**
   * The smallest generation request of this kind (one output token where the API allows it), for
   * `gateway providers --probe`.
   */
  probeBody(model: string): Record<string, unknown>;
  /**
   * Caller headers this kind passes on (e.g. `anthropic-version`), given the caller's format (the
   * kind's own when there is no caller: `gateway providers`).
   */
  forwardHeaders?(caller: IncomingHttpHeaders, callerFormat: UpstreamFormatId): Record<string, string>;
  /** Path of the token-counting endpoint for one model, for kinds that have one. */
  countTokensPath?(model: string): string;
  /**
   * Path of an OpenAI-format embeddings endpoint, for kinds that have one (config/semantic.ts,
   * EMBEDDING_APIS, lists them for check-config).
   */
  embeddingsPath?: string;
}
