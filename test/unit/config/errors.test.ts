import { describe, expect, it } from 'vitest';
import { formatIssue, loadConfig, loadConfigText } from '../../../src/config/load.js';
import type { ConfigIssue } from '../../../src/config/types.js';

const FIXTURES = new URL('../../fixtures/config/invalid/', import.meta.url);

async function load(name: string): Promise<{ issues: ConfigIssue[]; configured: boolean }> {
  const { config, issues } = await loadConfig(new URL(name, FIXTURES).pathname, {});
  return { issues, configured: config !== undefined };
}

/** [line, col, path, message] of error issues, in file order. */
const errors = (issues: ConfigIssue[]) =>
  issues.filter((i) => i.severity === 'error').map((i) => [i.line, i.col, i.path, i.message]);

describe('YAML syntax errors', () => {
  it('reports position and stops before schema checks', async () => {
    const { issues, configured } = await load('syntax.yaml');
    expect(configured).toBe(false);
    expect(issues).toHaveLength(1);
    // At the unclosed "[" on line 4, not on line 5 where the parser noticed it.
    expect(issues[0]).toMatchObject({ severity: 'error', line: 4, col: 13, path: '' });
    expect(issues[0].message).toBe('YAML syntax error: the "[" opened here is never closed with "]"');
  });

  it('reports duplicate keys', () => {
    const { issues } = loadConfigText('providers: {}\nproviders: {}\n', 'f.yaml', {});
    expect(issues.map((i) => [i.line, i.col, i.message])).toEqual([
      [2, 1, 'YAML syntax error: Map keys must be unique'],
    ]);
  });
});

describe('schema errors', () => {
  it('unknown properties point at the key, with did-you-mean', async () => {
    expect(errors((await load('unknown-properties.yaml')).issues)).toEqual([
      [1, 1, '', 'unknown property "servr" (did you mean "server"?)'],
      [6, 5, 'providers.local', 'unknown property "modles" (did you mean "models"?)'],
      [8, 7, 'providers.local.models.echo', 'missing required property "context_window"'],
      [9, 9, 'providers.local.models.echo', 'unknown property "contex_window" (did you mean "context_window"?)'],
    ]);
  });

  it('type, pattern, enum, minimum and conditional errors', async () => {
    expect(errors((await load('schema-errors.yaml')).issues)).toEqual([
      [2, 9, 'server.port', 'must be an integer, got a string'],
      [3, 15, 'server.body_limit', 'must be a byte count such as 1048576, "512kb" or "4mb"'],
      [
        5,
        3,
        'providers',
        'invalid provider id "Local": use lowercase letters, digits, "_" and "-", starting with a letter or digit',
      ],
      [
        10,
        10,
        'providers.openai.api',
        'must be one of "openai", "openai-responses", "anthropic", "azure-openai", "azure-openai-responses", ' +
          '"gemini", "bedrock", "bedrock-anthropic", "vertex", "vertex-anthropic", "mock" (did you mean "openai"?)',
      ],
      [12, 30, 'providers.openai.models.gpt.context_window', 'must be >= 1'],
      [13, 3, 'providers.compat', 'missing required property "base_url" (required for api "openai")'],
      [19, 5, 'providers.mocky', 'property "base_url" is not allowed for api "mock"'],
    ]);
  });

  it('an empty value points at its key; an empty file at 1:1', () => {
    expect(errors(loadConfigText('providers:\n', 'f.yaml', {}).issues)).toEqual([
      [1, 1, 'providers', 'must be a map, got nothing'],
    ]);
    expect(errors(loadConfigText('', 'f.yaml', {}).issues)).toEqual([[1, 1, '', 'must be a map, got nothing']]);
  });
});

