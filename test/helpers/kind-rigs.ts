/**
 * "A model on provider kind K" for the suites that run on every kind (Claude Code's replay, the SDKs on
 * each kind, the cross-format matrix, the security pairs). Each kind reaches THE fake upstream
 * (fake-upstream.ts), scripted with its Content replies, through the front its API needs (fake-azure.ts,
 * fake-vertex.ts) or directly. A rig says which format and path the fake upstream sees, starts the
 * fronts, writes the provider's config and lists the credentials the gateway holds for it.
 * Adding a kind is one entry in KIND_RIGS.
 *
 *   const front = await KIND_RIGS['vertex-anthropic'].start(up, ['claude-sonnet-4-5'])
 *   front.provider({ 'claude-sonnet-4-5': {...} })    the ProviderSpec of gateway-config.ts
 *   front.secrets()                                  the credentials sent to the API, and those only the gateway holds
 *   front.lastCall()                                 the latest API call the front took: path, credential, body
 *   front.close()
 *
 * A suite's checks that depend on the upstream's format branch on `format` (a new format
 * needs its branch there: the matrix's scenarios, the security harness's streams and errors).
 */

import { readFileSync } from 'node:fs';
import { AZURE_API_KEY, AZURE_API_VERSION, ENTRA, type FakeAzure, startFakeAzure } from './fake-azure.js';
import type { FakeUpstream, UpstreamCall, WireFormat } from './fake-upstream.js';
import type { AwsTestCredentials } from './aws-auth.js';
import { AWS_TEST_ACCOUNT } from './bedrock-rules.js';
import { startFakeBedrockInvoke } from './fake-bedrock-invoke.js';
import { startFakeVertex } from './fake-vertex.js';
import type { ModelSpec, ProviderSpec } from './gateway-config.js';

export type KindId =
  | 'bedrock'
  | 'azure-openai'
  | 'azure-openai-responses'
  | 'gemini'
  | 'vertex'
  | 'vertex-anthropic'
  | 'bedrock-anthropic';

/** A kind's fronts, running in front of one fake upstream. */
export interface KindFront {
  /** The provider of this kind serving `models` (their upstream names among the ones the rig was started with). */
  provider(models: Record<string, ModelSpec>, o?: Pick<ProviderSpec, 'timeouts' | 'cooldown'>): ProviderSpec;
  /**
   * `sent`: the credentials the API received so far (a key, the tokens the gateway fetched), which an upstream
   * may echo; `held`: what only the gateway holds (an Entra client secret, a service account's private key).
   */
  secrets(): { sent: string[]; held: string[] };
  /** The latest API call through the front (token requests aside), as the gateway sent it. */
  lastCall(): FrontCall | undefined;
  close(): Promise<void>;
}

export interface FrontCall {
  path: string;
  /** The api-key header, or the bearer token. */
  credential: string | undefined;
  rawBody: string;
}

const bearer = (authorization: string | undefined) => /^Bearer (.+)$/.exec(authorization ?? '')?.[1];

export interface KindRig {
  kind: KindId;
  /** What the fake upstream behind the front is spoken to in: its Content replies are encoded in it. */
  format: WireFormat;
  /** Where count_tokens for a model reaches the fake upstream (the kind's own counter), or absent: counted locally. */
  countPath?(upstreamName: string): string;
  /** The upstream's credential is one string a caller may bring (`byok: optional`). */
  byok: boolean;
  /** An upstream 429's retry-after reaches the gateway through the front (a header, or Google's RetryInfo). */
  retryAfter: boolean;
  /** Upstream error statuses the front answers with another (Bedrock: 529 → 503 ServiceUnavailableException). */
  statuses?: Record<number, number>;
  /**
   * How the front relays a stream: the fake upstream's SSE as written, or re-encoded into the kind's own frames
   * (Bedrock's event stream; raw events that are not JSON cannot be framed, errors become exception frames).
   */
  streams: 'relayed' | 'reframed';
  /** A typical model of the kind (a reasoning one where Claude Code's thinking needs it): its name and spec. */
  model: { name: string; spec: ModelSpec };
  /**
   * What the front receives for a caller body in the upstream's own format (pass-through), sent with these
   * headers: the kind's edits. Absent: the body as sent, the model renamed.
   */
  passThroughBody?(sent: Record<string, unknown>, headers: Record<string, string>): Record<string, unknown>;
  /**
   * Starts the fronts for models with these upstream names (deployments, model ids). `aws`: the credentials a
   * kind that takes a Bedrock API key signs with instead (SigV4), the fake upstream's `aws` account holding them.
   */
  start(up: FakeUpstream, upstreamNames: string[], o?: { aws?: AwsTestCredentials }): Promise<KindFront>;
}

const GEMINI_KEY = 'AIzaKindsRigsGeminiKey00000000000000001';
const PROJECT = 'kinds-project';
const LOCATION = 'us-east5';
const AWS_REGION = 'eu-west-1';
const AWS = {
  accessKeyId: 'AKIAKINDSRIGS0000001',
  secretAccessKey: 'kinds/rig+secret-access-key-000000001',
  sessionToken: 'FwoGZXIvYXdzKINDSRIGSESSIONTOKEN0001',
};

