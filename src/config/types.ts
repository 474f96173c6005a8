/**
 * The normalised, frozen configuration: the only shape the rest of src/ sees.
 * Produced by config/load.ts from YAML (validated by ajv, interpolated, cross-checked).
 */

export type ProviderApi =
  | 'openai'
  | 'openai-responses'
  | 'anthropic'
  | 'azure-openai'
  | 'azure-openai-responses'
  | 'gemini'
  | 'bedrock'
  | 'bedrock-anthropic'
  | 'vertex'
  | 'vertex-anthropic'
  | 'mock';

/** What a model serves: chat (`/v1/chat/completions`, `/v1/messages`) or embeddings (`/v1/embeddings`). */
export type ModelKind = 'chat' | 'embedding';

/** USD per million tokens. */
export interface Price {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** USD per 1,000 web search requests (a server tool, reported in usage). */
  webSearch?: number;
}

export interface ModelSpec {
  /** Concrete id `<provider>/<name>` as callers write it. */
  id: string;
  provider: string;
  /** The model name as written in the config (the part after `<provider>/`). */
  name: string;
  /** The name sent upstream in `model` (defaults to `name`). */
  upstreamName: string;
  kind: ModelKind;
  /** An embedding model's default vector size, when configured (informational; the mock uses it). */
  dimensions?: number;
  contextWindow: number;
  maxOutputTokens?: number;
  /**
   * Whether the model reasons (takes reasoning_effort / thinking), when configured; translation
   * guesses from the name otherwise.
   */
  reasoning?: boolean;
  price?: Price;
  /** The provider's timeouts with this model's overrides applied. */
  timeouts: Timeouts;
}

export interface Timeouts {
  connectMs: number;
  /** Until response headers (and, for streams, the first event) arrive. */
  firstByteMs: number;
  /** Whole exchange, body included. */
  totalMs: number;
}

export interface MockSettings {
  /** Delay before the first byte. */
  latencyMs: number;
  /** Delay between stream chunks. */
  chunkDelayMs: number;
}

/**
 * An Azure OpenAI resource. A model's `upstream_name` is its deployment name: in the URL in the
 * deployment style, in the body's `model` in the v1 style.
 */
export interface AzureSettings {
  /**
   * `deployment`: `/openai/deployments/{deployment}/…?api-version=…`; `v1`: `/openai/v1/…` (always,
   * for `azure-openai-responses`, whose base URL then ends in `/openai/v1`).
   */
  style: 'deployment' | 'v1';
  /** Required in the deployment style, absent in v1. */
  apiVersion?: string;
  /** A service principal's client credentials: a bearer token instead of the `api-key` header. */
  entra?: EntraCredentials;
}

export interface EntraCredentials {
  tenantId: string;
  clientId: string;
  /** Secret: never logged. */
  clientSecret: string;
  /** Origin of the token endpoint (default `https://login.microsoftonline.com`). */
  authorityHost: string;
}

/**
 * An AWS Bedrock provider: its region, and how it signs in. With a Bedrock API key (`api_key`,
 * a bearer token) there are no `credentials`; otherwise requests are SigV4-signed with the
 * configured ones, or, when none are configured, the AWS_* environment variables at signing time.
 */