describe('semantic errors', () => {
  it('aliases: namespace collision, alias as target, unknown target/fallback, cycles', async () => {
    expect(errors((await load('aliases.yaml')).issues)).toEqual([
      [7, 3, 'aliases.local/fast', 'alias namespace "local" collides with provider id "local"'],
      [
        11,
        9,
        'aliases.team/a.targets[0]',
        '"team/b" is an alias; targets must be concrete models (chain aliases with fallbacks)',
      ],
      [12, 9, 'aliases.team/a.targets[1]', 'unknown model "local/ecko" (did you mean "local/echo"?)'],
      [17, 9, 'aliases.team/b.fallbacks[0]', 'unknown model or alias "nowhere/model"'],
      [18, 9, 'aliases.team/b.fallbacks[1]', 'alias fallback cycle: team/a -> team/b -> team/a'],
    ]);
  });

  it('roles and keys', async () => {
    expect(errors((await load('roles-keys.yaml')).issues)).toEqual([
      [
        10,
        9,
        'roles.dev.models[1]',
        'pattern "locl/*" matches nothing: "locl" is neither a provider id nor an alias namespace (did you mean ' +
          '"local"?)',
      ],
      [11, 9, 'roles.dev.models[2]', '"local/missing" matches no model or alias'],
      [16, 9, 'keys[1].id', 'duplicate key id "one" (also keys[0])'],
      [17, 10, 'keys[1].key', 'same key value as keys[0] ("one"); every key must be unique'],
      [18, 11, 'keys[1].role', 'unknown role "devs" (did you mean "dev"?)'],
      [20, 10, 'keys[2].key', 'key must be at least 8 characters long'],
      [23, 10, 'keys[3].key', 'a "sha256:" key must be followed by exactly 64 hex digits'],
    ]);
  });

  it('budgets and guardrails, plus their warnings', async () => {
    const { issues, configured } = await load('budgets-guardrails.yaml');
    expect(configured).toBe(false);
    expect(errors(issues)).toEqual([
      [12, 19, 'budgets[0].scope.key', 'unknown key id "desktop"'],
      [
        15,
        15,
        'budgets[0].timezone',
        'unknown time zone "Mars/Olympus" (use an IANA name such as "Europe/Berlin" or "UTC")',
      ],
      [17, 5, 'budgets[1].scope', 'must have exactly one of global, key, role, each_key_of_role'],
      [19, 13, 'budgets[1].period', 'must be one of "day", "week", "month", "total"'],
      [22, 22, 'guardrails[0].match.roles[0]', 'unknown role "devs" (did you mean "dev"?)'],
      [23, 36, 'guardrails[0].check.pattern', 'invalid regular expression: Unterminated group'],
      [26, 5, 'guardrails[1].check', 'missing required property "words"'],
      [26, 30, 'guardrails[1].check', 'unknown property "word" for a "keywords" check (did you mean "words"?)'],
    ]);
    expect(issues.filter((i) => i.severity === 'warning').map((i) => [i.line, i.col, i.path, i.message])).toEqual([
      [
        16,
        5,
        'budgets[1]',
        "models in this budget's reach have no price and will count as costing nothing: local/echo",
      ],
    ]);
  });

  it('redact needs a check that can redact', () => {
    const text = [
      'providers: { l: { api: mock, models: { m: { context_window: 1 } } } }',
      'guardrails:',
      '  - { id: g, check: { type: max_input_tokens, limit: 10 }, action: redact }',
    ].join('\n');
    expect(errors(loadConfigText(text, 'f.yaml', {}).issues)).toEqual([
      [
        3,
        68,
        'guardrails[0].action',
        'action "redact" needs a regex, keywords or detectors check, not "max_input_tokens"',
      ],
    ]);
  });
});