async function azureFront(
  up: FakeUpstream,
  deployments: string[],
  auth: 'api-key' | 'entra',
): Promise<{ azure: FakeAzure } & Pick<KindFront, 'secrets' | 'lastCall' | 'close'>> {
  const azure = await startFakeAzure(up, { auth, deployments });
  return {
    azure,
    secrets: () =>
      auth === 'api-key' ? { sent: [AZURE_API_KEY], held: [] } : { sent: [...azure.tokens], held: [ENTRA.secret] },
    lastCall: () => {
      const c = azure.calls.at(-1);
      if (!c) return undefined;
      const key = c.headers['api-key'];
      return {
        path: c.path,
        credential: typeof key === 'string' ? key : bearer(c.headers.authorization),
        rawBody: c.rawBody,
      };
    },
    close: () => azure.close(),
  };
}

/** Vertex AI with a service-account key file: its Gemini and Claude routes relay to the fake upstream. */
async function vertexFront(up: FakeUpstream, api: 'vertex' | 'vertex-anthropic'): Promise<KindFront> {
  const vertex = await startFakeVertex({
    project: PROJECT,
    location: LOCATION,
    gemini: up.url,
    geminiKey: GEMINI_KEY,
    anthropic: up.url,
  });
  const privateKey = JSON.parse(readFileSync(vertex.keyFile, 'utf8')).private_key as string;
  return {
    provider: (models, o = {}) => ({
      api,
      url: vertex.url,
      settings: { vertex: { project: PROJECT, location: LOCATION, credentials_file: vertex.keyFile } },
      models,
      ...o,
    }),
    secrets: () => ({
      sent: [...new Set(vertex.received.flatMap((c) => bearer(c.authorization) ?? []))],
      held: [privateKey],
    }),
    lastCall: () => {
      const c = vertex.received.at(-1);
      return c && { path: c.path, credential: bearer(c.authorization), rawBody: c.body };
    },
    close: () => vertex.close(),
  };
}

const GEMINI_MODEL = {
  name: 'gemini-2.5-flash',
  spec: { context_window: 1048576, max_output_tokens: 65536 },
};
const geminiCountPath = (model: string) => `/v1beta/models/${model}:countTokens`;

const entraSettings = (authority: string) => ({
  tenant_id: ENTRA.tenant,
  client_id: ENTRA.clientId,
  client_secret: ENTRA.secret,
  authority_host: authority,
});

