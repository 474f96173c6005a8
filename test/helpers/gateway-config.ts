/**
 * Gateway configs for the tests, from one typed spec (gatewayYaml), and the named setups the
 * suites share: providers pointing at the fake upstream (fake-upstream.ts), models, aliases,
 * roles, keys, budgets. Objects are written as YAML flow mappings (JSON); a string where the type
 * allows one is inline YAML, written as given (`retry: { max_retries: 0 }`). `extra` is YAML
 * appended after the generated sections (guardrails, limits, … or budgets written by hand).
 */

type Yaml = string;
type Obj = Record<string, unknown>;

export interface ModelSpec {
  context_window: number;
  max_output_tokens?: number;
  upstream_name?: string;
  kind?: 'chat' | 'embedding';
  dimensions?: number;
  /** `output` is required on chat models (embedding models have no output to price). */
  price?: { input: number; output?: number; cache_read?: number; cache_write?: number };
  timeouts?: Obj | Yaml;
}

export interface ProviderSpec {
  api:
    | 'openai'
    | 'openai-responses'
    | 'anthropic'
    | 'gemini'
    | 'azure-openai'
    | 'azure-openai-responses'
    | 'vertex'
    | 'vertex-anthropic'
    | 'bedrock'
    | 'bedrock-anthropic'
    | 'mock';
  /**
   * The upstream's origin; OpenAI providers (both kinds) get `/v1` appended, Gemini `/v1beta`; the Azure,
   * Vertex and Bedrock kinds take it as it is. Not for `mock`.
   */
  url?: string;
  /** The kind's own settings, each written as `key: value` (`api_version`, `style`, `entra`, `vertex`, `aws`…). */
  settings?: Obj;
  /** null: no configured key. */
  api_key?: string | null;
  byok?: 'never' | 'optional' | 'required';
  timeouts?: Obj | Yaml;
  cooldown?: Obj | Yaml;
  models: Record<string, ModelSpec>;
}

export interface GatewaySpec {
  server?: Obj;
  routing?: Obj | Yaml;
  providers: Record<string, ProviderSpec>;
  /** An alias's target list or spec, or YAML lines (indented two spaces) under `aliases:`. */
  aliases?: Record<string, Obj> | Yaml;
  roles: Record<string, { models: string[] }>;
  keys: Array<{ id: string; key: string; role: string }>;
  budgets?: Obj[];
  extra?: Yaml;
}

/** What each kind's `base_url` adds to the upstream's origin (the path its real API sits under). */
const BASE_PATH: Record<ProviderSpec['api'], string> = {
  openai: '/v1',
  'openai-responses': '/v1',
  anthropic: '',
  gemini: '/v1beta',
  'azure-openai': '',
  'azure-openai-responses': '',
  vertex: '',
  'vertex-anthropic': '',
  bedrock: '',
  'bedrock-anthropic': '',
  mock: '',
};

/** An inline YAML string may omit its braces. */
const flow = (v: Obj | Yaml): string =>
  typeof v !== 'string' ? JSON.stringify(v) : v.trim().startsWith('{') ? v : `{ ${v} }`;