describe('reporting', () => {
  it('reports every problem at once (schema and semantic together)', async () => {
    const { issues, configured } = await load('three-problems.yaml');
    expect(configured).toBe(false);
    expect(errors(issues)).toEqual([
      [5, 31, 'providers.local.models.echo.context_window', 'must be >= 1'],
      [11, 11, 'keys[0].role', 'unknown role "admin"'],
      [14, 15, 'aliases.team/x.strategy', 'must be one of "weighted", "ordered"'],
    ]);
  });

  it('formats issues as file:line:col  path: message', () => {
    const base = { file: 'gw.yaml', line: 3, col: 7, path: 'roles.dev.models[2]', message: 'bad' };
    expect(formatIssue({ ...base, severity: 'error' })).toBe('gw.yaml:3:7  roles.dev.models[2]: bad');
    expect(formatIssue({ ...base, severity: 'warning' })).toBe('gw.yaml:3:7  roles.dev.models[2]: warning: bad');
    expect(formatIssue({ ...base, severity: 'error', path: '' })).toBe('gw.yaml:3:7  bad');
  });
});

describe('routing settings', () => {
  it('bounds, backoff order, failure lists, cooldown and timeouts, alias overrides', async () => {
    const listHelp =
      'is not a failure class or status: use connect, timeout, 5xx, auth, or a status among 408, 409, 425, 429, ' +
      '500-599';
    const noAuthRetry = 'a rejected credential does not get better by retrying: use "auth" in fallback_on only';
    expect(errors((await load('routing.yaml')).issues)).toEqual([
      [2, 17, 'routing.max_attempts', 'must be >= 1'],
      [3, 69, 'routing.retry.max_backoff_ms', 'must be at least initial_backoff_ms (500)'],
      [4, 23, 'routing.retry_on[1]', noAuthRetry],
      [4, 29, 'routing.retry_on[2]', `404 ${listHelp}`],
      [5, 22, 'routing.fallback_on[1]', `"sometimes" ${listHelp}`],
      [6, 28, 'routing.cooldown', 'unknown property "cooldwn_ms" (did you mean "cooldown_ms"?)'],
      [10, 27, 'providers.local.cooldown.failures', 'must be >= 1'],
      [12, 64, 'providers.local.models.echo.timeouts.first_byte_ms', 'must be >= 1'],
      [14, 52, 'aliases.team/fast.retry_on[0]', noAuthRetry],
      [14, 74, 'aliases.team/fast.byok_fallback', 'must be one of "same_provider", "configured_keys"'],
    ]);
  });

  it('alias overrides apply over the routing defaults; model timeouts over the provider', () => {
    const { config } = loadConfigText(
      `
routing: { max_attempts: 4, retry: { max_retries: 3 }, cooldown: { failures: 5 } }
providers:
  p: { api: openai, base_url: "http://127.0.0.1:1/v1", timeouts: { connect_ms: 100, total_ms: 900 }, byok: optional,
       models: { m: { context_window: 10, timeouts: { total_ms: 500 } }, n: { context_window: 10 } } }
aliases:
  a/b: { targets: [ p/m ], retry: { initial_backoff_ms: 7 }, fallback_on: [5xx], byok_fallback: configured_keys }
roles: { r: { models: ["*"] } }
keys: [ { id: k, key: "key-key-key-key", role: r } ]
`,
      'f.yaml',
      {},
    );
    expect(config!.routing).toMatchObject({ maxAttempts: 4, retry: { maxRetries: 3, initialBackoffMs: 250 } });
    expect(config!.aliases.get('a/b')).toMatchObject({
      routing: {
        maxAttempts: 4,
        retry: { maxRetries: 3, initialBackoffMs: 7 },
        retryOn: ['connect', 'timeout', 429, '5xx'],
        fallbackOn: ['5xx'],
      },
      byokFallback: 'configured_keys',
    });
    const p = config!.providers.get('p')!;
    expect(p.cooldown).toEqual({ failures: 5, windowMs: 30_000, cooldownMs: 30_000 });
    expect(p.models.get('m')!.timeouts).toEqual({ connectMs: 100, firstByteMs: 60_000, totalMs: 500 });
    expect(p.models.get('n')!.timeouts).toEqual({ connectMs: 100, firstByteMs: 60_000, totalMs: 900 });
  });
});
