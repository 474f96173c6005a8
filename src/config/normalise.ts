import { dirname, join } from 'node:path';
/**
 * Snake-case YAML data (schema-valid, interpolated, cross-checked) → the frozen GatewayConfig.
 * Only called when there are no errors, so the shape can be trusted here; defaults live here
 * (and are mirrored as `default` annotations in schema/gateway.schema.json for editors).
 */
import { arr, entries, keyDigest, obj, parseBodyLimit, splitId, str } from './raw-data.js';
import type {
  AliasConfig,
  AzureSettings,
  BedrockSettings,
  BudgetConfig,
  BudgetScope,
  CooldownPolicy,
  FailureMatch,
  GatewayConfig,
  GuardrailConfig,
  KeyConfig,
  LimitScope,
  ModelKind,
  ModelSpec,
  ProviderApi,
  ProviderConfig,
  RateLimitConfig,
  RoleConfig,
  RoutingPolicy,
  ObservabilityConfig,
  StateConfig,
  Timeouts,
  VertexSettings,
} from './types.js';

/** USD per 1,000 web searches on Anthropic-format models without `price.web_search`. */
const DEFAULT_WEB_SEARCH_USD_PER_1K = 10;

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 4000,
  bodyLimitBytes: 4 * 1024 * 1024,
  shutdownGraceMs: 10_000,
  headersTimeoutMs: 30_000,
  bodyReadTimeoutMs: 30_000,
  requestTimeoutMs: 120_000,
  timeouts: { connectMs: 10_000, firstByteMs: 60_000, totalMs: 600_000 },
  anthropicBaseUrl: 'https://api.anthropic.com',
  openaiResponsesBaseUrl: 'https://api.openai.com/v1',
  geminiBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  entraAuthorityHost: 'https://login.microsoftonline.com',
  webhookTimeoutMs: 2000,
  webhookOnError: 'fail_closed',
  routing: {
    maxAttempts: 5,
    retry: { maxRetries: 1, initialBackoffMs: 250, maxBackoffMs: 4000, maxRetryAfterMs: 20_000 },
    retryOn: ['connect', 'timeout', 429, '5xx'],
    fallbackOn: ['connect', 'timeout', 429, '5xx', 'auth'],
  } satisfies RoutingPolicy,
  cooldown: { failures: 3, windowMs: 30_000, cooldownMs: 30_000 } satisfies CooldownPolicy,
} as const;

type Obj = Record<string, unknown>;
const num = (v: unknown, d: number): number => (typeof v === 'number' ? v : d);

function normaliseTimeouts(raw: unknown, base: Timeouts): Timeouts {
  const t = obj(raw) ?? {};
  return {
    connectMs: num(t.connect_ms, base.connectMs),
    firstByteMs: num(t.first_byte_ms, base.firstByteMs),
    totalMs: num(t.total_ms, base.totalMs),
  };
}

function normaliseCooldown(raw: unknown, base: CooldownPolicy): CooldownPolicy {
  const c = obj(raw) ?? {};
  return {
    failures: num(c.failures, base.failures),
    windowMs: num(c.window_ms, base.windowMs),
    cooldownMs: num(c.cooldown_ms, base.cooldownMs),
  };
}

/** `routing:` at the top level, or an alias's overrides of it (same snake_case fields). */
function normaliseRouting(raw: Obj, base: RoutingPolicy): RoutingPolicy {
  const r = obj(raw.retry) ?? {};
  const list = (v: unknown, d: readonly FailureMatch[]) => (Array.isArray(v) ? (v as FailureMatch[]) : d);
  return {
    maxAttempts: num(raw.max_attempts, base.maxAttempts),
    retry: {
      maxRetries: num(r.max_retries, base.retry.maxRetries),
      initialBackoffMs: num(r.initial_backoff_ms, base.retry.initialBackoffMs),
      maxBackoffMs: num(r.max_backoff_ms, base.retry.maxBackoffMs),
      maxRetryAfterMs: num(r.max_retry_after_ms, base.retry.maxRetryAfterMs),
    },
    retryOn: list(raw.retry_on, base.retryOn),
    fallbackOn: list(raw.fallback_on, base.fallbackOn),
  };
}