export function gatewayYaml(spec: GatewaySpec): string {
  const lines: string[] = [];
  if (spec.server) lines.push(`server: ${flow(spec.server)}`);
  if (spec.routing !== undefined) lines.push(`routing: ${flow(spec.routing)}`);
  lines.push('providers:');
  for (const [id, p] of Object.entries(spec.providers)) {
    lines.push(`  ${id}:`, `    api: ${p.api}`);
    if (p.url !== undefined) lines.push(`    base_url: ${p.url}${BASE_PATH[p.api]}`);
    if (p.api_key !== undefined && p.api_key !== null) lines.push(`    api_key: ${JSON.stringify(p.api_key)}`);
    for (const [k, v] of Object.entries(p.settings ?? {})) lines.push(`    ${k}: ${JSON.stringify(v)}`);
    if (p.byok) lines.push(`    byok: ${p.byok}`);
    if (p.timeouts) lines.push(`    timeouts: ${flow(p.timeouts)}`);
    if (p.cooldown) lines.push(`    cooldown: ${flow(p.cooldown)}`);
    lines.push('    models:');
    for (const [m, spec] of Object.entries(p.models)) {
      const { timeouts, ...rest } = spec;
      const body = JSON.stringify(rest).slice(1, -1);
      lines.push(`      ${m}: {${body}${timeouts ? `, "timeouts": ${flow(timeouts)}` : ''}}`);
    }
  }
  if (typeof spec.aliases === 'string') lines.push('aliases:', spec.aliases);
  else if (spec.aliases) {
    lines.push('aliases:');
    for (const [a, v] of Object.entries(spec.aliases)) lines.push(`  ${a}: ${JSON.stringify(v)}`);
  }
  lines.push('roles:');
  for (const [r, v] of Object.entries(spec.roles)) lines.push(`  ${r}: ${JSON.stringify(v)}`);
  lines.push('keys:');
  for (const k of spec.keys) lines.push(`  - ${JSON.stringify(k)}`);
  if (spec.budgets) lines.push('budgets:', ...spec.budgets.map((b) => `  - ${JSON.stringify(b)}`));
  return `${lines.join('\n')}\n${spec.extra ?? ''}`;
}

/** One upstream call per request, and no circuit opened by scripted failures. */
const ONE_CALL = { retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 } };
const openai = (url: string, api_key: string, timeouts: Obj, models: Record<string, ModelSpec>): ProviderSpec => ({
  api: 'openai',
  url,
  api_key,
  timeouts,
  models,
});
const anthropic = (url: string, api_key: string, timeouts: Obj, models: Record<string, ModelSpec>): ProviderSpec => ({
  api: 'anthropic',
  url,
  api_key,
  timeouts,
  models,
});
const responses = (url: string, api_key: string, timeouts: Obj, models: Record<string, ModelSpec>): ProviderSpec => ({
  api: 'openai-responses',
  url,
  api_key,
  timeouts,
  models,
});
const mock = (models: Record<string, ModelSpec>): ProviderSpec => ({ api: 'mock', models });

// ---------------------------------------------------------------- format tests

export const TEST_KEY = 'test-gateway-key-0001';
export const OTHER_ROLE_KEY = 'test-gateway-key-0002';
export const PROVIDER_SECRET = 'sk-provider-secret-value-123456';

/** An OpenAI-format provider `up`, the mock `local/echo`, a dead provider, an alias and two roles. */
export function formatsGateway(url: string, extra = ''): GatewaySpec {
  return {
    server: { host: '127.0.0.1', port: 0, body_limit: '2kb', shutdown_grace_ms: 2000 },
    routing: ONE_CALL,
    providers: {
      up: openai(
        url,
        PROVIDER_SECRET,
        { connect_ms: 2000, first_byte_ms: 1500, total_ms: 5000 },
        {
          'gpt-test': { context_window: 128000, max_output_tokens: 4096, upstream_name: 'gpt-test-upstream' },
          other: { context_window: 32000 },
        },
      ),
      local: mock({ echo: { context_window: 8192 } }),
      offline: {
        api: 'openai',
        url: 'http://127.0.0.1:9',
        api_key: '${GATEWAY_TEST_UNSET_VAR}',
        models: { m: { context_window: 1000 } },
      },
    },
    aliases: {
      'team/fast': { strategy: 'ordered', targets: [{ model: 'up/gpt-test', weight: 1 }, 'local/echo'] },
      'team/dead': { targets: ['offline/m'] },
    },
    roles: {
      developer: { models: ['team/*', 'local/*', 'up/gpt-test', 'offline/*'] },
      viewer: { models: ['local/echo'] },
    },
    keys: [
      { id: 'dev', key: TEST_KEY, role: 'developer' },
      { id: 'view', key: OTHER_ROLE_KEY, role: 'viewer' },
    ],
    extra,
  };
}

// ---------------------------------------------------------------- translation tests

export const STRICT_KEY = 'strict-gateway-key-0001';