export const KIND_RIGS: Record<KindId, KindRig> = {
  /**
   * Bedrock's Converse API with a Bedrock API key, or SigV4 with the `aws` credentials given (no front: THE fake
   * upstream speaks it, in its test account).
   */
  bedrock: {
    kind: 'bedrock',
    format: 'bedrock',
    countPath: (id) => `/model/${encodeURIComponent(id)}/count-tokens`,
    byok: true,
    retryAfter: true,
    streams: 'reframed',
    model: {
      name: 'claude-sonnet-4-5',
      spec: {
        context_window: 200000,
        max_output_tokens: 64000,
        upstream_name: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
      },
    },
    async start(up, _, { aws } = {}) {
      const credential = aws
        ? {
            settings: {
              region: AWS_TEST_ACCOUNT.region,
              aws: {
                access_key_id: aws.accessKeyId,
                secret_access_key: aws.secretAccessKey,
                session_token: aws.sessionToken,
              },
            },
          }
        : { api_key: AWS_TEST_ACCOUNT.apiKey, settings: { region: AWS_TEST_ACCOUNT.region } };
      return {
        provider: (models, o = {}) => ({ api: 'bedrock', url: up.url, ...credential, models, ...o }),
        // SigV4: the session token travels, the secret key only signs.
        secrets: () =>
          aws
            ? { sent: aws.sessionToken ? [aws.sessionToken] : [], held: [aws.secretAccessKey] }
            : { sent: [AWS_TEST_ACCOUNT.apiKey], held: [] },
        lastCall: () => {
          const c = up.received.at(-1);
          return c && { path: c.path, credential: bearer(c.headers.authorization), rawBody: c.rawBody };
        },
        close: async () => undefined,
      };
    },
  },
  /** The deployment style with the api-key header. */
  'azure-openai': {
    kind: 'azure-openai',
    format: 'openai',
    byok: true,
    retryAfter: true,
    streams: 'relayed',
    model: { name: 'gpt-5-mini', spec: { context_window: 400000, max_output_tokens: 128000 } },
    async start(up, deployments) {
      const { azure, ...front } = await azureFront(up, deployments, 'api-key');
      return {
        ...front,
        provider: (models, o = {}) => ({
          api: 'azure-openai',
          url: azure.url,
          api_key: AZURE_API_KEY,
          byok: 'optional',
          settings: { api_version: AZURE_API_VERSION },
          models,
          ...o,
        }),
      };
    },
  },
  /** Azure's Responses API (always the v1 URLs), signed in with Entra ID. */
  'azure-openai-responses': {
    kind: 'azure-openai-responses',
    format: 'responses',
    byok: false,
    retryAfter: true,
    streams: 'relayed',
    model: { name: 'gpt-5-codex', spec: { context_window: 400000, max_output_tokens: 128000 } },
    async start(up, deployments) {
      const { azure, ...front } = await azureFront(up, deployments, 'entra');
      return {
        ...front,
        provider: (models, o = {}) => ({
          api: 'azure-openai-responses',
          url: azure.url,
          settings: { entra: entraSettings(azure.url) },
          models,
          ...o,
        }),
      };
    },
  },
  /** The Gemini API with its key (no front: THE fake upstream speaks it). */
  gemini: {
    kind: 'gemini',
    format: 'gemini',
    countPath: geminiCountPath,
    byok: true,
    retryAfter: true,
    streams: 'relayed',
    model: GEMINI_MODEL,
    async start(up) {
      return {
        provider: (models, o = {}) => ({ api: 'gemini', url: up.url, api_key: GEMINI_KEY, models, ...o }),
        secrets: () => ({ sent: [GEMINI_KEY], held: [] }),
        lastCall: () => {
          const c = up.received.at(-1);
          const key = c?.headers['x-goog-api-key'];
          return c && { path: c.path, credential: typeof key === 'string' ? key : undefined, rawBody: c.rawBody };
        },
        close: async () => undefined,
      };
    },
  },
  /** Gemini on Vertex AI, with a service-account key file. */
  vertex: {
    kind: 'vertex',
    format: 'gemini',
    countPath: geminiCountPath,
    byok: false,
    // In the error body (Google's RetryInfo), which the front relays.
    retryAfter: true,
    streams: 'relayed',
    model: GEMINI_MODEL,
    start: (up) => vertexFront(up, 'vertex'),
  },
  /** Claude on Vertex AI, with a service-account key file. */
  'vertex-anthropic': {
    kind: 'vertex-anthropic',
    format: 'anthropic',
    countPath: () => '/v1/messages/count_tokens',
    byok: false,
    retryAfter: false,
    streams: 'relayed',
    model: {
      name: 'claude-sonnet-4-5',
      spec: { context_window: 200000, max_output_tokens: 64000, upstream_name: 'claude-sonnet-4-5@20250929' },
    },
    passThroughBody: ({ model: _, ...rest }) => ({ anthropic_version: 'vertex-2023-10-16', ...rest }),
    start: (up) => vertexFront(up, 'vertex-anthropic'),
  },
  /** Claude on Bedrock through InvokeModel, SigV4-signed with a session's credentials. */
  'bedrock-anthropic': {
    kind: 'bedrock-anthropic',
    format: 'anthropic',
    countPath: () => '/v1/messages/count_tokens',
    byok: false,
    retryAfter: true,
    statuses: { 529: 503 },
    streams: 'reframed',
    model: {
      name: 'claude-sonnet-4-5',
      spec: {
        context_window: 200000,
        max_output_tokens: 64000,
        upstream_name: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
      },
    },
    passThroughBody: ({ model: _, stream: __, ...rest }, headers) => {
      const betas = (headers['anthropic-beta'] ?? '').split(',').flatMap((b) => (b.trim() ? [b.trim()] : []));
      return {
        anthropic_version: 'bedrock-2023-05-31',
        ...(betas.length > 0 ? { anthropic_beta: betas } : {}),
        ...rest,
      };
    },
    async start(up) {
      const bedrock = await startFakeBedrockInvoke({
        region: AWS_REGION,
        credentials: AWS,
        apiKey: 'ABSK-unused-by-this-rig',
        anthropic: up.url,
      });
      return {
        provider: (models, o = {}) => ({
          api: 'bedrock-anthropic',
          url: bedrock.url,
          settings: {
            region: AWS_REGION,
            aws: {
              access_key_id: AWS.accessKeyId,
              secret_access_key: AWS.secretAccessKey,
              session_token: AWS.sessionToken,
            },
          },
          models,
          ...o,
        }),
        // SigV4: the session token travels, the secret key only signs.
        secrets: () => ({ sent: [AWS.sessionToken], held: [AWS.secretAccessKey] }),
        lastCall: () => {
          const c = bedrock.received.at(-1);
          const token = c?.headers['x-amz-security-token'];
          return c && { path: c.path, credential: typeof token === 'string' ? token : undefined, rawBody: c.body };
        },
        close: () => bedrock.close(),
      };
    },
  },
};

/** The kinds, in a stable order, for `describe.each`. */
export const KINDS: KindRig[] = Object.values(KIND_RIGS);

/** The generation calls (chat, messages, responses, generateContent) the fake upstream took in a format. */
export function chatCalls(up: FakeUpstream, format: WireFormat): UpstreamCall[] {
  return up.received.filter((c) => c.format === format && ['chat', 'messages', 'responses'].includes(c.endpoint));
}

/** The name the fake upstream (behind the front) knows a model by. */
export const upstreamNameOf = (name: string, spec: ModelSpec): string => spec.upstream_name ?? name;
