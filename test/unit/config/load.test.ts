import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, loadConfigText } from '../../../src/config/load.js';
import { DEFAULTS } from '../../../src/config/normalise.js';

const FIXTURES = new URL('../../fixtures/config/', import.meta.url);
const fixture = (name: string) => new URL(name, FIXTURES).pathname;
const ENV = {
  OPENAI_API_KEY: 'sk-test-openai-0001',
  GATEWAY_KEY: 'gw-laptop-secret-42',
  AZURE_CLIENT_SECRET: 'entra-secret-0001',
};

describe('loadConfig: valid full config', async () => {
  const { config, issues } = await loadConfig(fixture('valid/full.yaml'), ENV);
  if (!config) throw new Error(`expected a config, got ${JSON.stringify(issues)}`);

  it('reports no issue for a valid file but the alias reaching beyond the role', () => {
    expect(issues).toEqual([
      expect.objectContaining({
        severity: 'warning',
        path: 'roles.developer.models[0]',
        message: expect.stringContaining('team/fast → claude/claude-3-5-haiku'),
      }),
    ]);
  });

  it('normalises server settings (body limit suffix in KiB)', () => {
    expect(config.source).toBe(fixture('valid/full.yaml'));
    expect(config.server).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
      bodyLimitBytes: 512 * 1024,
      shutdownGraceMs: 2000,
    });
  });

  it('normalises providers with defaults, trimmed base URLs and resolved keys', () => {
    expect([...config.providers.keys()]).toEqual(['openai', 'claude', 'azure', 'local']);
    const openai = config.providers.get('openai')!;
    expect(openai).toMatchObject({
      id: 'openai',
      api: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-test-openai-0001',
      available: true,
      timeouts: { connectMs: 5000, firstByteMs: 60_000, totalMs: 600_000 },
      headers: { 'OpenAI-Organization': 'org-123' },
      byok: 'optional',
    });
    expect(openai.mock).toBeUndefined();
    const claude = config.providers.get('claude')!;
    expect(claude.baseUrl).toBe('https://api.anthropic.com');
    expect(claude.apiKey).toBe('sk-ant-default'); // ${ANTHROPIC_API_KEY:-sk-ant-default}
    expect(claude.byok).toBe('never');
    const local = config.providers.get('local')!;
    expect(local.baseUrl).toBeUndefined();
    expect(local.mock).toEqual({ latencyMs: 5, chunkDelayMs: 0 });
    const azure = config.providers.get('azure')!;
    expect(azure.baseUrl).toBe('https://contoso-eastus.openai.azure.com');
    expect(azure.apiKey).toBeUndefined();
    expect(azure.azure).toEqual({
      style: 'deployment',
      apiVersion: '2024-10-21',
      entra: {
        tenantId: 'tenant-1',
        clientId: 'client-1',
        clientSecret: 'entra-secret-0001',
        authorityHost: 'https://login.microsoftonline.com',
      },
    });
    expect(config.providers.get('openai')!.azure).toBeUndefined();
  });

  it('indexes models by name per provider and by id globally', () => {
    expect(config.providers.get('openai')!.models.get('gpt-4o-mini')).toEqual({
      id: 'openai/gpt-4o-mini',
      provider: 'openai',
      name: 'gpt-4o-mini',
      upstreamName: 'gpt-4o-mini-2024-07-18',
      kind: 'chat',
      contextWindow: 128_000,
      maxOutputTokens: 16_384,
      price: { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0 },
      timeouts: { connectMs: 5000, firstByteMs: 60_000, totalMs: 600_000 },
    });
    expect([...config.models.keys()]).toEqual([
      'openai/gpt-4o-mini',
      'claude/claude-3-5-haiku',
      'azure/gpt-4o',
      'local/echo',
      'local/meta-llama/llama-3',
    ]);
    const llama = config.models.get('local/meta-llama/llama-3')!;
    expect([llama.provider, llama.name, llama.upstreamName]).toEqual([
      'local',
      'meta-llama/llama-3',
      'meta-llama/llama-3',
    ]);
  });

  it('normalises aliases (string targets, default weight and strategy)', () => {
    expect(config.aliases.get('team/fast')).toEqual({
      id: 'team/fast',
      namespace: 'team',
      name: 'fast',
      strategy: 'weighted',
      targets: [
        { model: 'openai/gpt-4o-mini', weight: 3 },
        { model: 'claude/claude-3-5-haiku', weight: 1 },
      ],
      fallbacks: ['local/echo'],
      routing: DEFAULTS.routing,
      byokFallback: 'same_provider',
    });
    expect(config.aliases.get('team/safe')).toMatchObject({ strategy: 'ordered', fallbacks: ['team/fast'] });
  });

  it('hashes plain keys and decodes sha256: keys', () => {
    expect(config.roles.get('developer')).toEqual({
      id: 'developer',
      models: ['team/*', 'local/*', 'openai/gpt-4o-mini'],
      serverTools: 'allow',
      mcpServers: 'deny',
    });
    const [laptop, ci] = config.keys;
    expect(laptop.id).toBe('laptop');
    expect(laptop.role).toBe('developer');
    expect(laptop.sha256.equals(createHash('sha256').update(ENV.GATEWAY_KEY).digest())).toBe(true);
    expect(ci.sha256.toString('hex')).toBe('9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08');
    expect(JSON.stringify(config.keys)).not.toContain(ENV.GATEWAY_KEY);
  });

  it('normalises budgets and guardrails with defaults', () => {
    expect(config.budgets).toEqual([
      {
        id: 'dev-monthly',
        scope: { kind: 'role', role: 'developer' },
        limitUsd: 50,
        period: 'month',
        mode: 'enforce',
        timezone: 'UTC',
      },
      {
        id: 'global-daily',
        scope: { kind: 'global' },
        limitUsd: 10.5,
        period: 'day',
        mode: 'warn',
        timezone: 'Europe/Berlin',
      },
    ]);
    expect(config.guardrails.map((g) => [g.id, g.appliesTo, g.action])).toEqual([
      ['no-secrets', 'both', 'redact'],
      ['pii', 'output', 'log'],
      ['big', 'input', 'block'],
      ['words', 'both', 'block'],
      ['hook', 'both', 'block'],
    ]);
    expect(config.guardrails[0].match).toEqual({ roles: ['developer'], keys: ['laptop'], models: ['team/*'] });
    expect(config.guardrails[1].match).toEqual({});
    expect(config.guardrails[0].check).toEqual({ type: 'regex', pattern: 'sk-[A-Za-z0-9]{20,}', flags: 'i' });
    expect(config.guardrails[3].check).toEqual({ type: 'keywords', words: ['secret project'], caseSensitive: false });
    expect(config.guardrails[4].check).toEqual({
      type: 'webhook',
      url: 'http://localhost:9000/check',
      timeoutMs: 2000,
      onError: 'fail_open',
    });
  });

  it('is deeply frozen', () => {
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.server)).toBe(true);
    expect(Object.isFrozen(config.providers)).toBe(true);
    const openai = config.providers.get('openai')!;
    expect(Object.isFrozen(openai)).toBe(true);
    expect(Object.isFrozen(openai.headers)).toBe(true);
    expect(Object.isFrozen(openai.models.get('gpt-4o-mini')!.price)).toBe(true);
    expect(Object.isFrozen(config.aliases.get('team/fast')!.targets[0])).toBe(true);
    expect(Object.isFrozen(config.keys)).toBe(true);
    expect(Object.isFrozen(config.guardrails[0].check)).toBe(true);
    expect(() => {
      (config.server as { port: number }).port = 1;
    }).toThrow(TypeError);
  });
});