/**
 * One model of each upstream format per kind of model the translation cares about:
 *   ant/claude      Anthropic format, upstream claude-sonnet-4-5 (thinking, native structured output)
 *   ant/old         Anthropic format, upstream claude-3-5-haiku-20241022 (no thinking, no native output format)
 *   oai/gpt         OpenAI format, upstream gpt-4o (no reasoning)
 *   oai/reasoner    OpenAI format, upstream gpt-5-mini (reasoning model: max_completion_tokens, reasoning_effort)
 * Aliases team/claude and team/gpt route to ant/claude and oai/gpt.
 */
export function strictGateway(url: string, extra = ''): GatewaySpec {
  const timeouts = { connect_ms: 5000, first_byte_ms: 10000, total_ms: 20000 };
  return {
    server: { host: '127.0.0.1', port: 0, body_limit: '4mb' },
    routing: ONE_CALL,
    providers: {
      ant: anthropic(url, 'sk-ant-strict-test', timeouts, {
        claude: { context_window: 200000, max_output_tokens: 64000, upstream_name: 'claude-sonnet-4-5' },
        claude46: { context_window: 200000, max_output_tokens: 64000, upstream_name: 'claude-sonnet-4-6' },
        old: { context_window: 200000, max_output_tokens: 8192, upstream_name: 'claude-3-5-haiku-20241022' },
      }),
      oai: openai(url, 'sk-oai-strict-test', timeouts, {
        gpt: { context_window: 128000, max_output_tokens: 16384, upstream_name: 'gpt-4o' },
        reasoner: { context_window: 400000, max_output_tokens: 128000, upstream_name: 'gpt-5-mini' },
      }),
    },
    aliases: { 'team/claude': { targets: ['ant/claude'] }, 'team/gpt': { targets: ['oai/gpt'] } },
    roles: { dev: { models: ['*'] } },
    keys: [{ id: 'dev', key: STRICT_KEY, role: 'dev' }],
    extra,
  };
}

// ---------------------------------------------------------------- conformance tests

export const SCRIPTED_KEY = 'scripted-gateway-key-0001';
export const SCRIPTED_LIMITED_KEY = 'scripted-gateway-key-0002';
export const OAI_SECRET = 'sk-oai-provider-secret-000111';
export const ANT_SECRET = 'sk-ant-provider-secret-000222';
export const RESP_SECRET = 'sk-resp-provider-secret-000333';

/**
 * Three providers on the fake, one per wire format (`oai/m` OpenAI chat, `ant/m` Anthropic, `resp/m`
 * OpenAI Responses), plus the built-in mock (`local/echo`). Role `all` may use everything; role
 * `limited` only `local/*`.
 */
export function scriptedGateway(url: string, opts: { bodyLimit?: string } = {}): GatewaySpec {
  const timeouts = { connect_ms: 2000, first_byte_ms: 3000, total_ms: 10000 };
  const m = { m: { context_window: 100000, max_output_tokens: 1000 } };
  return {
    server: { host: '127.0.0.1', port: 0, body_limit: opts.bodyLimit ?? '1mb', shutdown_grace_ms: 2000 },
    routing: ONE_CALL,
    providers: {
      oai: openai(url, OAI_SECRET, timeouts, m),
      ant: anthropic(url, ANT_SECRET, timeouts, m),
      resp: responses(url, RESP_SECRET, timeouts, m),
      local: mock({ echo: { context_window: 8192 } }),
    },
    roles: { all: { models: ['*'] }, limited: { models: ['local/*'] } },
    keys: [
      { id: 'all', key: SCRIPTED_KEY, role: 'all' },
      { id: 'limited', key: SCRIPTED_LIMITED_KEY, role: 'limited' },
    ],
  };
}

// ---------------------------------------------------------------- client suites

export const CLIENT_KEY = 'client-suite-key-0001';
export const LIMITED_KEY = 'client-suite-key-0002';
export const BROKE_KEY = 'client-suite-key-0003';

/**
 *   team/gpt     → oai/gpt-4o-mini             (OpenAI-format upstream; oai/o4-mini a reasoning model)
 *   team/claude  → ant/claude-sonnet-4-5       (Anthropic-format upstream)
 *   team/resp    → resp/gpt-5-mini             (OpenAI Responses upstream, a reasoning model)
 * Keys: CLIENT_KEY may use everything; LIMITED_KEY only team/gpt; BROKE_KEY has a budget too small
 * for any request.
 */