export interface BedrockSettings {
  region: string;
  auth: 'api-key' | 'sigv4';
  /** Secret (the secret key and session token): never logged. */
  credentials?: AwsCredentials;
}

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * Vertex AI: where its models are (`/v1/projects/{project}/locations/{location}` under the
 * location's endpoint) and how the gateway gets an access token.
 */
export interface VertexSettings {
  project: string;
  location: string;
  /** A service-account key file; without it, the environment's application default credentials. */
  credentialsFile?: string;
}

export interface ProviderConfig {
  id: string;
  api: ProviderApi;
  /** Without trailing slash; undefined for `mock`. */
  baseUrl?: string;
  /** Resolved secret; undefined when none is configured or the env var is unset. */
  apiKey?: string;
  /** False when a required setting (usually the api_key env var) is missing. */
  available: boolean;
  unavailableReason?: string;
  timeouts: Timeouts;
  /** Extra headers sent upstream on every request. */
  headers: Readonly<Record<string, string>>;
  byok: 'never' | 'optional' | 'required';
  cooldown: CooldownPolicy;
  mock?: MockSettings;
  /** `api: azure-openai` and `azure-openai-responses` only. */
  azure?: AzureSettings;
  /** `api: bedrock` and `bedrock-anthropic` only. */
  bedrock?: BedrockSettings;
  /** `api: vertex` and `vertex-anthropic` only. */
  vertex?: VertexSettings;
  /** Keyed by model name (the part after `<provider>/`); GatewayConfig.models is keyed by id. */
  models: ReadonlyMap<string, ModelSpec>;
}

/**
 * Which failed attempts lead on (to a retry, or to the next target or fallback): a class or an
 * exact upstream status. `connect`: the provider could not be reached or dropped the connection;
 * `timeout`: connect, first-byte or total timeout; `5xx`: any 500–599 (529 included); `auth`:
 * the provider refused the credential (401/403).
 */
export type FailureMatch = 'connect' | 'timeout' | '5xx' | 'auth' | number;

export interface RetryPolicy {
  /** Retries of the same target after its first attempt. */
  maxRetries: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** A `retry-after` longer than this is not waited for: the request moves on instead. */
  maxRetryAfterMs: number;
}

export interface RoutingPolicy {
  /** Upstream attempts per request at most: retries, targets and fallbacks together. */
  maxAttempts: number;
  retry: RetryPolicy;
  /** Failures that retry the same target (while it has retries left). */
  retryOn: readonly FailureMatch[];
  /** Failures that move on to the next target or fallback. */
  fallbackOn: readonly FailureMatch[];
}

/** Circuit breaker for one target (a concrete model), or a provider's credential. */
export interface CooldownPolicy {
  /** Failures within `windowMs` that open the circuit. */
  failures: number;
  windowMs: number;
  /** How long an open circuit skips the target before one probe request is let through. */
  cooldownMs: number;
}

export interface AliasTarget {
  /** A concrete model id `<provider>/<name>`. */
  model: string;
  weight: number;
}

export interface AliasConfig {
  /** `<namespace>/<name>` */
  id: string;
  namespace: string;
  name: string;
  strategy: 'weighted' | 'ordered';
  targets: readonly AliasTarget[];
  /** Concrete model ids or other alias ids, tried in order after the targets. */
  fallbacks: readonly string[];
  /** The global routing policy with this alias's overrides applied. */
  routing: RoutingPolicy;
  /**
   * With a caller's provider key (BYOK): `same_provider` keeps every attempt on providers that
   * key belongs to; `configured_keys` may also fall back to other providers with their configured keys.
   */
  byokFallback: 'same_provider' | 'configured_keys';
}

export interface RoleConfig {
  id: string;
  /** Patterns: `*`, `<ns-or-provider>/*`, or an exact model/alias id. */
  models: readonly string[];
  /** Anthropic server tools (web search, web fetch, code execution: run on the gateway's account). Default allow. */
  serverTools: 'allow' | 'deny';
  /** Anthropic `mcp_servers` (the gateway's account connecting to arbitrary remote servers). Default deny. */
  mcpServers: 'allow' | 'deny';
}

export interface KeyConfig {
  id: string;
  role: string;
  /** sha256 digest of the key (32 bytes); plain keys are hashed at load time. */
  sha256: Buffer;
}

export type BudgetScope =
  | { kind: 'global' }
  | { kind: 'key'; key: string }
  | { kind: 'role'; role: string }
  | { kind: 'each_key_of_role'; role: string };

export type LimitScope = BudgetScope | { kind: 'model'; model: string };

export interface RateLimitConfig {
  id: string;
  scope: LimitScope;
  requestsPerMinute?: number;
  tokensPerMinute?: number;
  maxConcurrent?: number;
}

export interface StateConfig {
  store: 'memory' | 'redis';
  /** memory: the state file; undefined keeps state in memory only. */
  path?: string;
  flushMs: number;
  /** redis: connection URL (may hold a password: never print it). */
  url?: string;
  keyPrefix: string;
  /** How long stored Responses conversations are kept (state.responses_ttl_hours). */
  responsesTtlMs: number;
  onUnavailable: 'fail_closed' | 'fail_open';
}

export interface ObservabilityConfig {
  log: {
    level: 'debug' | 'info' | 'warn' | 'error';
    format: 'auto' | 'json' | 'pretty';
    file?: string;
    includePrompts: boolean;
  };
  /** Enabled only with an admin key (main port) or a port of its own: /metrics is never public by default. */
  metrics: { enabled: boolean; adminKey?: string; port?: number };
  /** Undefined: traces off. */
  traces?: { otlpEndpoint: string; serviceName: string; headers: Readonly<Record<string, string>> };
}

export interface BudgetConfig {
  id: string;
  scope: BudgetScope;
  limitUsd: number;
  period: 'day' | 'week' | 'month' | 'total';
  mode: 'enforce' | 'warn';
  timezone: string;
}

export interface GuardrailConfig {
  id: string;
  appliesTo: 'input' | 'output' | 'both';
  match: { roles?: readonly string[]; keys?: readonly string[]; models?: readonly string[] };
  check: Readonly<Record<string, unknown>> & { type: string };
  action: 'block' | 'redact' | 'log';
}

export interface ServerConfig {
  host: string;
  port: number;
  bodyLimitBytes: number;
  shutdownGraceMs: number;
  /** All request headers must arrive within this (Node's headersTimeout; 408 otherwise). */
  headersTimeoutMs: number;
  /** The whole body must arrive within this once reading starts (408 in the caller's format). */
  bodyReadTimeoutMs: number;
  /** Backstop for receiving a whole request (Node's requestTimeout); never limits responses. */
  requestTimeoutMs: number;
}

export interface GatewayConfig {
  /** Path of the file it was loaded from (for messages). */
  source: string;
  server: ServerConfig;
  providers: ReadonlyMap<string, ProviderConfig>;
  /** Every concrete model, keyed by id `<provider>/<name>`. */
  models: ReadonlyMap<string, ModelSpec>;
  aliases: ReadonlyMap<string, AliasConfig>;
  roles: ReadonlyMap<string, RoleConfig>;
  keys: readonly KeyConfig[];
  /** Routing defaults; requests for a concrete model id use these. */
  routing: RoutingPolicy;
  budgets: readonly BudgetConfig[];
  rateLimits: readonly RateLimitConfig[];
  state: StateConfig;
  observability: ObservabilityConfig;
  guardrails: readonly GuardrailConfig[];
}

/** One problem found in a config file, with its position in the YAML text. */
export interface ConfigIssue {
  severity: 'error' | 'warning';
  file: string;
  line: number;
  col: number;
  /** Dotted path with [i] for arrays, e.g. `roles.dev.models[2]`; '' for the root. */
  path: string;
  message: string;
}

export interface LoadResult {
  /** Present when there is no error-severity issue. */
  config?: GatewayConfig;
  issues: ConfigIssue[];
}