describe('loadConfig: defaults and file handling', () => {
  it('applies every default to a minimal config', async () => {
    const { config, issues } = await loadConfig(fixture('valid/minimal.yaml'), {});
    expect(issues).toEqual([]);
    expect(config!.server).toEqual({
      host: '127.0.0.1',
      port: 4000,
      bodyLimitBytes: 4 * 1024 * 1024,
      shutdownGraceMs: 10_000,
      headersTimeoutMs: 30_000,
      bodyReadTimeoutMs: 30_000,
      requestTimeoutMs: 120_000,
    });
    expect(config!.providers.get('local')).toMatchObject({
      api: 'mock',
      available: true,
      byok: 'never',
      headers: {},
      mock: { latencyMs: 0, chunkDelayMs: 0 },
      timeouts: { connectMs: 10_000, firstByteMs: 60_000, totalMs: 600_000 },
    });
    expect(config!.aliases.size).toBe(0);
    expect(config!.roles.size).toBe(0);
    expect([config!.keys, config!.budgets, config!.guardrails]).toEqual([[], [], []]);
  });

  it('accepts body_limit as bytes or with a suffix', () => {
    const base = 'providers: { l: { api: mock, models: { m: { context_window: 1 } } } }\n';
    const limit = (v: string) =>
      loadConfigText(`${base}server: { body_limit: ${v} }\n`, 'f.yaml', {}).config?.server.bodyLimitBytes;
    expect(limit('1000')).toBe(1000);
    expect(limit('"4mb"')).toBe(4 * 1024 * 1024);
    expect(limit('2KB')).toBe(2048);
    expect(limit('"1.5 MiB"')).toBe(1.5 * 1024 * 1024);
  });

  it('reports a missing file as one issue', async () => {
    const { config, issues } = await loadConfig('/nonexistent/gateway.yaml', {});
    expect(config).toBeUndefined();
    expect(issues).toEqual([
      { severity: 'error', file: '/nonexistent/gateway.yaml', line: 1, col: 1, path: '', message: 'file not found' },
    ]);
  });

  it('throws when the file exists but cannot be read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-config-'));
    mkdirSync(join(dir, 'gateway.yaml'));
    await expect(loadConfig(join(dir, 'gateway.yaml'), {})).rejects.toThrow();
  });
});