export function clientGateway(url: string): GatewaySpec {
  const timeouts = { connect_ms: 2000, first_byte_ms: 5000, total_ms: 15000 };
  const price = { input: 1, output: 1 };
  return {
    server: { host: '127.0.0.1', port: 0, body_limit: '1mb', shutdown_grace_ms: 2000 },
    routing: ONE_CALL,
    providers: {
      oai: openai(url, 'sk-oai-client-suite-000111', timeouts, {
        'gpt-4o-mini': { context_window: 128000, max_output_tokens: 16384, price },
        'o4-mini': { context_window: 200000, max_output_tokens: 100000, price },
      }),
      ant: anthropic(url, 'sk-ant-client-suite-000222', timeouts, {
        'claude-sonnet-4-5': { context_window: 200000, max_output_tokens: 64000, price },
      }),
      resp: responses(url, 'sk-resp-client-suite-000333', timeouts, {
        'gpt-5-mini': { context_window: 400000, max_output_tokens: 128000, price },
      }),
    },
    aliases: {
      'team/gpt': { targets: ['oai/gpt-4o-mini'] },
      'team/claude': { targets: ['ant/claude-sonnet-4-5'] },
      'team/resp': { targets: ['resp/gpt-5-mini'] },
    },
    roles: { all: { models: ['*'] }, limited: { models: ['team/gpt'] }, broke: { models: ['*'] } },
    keys: [
      { id: 'all', key: CLIENT_KEY, role: 'all' },
      { id: 'limited', key: LIMITED_KEY, role: 'limited' },
      { id: 'broke', key: BROKE_KEY, role: 'broke' },
    ],
    budgets: [{ id: 'broke-total', scope: { key: 'broke' }, limit_usd: 0.000001, period: 'total' }],
  };
}

// ---------------------------------------------------------------- budgets and rate limits

/** USD per million tokens → nano-USD per token is ×1000. */
export const PRICE = { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 1.25 };
export const LIMIT_KEYS = {
  t1: 'limits-test-key-team-one-0001',
  t2: 'limits-test-key-team-two-0002',
  s1: 'limits-test-key-solo-one-0003',
} as const;
export const LIMITS_OAI_SECRET = 'sk-limits-oai-provider-secret-1';
export const LIMITS_ANT_SECRET = 'sk-ant-limits-provider-secret-1';

/**
 * Providers `oai` (OpenAI format) and `ant` (Anthropic format), one priced model `m` each, and a
 * mock provider `local/echo` with the same price; roles `team` (keys t1, t2) and `solo` (key s1).
 * No retries, no circuit breaking (so failures are one upstream call each).
 */
export function pricedGateway(url: string, extra = ''): GatewaySpec {
  const price = {
    input: PRICE.input,
    output: PRICE.output,
    cache_read: PRICE.cacheRead,
    cache_write: PRICE.cacheWrite,
  };
  const timeouts = { connect_ms: 2000, first_byte_ms: 20000, total_ms: 30000 };
  const m = { m: { context_window: 100000, max_output_tokens: 1000, price } };
  return {
    server: { host: '127.0.0.1', port: 0, shutdown_grace_ms: 1000 },
    routing: { retry: { max_retries: 0 }, cooldown: { failures: 100000, cooldown_ms: 1 } },
    providers: {
      oai: openai(url, LIMITS_OAI_SECRET, timeouts, m),
      ant: anthropic(url, LIMITS_ANT_SECRET, timeouts, m),
      local: mock({ echo: { context_window: 8192, price } }),
    },
    roles: { team: { models: ['*'] }, solo: { models: ['*'] } },
    keys: [
      { id: 't1', key: LIMIT_KEYS.t1, role: 'team' },
      { id: 't2', key: LIMIT_KEYS.t2, role: 'team' },
      { id: 's1', key: LIMIT_KEYS.s1, role: 'solo' },
    ],
    extra,
  };
}