function normaliseProvider(
  id: string,
  p: Obj,
  unavailable: Map<string, string>,
  cooldown: CooldownPolicy,
): ProviderConfig {
  const api = p.api as ProviderApi;
  const timeouts = normaliseTimeouts(p.timeouts, DEFAULTS.timeouts);
  const models = new Map<string, ModelSpec>();
  for (const [name, raw] of entries(p.models)) {
    const m = raw as Obj;
    const price = obj(m.price);
    models.set(name, {
      id: `${id}/${name}`,
      provider: id,
      name,
      upstreamName: str(m.upstream_name) ?? name,
      kind: (str(m.kind) ?? 'chat') as ModelKind,
      ...(typeof m.dimensions === 'number' ? { dimensions: m.dimensions } : {}),
      contextWindow: m.context_window as number,
      timeouts: normaliseTimeouts(m.timeouts, timeouts),
      ...(typeof m.max_output_tokens === 'number' ? { maxOutputTokens: m.max_output_tokens } : {}),
      ...(typeof m.reasoning === 'boolean' ? { reasoning: m.reasoning } : {}),
      ...(price
        ? {
            price: {
              input: price.input as number,
              // Embedding models have no output to price.
              output: typeof price.output === 'number' ? price.output : 0,
              ...(typeof price.cache_read === 'number' ? { cacheRead: price.cache_read } : {}),
              ...(typeof price.cache_write === 'number' ? { cacheWrite: price.cache_write } : {}),
              // Anthropic's list price for web search, unless configured.
              ...(typeof price.web_search === 'number'
                ? { webSearch: price.web_search }
                : api === 'anthropic'
                  ? { webSearch: DEFAULT_WEB_SEARCH_USD_PER_1K }
                  : {}),
            },
          }
        : {}),
    });
  }
  const baseUrl =
    api === 'vertex' || api === 'vertex-anthropic' ? vertexBaseUrl(p) : (str(p.base_url) ?? defaultBaseUrl(api, p));
  // Azure's Responses API is OpenAI's paths under /openai/v1 of the resource.
  const azureV1 = api === 'azure-openai-responses' && baseUrl !== undefined ? '/openai/v1' : '';
  const reason = unavailable.get(id);
  const apiKey = reason === undefined ? str(p.api_key) : undefined;
  const mock = obj(p.mock) ?? {};
  return {
    id,
    api,
    ...(baseUrl !== undefined ? { baseUrl: baseUrl.replace(/\/+$/, '') + azureV1 } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    available: reason === undefined,
    ...(reason !== undefined ? { unavailableReason: reason } : {}),
    timeouts,
    headers: { ...((obj(p.headers) ?? {}) as Record<string, string>) },
    byok: (str(p.byok) ?? 'never') as ProviderConfig['byok'],
    cooldown: normaliseCooldown(p.cooldown, cooldown),
    ...(api === 'mock'
      ? { mock: { latencyMs: num(mock.latency_ms, 0), chunkDelayMs: num(mock.chunk_delay_ms, 0) } }
      : {}),
    ...(api === 'azure-openai' || api === 'azure-openai-responses' ? { azure: normaliseAzure(p) } : {}),
    ...(api === 'bedrock' || api === 'bedrock-anthropic' ? { bedrock: normaliseBedrock(p) } : {}),
    ...(api === 'vertex' || api === 'vertex-anthropic' ? { vertex: normaliseVertex(p) } : {}),
    models,
  };
}

/** A kind's endpoint when base_url is not given: its public API, or the one its resource or region names. */
function defaultBaseUrl(api: string, p: Obj): string | undefined {
  if (api === 'anthropic') return DEFAULTS.anthropicBaseUrl;
  if (api === 'openai-responses') return DEFAULTS.openaiResponsesBaseUrl;
  if (api === 'gemini') return DEFAULTS.geminiBaseUrl;
  if ((api === 'bedrock' || api === 'bedrock-anthropic') && typeof p.region === 'string')
    return `https://bedrock-runtime.${p.region}.amazonaws.com`;
  return typeof p.resource === 'string' ? `https://${p.resource}.openai.azure.com` : undefined;
}

function normaliseBedrock(p: Obj): BedrockSettings {
  const aws = obj(p.aws);
  const sessionToken = str(aws?.session_token);
  return {
    region: String(p.region),
    auth: p.api_key !== undefined ? 'api-key' : 'sigv4',
    ...(aws
      ? {
          credentials: {
            accessKeyId: String(aws.access_key_id),
            secretAccessKey: String(aws.secret_access_key),
            ...(sessionToken ? { sessionToken } : {}),
          },
        }
      : {}),
  };
}

function normaliseVertex(p: Obj): VertexSettings {
  const v = obj(p.vertex) ?? {};
  const file = str(v.credentials_file);
  return {
    project: v.project as string,
    location: v.location as string,
    ...(file !== undefined ? { credentialsFile: file } : {}),
  };
}

/**
 * The project's location on Vertex AI: `https://{location}-aiplatform.googleapis.com` (the global
 * location has no prefix), or the configured base_url as that origin, then
 * `/v1/projects/{project}/locations/{location}`.
 */
function vertexBaseUrl(p: Obj): string {
  const { project, location } = normaliseVertex(p);
  const host = location === 'global' ? 'aiplatform.googleapis.com' : `${location}-aiplatform.googleapis.com`;
  const origin = (str(p.base_url) ?? `https://${host}`).replace(/\/+$/, '');
  return `${origin}/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}`;
}

function normaliseAzure(p: Obj): AzureSettings {
  const entra = obj(p.entra);
  const apiVersion = str(p.api_version);
  return {
    style: p.style === 'v1' ? 'v1' : 'deployment',
    ...(apiVersion !== undefined ? { apiVersion } : {}),
    ...(entra
      ? {
          entra: {
            tenantId: entra.tenant_id as string,
            clientId: entra.client_id as string,
            clientSecret: entra.client_secret as string,
            authorityHost: (str(entra.authority_host) ?? DEFAULTS.entraAuthorityHost).replace(/\/+$/, ''),
          },
        }
      : {}),
  };
}

function normaliseScope(s: Obj): LimitScope {
  if (typeof s.model === 'string') return { kind: 'model', model: s.model };
  if (typeof s.key === 'string') return { kind: 'key', key: s.key };
  if (typeof s.role === 'string') return { kind: 'role', role: s.role };
  if (typeof s.each_key_of_role === 'string') return { kind: 'each_key_of_role', role: s.each_key_of_role };
  return { kind: 'global' };
}

/** Check settings in camelCase with their defaults applied. */
function normaliseCheck(c: Obj): GuardrailConfig['check'] {
  switch (c.type) {
    case 'regex':
      return { type: 'regex', pattern: c.pattern, flags: str(c.flags) ?? '' };
    case 'keywords':
      return { type: 'keywords', words: [...arr(c.words)], caseSensitive: c.case_sensitive === true };
    case 'detectors':
      return { type: 'detectors', detectors: [...arr(c.detectors)] };
    case 'max_input_tokens':
      return { type: 'max_input_tokens', limit: c.limit };
    case 'webhook':
      return {
        type: 'webhook',
        url: c.url,
        timeoutMs: num(c.timeout_ms, DEFAULTS.webhookTimeoutMs),
        onError: str(c.on_error) ?? DEFAULTS.webhookOnError,
      };
    default:
      return { ...c, type: String(c.type) };
  }
}

/** `absolutePath`: where the file was read from, when it was (locates the default state file). */
export function normalise(
  data: Obj,
  source: string,
  unavailable: Map<string, string>,
  absolutePath?: string,
): GatewayConfig {
  const server = obj(data.server) ?? {};
  const routingRaw = obj(data.routing) ?? {};
  const routing = normaliseRouting(routingRaw, DEFAULTS.routing);
  const cooldown = normaliseCooldown(routingRaw.cooldown, DEFAULTS.cooldown);
  const providers = new Map<string, ProviderConfig>();
  const models = new Map<string, ModelSpec>();
  for (const [id, p] of entries(data.providers)) {
    const pc = normaliseProvider(id, p as Obj, unavailable, cooldown);
    providers.set(id, pc);
    for (const m of pc.models.values()) models.set(m.id, m);
  }

  const aliases = new Map<string, AliasConfig>();
  for (const [id, raw] of entries(data.aliases)) {
    const a = raw as Obj;
    const [namespace, name] = splitId(id);
    const targets = arr(a.targets).map((t) => ({
      model: typeof t === 'string' ? t : String((t as Obj).model),
      weight: num(obj(t)?.weight, 1),
    }));
    aliases.set(id, {
      id,
      namespace,
      name,
      strategy: (str(a.strategy) ?? 'weighted') as AliasConfig['strategy'],
      targets,
      fallbacks: arr(a.fallbacks).map(String),
      routing: normaliseRouting(a, routing),
      byokFallback: (str(a.byok_fallback) ?? 'same_provider') as AliasConfig['byokFallback'],
    });
  }

  const roles = new Map<string, RoleConfig>();
  for (const [id, r] of entries(data.roles)) {
    const o = r as Obj;
    roles.set(id, {
      id,
      models: arr(o.models).map(String),
      serverTools: o.server_tools === 'deny' ? 'deny' : 'allow',
      mcpServers: o.mcp_servers === 'allow' ? 'allow' : 'deny',
    });
  }

  const keys: KeyConfig[] = arr(data.keys).map((raw) => {
    const k = raw as Obj;
    return { id: String(k.id), role: String(k.role), sha256: keyDigest(String(k.key)) as Buffer };
  });

  const budgets: BudgetConfig[] = arr(data.budgets).map((raw) => {
    const b = raw as Obj;
    return {
      id: String(b.id),
      scope: normaliseScope(obj(b.scope) ?? {}) as BudgetScope,
      limitUsd: b.limit_usd as number,
      period: b.period as BudgetConfig['period'],
      mode: (str(b.mode) ?? 'enforce') as BudgetConfig['mode'],
      timezone: str(b.timezone) ?? 'UTC',
    };
  });

  const rateLimits: RateLimitConfig[] = arr(data.rate_limits).map((raw) => {
    const r = raw as Obj;
    return {
      id: String(r.id),
      scope: normaliseScope(obj(r.scope) ?? {}),
      ...(typeof r.requests_per_minute === 'number' ? { requestsPerMinute: r.requests_per_minute } : {}),
      ...(typeof r.tokens_per_minute === 'number' ? { tokensPerMinute: r.tokens_per_minute } : {}),
      ...(typeof r.max_concurrent === 'number' ? { maxConcurrent: r.max_concurrent } : {}),
    };
  });

  const st = obj(data.state) ?? {};
  const store = (str(st.store) ?? 'memory') as StateConfig['store'];
  const statePath =
    store === 'memory' && st.persist !== false ? (str(st.path) ?? defaultStatePath(absolutePath)) : undefined;
  const state: StateConfig = {
    store,
    ...(statePath !== undefined ? { path: statePath } : {}),
    flushMs: num(st.flush_ms, 1000),
    ...(typeof st.url === 'string' ? { url: st.url } : {}),
    keyPrefix: str(st.key_prefix) ?? 'gateway:',
    responsesTtlMs: num(st.responses_ttl_hours, 720) * 3_600_000,
    onUnavailable: (str(st.on_unavailable) ?? 'fail_closed') as StateConfig['onUnavailable'],
  };

  const ob = obj(data.observability) ?? {};
  const log = obj(ob.log) ?? {};
  const metrics = obj(ob.metrics) ?? {};
  const traces = obj(ob.traces);
  const observability: ObservabilityConfig = {
    log: {
      level: (str(log.level) ?? 'info') as ObservabilityConfig['log']['level'],
      format: (str(log.format) ?? 'auto') as ObservabilityConfig['log']['format'],
      ...(typeof log.file === 'string' ? { file: log.file } : {}),
      includePrompts: log.include_prompts === true,
    },
    metrics: {
      // Off unless there is a way to protect it (check-config refuses `enabled: true` without one).
      enabled:
        typeof metrics.enabled === 'boolean'
          ? metrics.enabled
          : typeof metrics.admin_key === 'string' || typeof metrics.port === 'number',
      ...(typeof metrics.admin_key === 'string' ? { adminKey: metrics.admin_key } : {}),
      ...(typeof metrics.port === 'number' ? { port: metrics.port } : {}),
    },
    ...(traces && typeof traces.otlp_endpoint === 'string'
      ? {
          traces: {
            otlpEndpoint: traces.otlp_endpoint,
            serviceName: str(traces.service_name) ?? 'gateway',
            headers: { ...((obj(traces.headers) ?? {}) as Record<string, string>) },
          },
        }
      : {}),
  };

  const guardrails: GuardrailConfig[] = arr(data.guardrails).map((raw) => {
    const g = raw as Obj;
    const m = obj(g.match) ?? {};
    const match: GuardrailConfig['match'] = {
      ...(m.roles ? { roles: arr(m.roles).map(String) } : {}),
      ...(m.keys ? { keys: arr(m.keys).map(String) } : {}),
      ...(m.models ? { models: arr(m.models).map(String) } : {}),
    };
    return {
      id: String(g.id),
      appliesTo: (str(g.applies_to) ?? 'both') as GuardrailConfig['appliesTo'],
      match,
      check: normaliseCheck(obj(g.check) ?? {}),
      action: g.action as GuardrailConfig['action'],
    };
  });

  return deepFreeze({
    source,
    server: {
      host: str(server.host) ?? DEFAULTS.host,
      port: num(server.port, DEFAULTS.port),
      bodyLimitBytes:
        server.body_limit === undefined
          ? DEFAULTS.bodyLimitBytes
          : parseBodyLimit(server.body_limit as string | number),
      shutdownGraceMs: num(server.shutdown_grace_ms, DEFAULTS.shutdownGraceMs),
      headersTimeoutMs: num(server.headers_timeout_ms, DEFAULTS.headersTimeoutMs),
      bodyReadTimeoutMs: num(server.body_read_timeout_ms, DEFAULTS.bodyReadTimeoutMs),
      requestTimeoutMs: num(server.request_timeout_ms, DEFAULTS.requestTimeoutMs),
    },
    providers,
    models,
    aliases,
    roles,
    keys,
    routing,
    budgets,
    rateLimits,
    state,
    observability,
    guardrails,
  });
}

/**
 * The embedded store's default file: `.gateway-state.json` next to the config file. A config
 * given as text (tests, embedding) has no file: state then stays in memory unless `state.path` is set.
 */
function defaultStatePath(absolutePath: string | undefined): string | undefined {
  return absolutePath === undefined ? undefined : join(dirname(absolutePath), '.gateway-state.json');
}

/**
 * Freezes plain objects, arrays and Maps (the Map objects themselves and their values). A frozen
 * Map can still be `set` at runtime; its ReadonlyMap type is what keeps callers from doing so.
 * Buffers cannot be frozen (typed arrays with elements throw) and are left as they are.
 */
export function deepFreeze<T>(v: T, seen = new Set<unknown>()): T {
  if (v === null || typeof v !== 'object' || seen.has(v) || Buffer.isBuffer(v)) return v;
  seen.add(v);
  if (v instanceof Map) {
    for (const [k, x] of v) {
      deepFreeze(k, seen);
      deepFreeze(x, seen);
    }
  } else {
    for (const x of Object.values(v)) deepFreeze(x, seen);
  }
  return Object.freeze(v);
}