describe('loadConfig: model kind', () => {
  const load = (models: string, aliases = '') =>
    loadConfigText(
      'providers:\n' +
        '  oai: { api: openai, base_url: "http://127.0.0.1:9/v1", models: { gpt: { context_window: 100 } } }\n' +
        `  local: { api: mock, models: { ${models} } }\n` +
        aliases,
      'f.yaml',
      {},
    );
  const problems = (r: ReturnType<typeof load>) =>
    r.issues.filter((i) => i.severity === 'error').map((i) => [i.line, i.col, i.path, i.message]);

  it('takes embedding models on openai-responses providers too', () => {
    const r = loadConfigText(
      'providers:\n' +
        '  resp:\n' +
        '    api: openai-responses\n' +
        '    base_url: "http://127.0.0.1:9/v1"\n' +
        '    models: { e: { context_window: 1, kind: embedding } }\n',
      'f.yaml',
      {},
    );
    expect(r.issues).toEqual([]);
    expect(r.config!.models.get('resp/e')!.kind).toBe('embedding');
  });

  it('is chat by default; an embedding model keeps its dimensions', () => {
    const { config, issues } = load(
      'echo: { context_window: 8192 }, embed: { context_window: 8192, kind: embedding, dimensions: 16 }',
    );
    expect(issues).toEqual([]);
    expect(config!.models.get('oai/gpt')).toMatchObject({ kind: 'chat' });
    expect(config!.models.get('oai/gpt')!.dimensions).toBeUndefined();
    expect(config!.models.get('local/echo')!.kind).toBe('chat');
    expect(config!.models.get('local/embed')).toMatchObject({ kind: 'embedding', dimensions: 16 });
  });

  it('prices an embedding model by input alone; a chat model needs an output price', () => {
    const r = load('e: { context_window: 1, kind: embedding, price: { input: 0.02 } }');
    expect(r.config!.models.get('local/e')!.price).toEqual({ input: 0.02, output: 0 });
    expect(problems(load('c: { context_window: 1, price: { input: 1 } }'))).toEqual([
      [3, 57, 'providers.local.models.c.price', 'missing required property "output"'],
    ]);
  });

  it('refuses an unknown kind and a dimensions that is not a positive integer', () => {
    const r = load('a: { context_window: 1, kind: vector }, b: { context_window: 1, kind: embedding, dimensions: 0 }');
    expect(r.config).toBeUndefined();
    expect(problems(r)).toEqual([
      [3, 63, 'providers.local.models.a.kind', 'must be one of "chat", "embedding"'],
      [3, 126, 'providers.local.models.b.dimensions', 'must be >= 1'],
    ]);
  });

  it('refuses an embedding model on a provider kind with no embeddings endpoint, dimensions on a chat model', () => {
    const r = loadConfigText(
      'providers:\n' +
        '  ant: { api: anthropic, models: { e: { context_window: 1, kind: embedding } } }\n' +
        '  local: { api: mock, models: { c: { context_window: 1, dimensions: 8 } } }\n',
      'f.yaml',
      {},
    );
    expect(r.config).toBeUndefined();
    expect(problems(r)).toEqual([
      [
        2,
        66,
        'providers.ant.models.e.kind',
        'api "anthropic" has no embeddings endpoint: ' +
          'an embedding model needs api openai, openai-responses, azure-openai, azure-openai-responses or mock',
      ],
      [3, 69, 'providers.local.models.c.dimensions', 'is for embedding models (kind: embedding)'],
    ]);
  });

  it('refuses an alias that reaches both kinds, through its fallbacks too', () => {
    const r = load(
      'e: { context_window: 1, kind: embedding }, f: { context_window: 1, kind: embedding }',
      'aliases:\n' +
        '  team/embed: { targets: [local/e], fallbacks: [local/f] }\n' +
        '  team/mixed: { targets: [local/e], fallbacks: [team/chat] }\n' +
        '  team/chat: { targets: [oai/gpt] }\n',
    );
    expect(problems(r)).toEqual([
      [
        6,
        3,
        'aliases.team/mixed',
        'reaches embedding models (local/e) and chat models (oai/gpt): an alias serves one kind',
      ],
    ]);
  });
});