// ---------------------------------------------------------------- security tests

export const SEC_GW_KEY = 'sec-gateway-key-0001';
export const SEC_OAI_KEY = 'team-openai-key-01';
export const SEC_ANT_KEY = 'team-anthropic-key-01';
export const SEC_RESP_KEY = 'team-responses-key-01';

/**
 * `oa/m` (OpenAI chat format, gpt-4o-mini), `an/m` (Anthropic format, claude-test) and `rs/m` (OpenAI
 * Responses format, gpt-4o-mini), all BYOK-optional.
 */
export function securityGateway(url: string, extra = '', failures = 3): GatewaySpec {
  const price = { input: 1, output: 2 };
  return {
    server: { host: '127.0.0.1', port: 0, shutdown_grace_ms: 1000 },
    routing: { retry: { max_retries: 0 }, cooldown: { failures, window_ms: 30000, cooldown_ms: 30000 } },
    providers: {
      oa: {
        api: 'openai',
        url,
        api_key: SEC_OAI_KEY,
        byok: 'optional',
        models: {
          m: { context_window: 128000, max_output_tokens: 4096, upstream_name: 'gpt-4o-mini', price },
        },
      },
      an: {
        api: 'anthropic',
        url,
        api_key: SEC_ANT_KEY,
        byok: 'optional',
        models: {
          m: { context_window: 200000, max_output_tokens: 4096, upstream_name: 'claude-test', price },
        },
      },
      rs: {
        api: 'openai-responses',
        url,
        api_key: SEC_RESP_KEY,
        byok: 'optional',
        models: {
          m: { context_window: 128000, max_output_tokens: 4096, upstream_name: 'gpt-4o-mini', price },
        },
      },
    },
    roles: { dev: { models: ['*'] } },
    keys: [{ id: 'dev', key: SEC_GW_KEY, role: 'dev' }],
    extra,
  };
}

// ---------------------------------------------------------------- routing tests

export const FLEET_KEY = 'gw-routing-test-key-0001';

export interface FleetProvider {
  id: string;
  /** Origin of its upstream (or a closed port). */
  url: string;
  api?: 'openai' | 'anthropic';
  /** The configured key; null for none. Default `sk-<id>-configured-secret-0001`. */
  apiKey?: string | null;
  byok?: 'never' | 'optional' | 'required';
  timeouts?: Obj | Yaml;
  /** Timeouts of its model `m`. */
  modelTimeouts?: Obj | Yaml;
  cooldown?: Obj | Yaml;
  /** Model names (default ['m']). */
  models?: string[];
}

export const configuredKey = (id: string) => `sk-${id}-configured-secret-0001`;

/** The given providers (each with its models), routing, aliases, one role for everything and one key. */
export function fleetGateway(o: { routing?: Obj | Yaml; providers: FleetProvider[]; aliases?: Yaml }): GatewaySpec {
  const providers: Record<string, ProviderSpec> = {};
  for (const p of o.providers) {
    const models: Record<string, ModelSpec> = {};
    for (const m of p.models ?? ['m'])
      models[m] = { context_window: 100000, ...(p.modelTimeouts && m === 'm' ? { timeouts: p.modelTimeouts } : {}) };
    providers[p.id] = {
      api: p.api ?? 'openai',
      url: p.url,
      api_key: p.apiKey === undefined ? configuredKey(p.id) : p.apiKey,
      byok: p.byok,
      timeouts: p.timeouts ?? { connect_ms: 2000, first_byte_ms: 10000, total_ms: 20000 },
      cooldown: p.cooldown,
      models,
    };
  }
  return {
    server: { host: '127.0.0.1', port: 0, shutdown_grace_ms: 1000 },
    routing: o.routing ?? {},
    providers,
    aliases: o.aliases ?? '  {}',
    roles: { all: { models: ['*'] } },
    keys: [{ id: 'tester', key: FLEET_KEY, role: 'all' }],
  };
}

/** The spec with more `server` settings. */
export function withServer(spec: GatewaySpec, server: Obj): GatewaySpec {
  return { ...spec, server: { ...spec.server, ...server } };
}
