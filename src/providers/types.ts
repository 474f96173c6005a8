import type { IncomingHttpHeaders } from 'node:http';
import type { ModelSpec, ProviderApi, ProviderConfig } from '../config/types.js';
import type { EnvelopeId, UpstreamFormatId } from '../core/canonical.js';

/** A request as it will be sent, for a kind that signs it: every other header is already set. */
export interface OutgoingRequest {
  method: 'GET' | 'POST';
  /** The full URL (base_url and path). */
  url: string;
  headers: Readonly<Record<string, string>>;
  body?: Buffer;
}

/** A provider kind is data plus tiny functions; adding one is one file and a registry line. */
export interface HttpProviderKind {
  api: Exclude<ProviderApi, 'mock'>;
  speaks: UpstreamFormatId;
  /**
   * How the kind's API wraps that format, when it does (formats/registry.ts, ENVELOPES): Bedrock's
   * InvokeModel streams, errors and token counts around Anthropic's bodies.
   */
  envelope?: EnvelopeId;
  /** Path of the chat endpoint, appended to the provider's base_url (after `pathFor`). */
  chatPath: string;
  /** Path of the chat endpoint for a stream, when it is not chatPath (Gemini's streamGenerateContent). */
  streamPath?: string;
  /**
   * How the credential is sent; a promise for kinds that fetch a token first (Azure with Entra ID)
   * or sign the request itself (`request`: what goes out, for Bedrock's SigV4; every sender of a
   * kind that signs passes it).
   */
  authHeaders(
    apiKey: string | undefined,
    provider: ProviderConfig,
    request?: OutgoingRequest,
  ): Record<string, string> | Promise<Record<string, string>>;
  /**
   * Path of a GET that costs no tokens (a model list), appended to base_url (after `pathFor`):
   * `gateway providers` checks reachability and credentials with it.
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
  /**
   * Where one of this kind's paths lives, for kinds whose URL names the model (Azure's deployments,
   * its api-version); without a model, a path of the resource (the model list). Without it, as is.
   */
  pathFor?(path: string, provider: ProviderConfig, model?: ModelSpec): string;
  /**
   * Edits this kind makes to every chat body after its format's (pass-through or translated): Claude
   * on Vertex takes no `model` (it is in the URL) and an `anthropic_version` in the body. `caller`:
   * the caller's headers, of `callerFormat` (Bedrock takes Anthropic's beta header in the body).
   */
  editBody?(body: Buffer, caller: IncomingHttpHeaders, callerFormat: UpstreamFormatId): Buffer;
  /** The provider refused the credential sent (401): a kind that holds a token drops it. */
  credentialRejected?(provider: ProviderConfig): void;
  /** A clearer message for an upstream error body than its format's own, when the kind has one. */
  errorMessage?(body: unknown): string | undefined;
  /** Path of the token-counting endpoint, for kinds that have one. */
  countTokensPath?: string;
  /**
   * Edits this kind makes to a token-counting body after its format's (pass-through or made from the
   * request), when its endpoint takes another shape: Vertex's countTokens, Claude's count-tokens on Vertex,
   * Claude's InvokeModel body on Bedrock (before its envelope's CountTokens wraps it). `caller` and
   * `callerFormat` as for `editBody`.
   */
  editCountBody?(body: Buffer, caller: IncomingHttpHeaders, callerFormat: UpstreamFormatId): Buffer;
  /**
   * Path of an OpenAI-format embeddings endpoint, for kinds that have one (config/semantic.ts,
   * EMBEDDING_APIS, lists them for check-config).
   */
  embeddingsPath?: string;
}

/** The URL path (after base_url) of one of a kind's endpoints, for a model or for the resource. */
export function upstreamPath(
  kind: HttpProviderKind,
  path: string,
  provider: ProviderConfig,
  model?: ModelSpec,
): string {
  return kind.pathFor ? kind.pathFor(path, provider, model) : path;
}