describe('loadConfigText: azure-openai providers', () => {
  const load = (provider: string, env: Record<string, string> = {}) =>
    loadConfigText(`providers:\n  az: ${provider}\n`, 'f.yaml', env);
  const issues = (r: ReturnType<typeof load>) => r.issues.map((i) => [i.severity, i.path, i.message]);
  const MODELS = 'models: { m: { context_window: 1 } }';
  const ENTRA = 'entra: { tenant_id: t, client_id: c, client_secret: s }';

  it('takes the v1 style with an api-key and a base_url, without api-version', () => {
    const r = load(`{ api: azure-openai, base_url: "https://r.openai.azure.com/", style: v1, api_key: k, ${MODELS} }`);
    expect(r.issues).toEqual([]);
    const p = r.config!.providers.get('az')!;
    expect([p.baseUrl, p.apiKey]).toEqual(['https://r.openai.azure.com', 'k']);
    expect(p.azure).toEqual({ style: 'v1' });
  });

  it('keeps a configured authority host without its trailing slash', () => {
    const entra = 'entra: { tenant_id: t, client_id: c, client_secret: s, authority_host: "http://127.0.0.1:9/" }';
    const r = load(`{ api: azure-openai, resource: r, api_version: v, ${entra}, ${MODELS} }`);
    expect(r.config!.providers.get('az')!.azure!.entra!.authorityHost).toBe('http://127.0.0.1:9');
  });

  it('requires api_version in the deployment style and refuses it in v1', () => {
    expect(issues(load(`{ api: azure-openai, resource: r, api_key: k, ${MODELS} }`))).toEqual([
      ['error', 'providers.az', 'missing required property "api_version" (required for api "azure-openai")'],
    ]);
    expect(issues(load(`{ api: azure-openai, resource: r, style: v1, api_version: v, ${MODELS} }`))).toEqual([
      ['error', 'providers.az', 'property "api_version" is not allowed for api "azure-openai"'],
    ]);
  });

  it('needs one endpoint and one way to sign in', () => {
    const url = 'base_url: "https://r.openai.azure.com"';
    const both = `{ api: azure-openai, resource: r, ${url}, api_version: v, ${MODELS} }`;
    expect(issues(load(both))).toEqual([['error', 'providers.az', 'give base_url or resource, not both']]);
    expect(issues(load(`{ api: azure-openai, api_version: v, ${MODELS} }`))).toEqual([
      ['error', 'providers.az', 'needs base_url or resource (the Azure resource name)'],
    ]);
    expect(issues(load(`{ api: azure-openai, resource: r, api_version: v, api_key: k, ${ENTRA}, ${MODELS} }`))).toEqual(
      [['error', 'providers.az.entra', 'api_key and entra are two ways to sign in: give one']],
    );
  });

  it('refuses a resource that is not a resource name, after interpolation', () => {
    const r = load(`{ api: azure-openai, resource: "\${RES}", style: v1, ${MODELS} }`, { RES: 'a.b/c' });
    expect(issues(r)).toEqual([
      ['error', 'providers.az.resource', 'must be an Azure resource name (letters, digits and "-")'],
    ]);
  });

  it('refuses Azure settings on other kinds', () => {
    expect(issues(load(`{ api: openai, base_url: "http://x/v1", resource: r, ${MODELS} }`))).toEqual([
      ['error', 'providers.az', 'property "resource" is not allowed for api "openai"'],
    ]);
  });

  it('refuses byok on an Entra provider: a caller key is one string, not a service principal', () => {
    expect(
      issues(load(`{ api: azure-openai, resource: r, api_version: v, byok: optional, ${ENTRA}, ${MODELS} }`)),
    ).toEqual([['error', 'providers.az.byok', 'must be never on a provider that signs in with entra']]);
  });

  it('makes the provider unavailable, not the config invalid, when the client secret variable is unset', () => {
    const entra = 'entra: { tenant_id: t, client_id: c, client_secret: "${AZ_SECRET}" }';
    const r = load(`{ api: azure-openai, resource: r, api_version: v, ${entra}, ${MODELS} }`);
    expect(issues(r)).toEqual([
      [
        'warning',
        'providers.az.entra.client_secret',
        'environment variable AZ_SECRET is not set; provider "az" is unavailable',
      ],
    ]);
    expect(r.config!.providers.get('az')!.available).toBe(false);
  });

  it("azure-openai-responses: the resource's /openai/v1, no style or api-version", () => {
    const entra = 'entra: { tenant_id: t, client_id: c, client_secret: s }';
    const r = load(`{ api: azure-openai-responses, resource: r, ${entra}, ${MODELS} }`);
    expect(r.issues).toEqual([]);
    const p = r.config!.providers.get('az')!;
    expect(p.baseUrl).toBe('https://r.openai.azure.com/openai/v1');
    expect(p.azure!.entra!.tenantId).toBe('t');
    const url = 'base_url: "http://127.0.0.1:9/"';
    const byUrl = load(`{ api: azure-openai-responses, ${url}, api_key: k, ${MODELS} }`);
    expect(byUrl.config!.providers.get('az')!.baseUrl).toBe('http://127.0.0.1:9/openai/v1');
    expect(issues(load(`{ api: azure-openai-responses, resource: r, api_version: v, style: v1, ${MODELS} }`))).toEqual([
      ['error', 'providers.az', 'property "api_version" is not allowed for api "azure-openai-responses"'],
      ['error', 'providers.az', 'property "style" is not allowed for api "azure-openai-responses"'],
    ]);
    expect(issues(load(`{ api: azure-openai-responses, ${MODELS} }`))).toEqual([
      ['error', 'providers.az', 'needs base_url or resource (the Azure resource name)'],
    ]);
  });

  it('takes embedding models', () => {
    const r = load(
      `{ api: azure-openai, resource: r, style: v1, models: { e: { context_window: 1, kind: embedding } } }`,
    );
    expect(r.issues).toEqual([]);
  });
});
