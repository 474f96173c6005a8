/**
 * `gateway providers` against real fake upstreams on 127.0.0.1: one per HTTP kind, plus a refused
 * port, a 401 that echoes the key, a hanging upstream and an unset key variable.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type ProviderCheck, transportFailure } from '../../src/cli/provider-check.js';
import { GatewayError } from '../../src/core/errors.js';
import { closedPortUrl, type Fleet, startFleet } from '../helpers/fake-upstream.js';
import { cli } from './capture.js';

const KEYS = {
  OAI_KEY: 'sk-oai-secret-0123456789abcdef',
  RESP_KEY: 'resp-secret-key-0123456789',
  ANT_KEY: 'ant-secret-key-0123456789',
};
const env = { ...KEYS };

let fleet: Fleet;
let dir: string;
let refused: string;

beforeAll(async () => {
  fleet = await startFleet(['oai', 'resp', 'ant', 'byok']);
  dir = mkdtempSync(join(tmpdir(), 'gw-providers-'));
  refused = await closedPortUrl();
});
afterAll(() => fleet?.close());
beforeEach(() => {
  for (const up of Object.values(fleet.up)) up.reset();
  fleet.calls.length = 0;
});

/** A config with the given providers (YAML under `providers:`), a role and a key. */
function configFile(providers: string): string {
  const file = join(dir, `gateway-${Math.random().toString(36).slice(2)}.yaml`);
  const yaml = [
    'providers:',
    providers.replace(/^/gm, '  '),
    'roles:',
    '  all: { models: ["*"] }',
    'keys:',
    '  - { id: k, key: "test-key-123456", role: all }',
    '',
  ].join('\n');
  writeFileSync(file, yaml);
  return file;
}

function healthyConfig(): string {
  const u = fleet.up;
  return configFile(`oai:
  api: openai
  base_url: ${u.oai.url}/v1
  api_key: \${OAI_KEY}
  models:
    gpt-small: { context_window: 8192 }
    embed: { kind: embedding, context_window: 8192 }
resp:
  api: openai-responses
  base_url: ${u.resp.url}/v1
  api_key: \${RESP_KEY}
  models:
    gpt-resp: { context_window: 8192 }
ant:
  api: anthropic
  base_url: ${u.ant.url}
  api_key: \${ANT_KEY}
  models:
    claude-small: { context_window: 8192, upstream_name: claude-x }
local:
  api: mock
  models:
    echo: { context_window: 8192 }`);
}

/** Rows of the table by their first cell (header skipped). */
const rows = (out: string[]) => new Map(out.slice(1).map((l) => [l.trim().split(/\s+/)[0], l.trim().split(/\s{2,}/)]));

function expectNoKey(text: string): void {
  for (const key of Object.values(KEYS)) {
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(0, 8));
  }
}

describe('gateway providers: healthy upstreams', () => {
  test('each kind is checked with a GET that costs no tokens, with its own auth headers; exit 0', async () => {
    const r = await cli(['providers', '-c', healthyConfig()], { env });
    expect(r.code, r.all()).toBe(0);
    expect(r.out[0]).toMatch(/^PROVIDER\s+KIND\s+STATUS\s+LATENCY\s+DETAIL$/);
    const table = rows(r.out);
    expect([...table.keys()]).toEqual(['oai', 'resp', 'ant', 'local']);
    expect(table.get('oai')).toEqual([
      'oai',
      'openai',
      'ok',
      expect.stringMatching(/^\d+ ms$/),
      'reachable, credentials accepted',
    ]);
    expect(table.get('resp')?.slice(1, 3)).toEqual(['openai-responses', 'ok']);
    expect(table.get('ant')?.slice(1, 3)).toEqual(['anthropic', 'ok']);
    expect(table.get('local')).toEqual(['local', 'mock', 'ok', '-', 'in-process, always up']);
    // Without a terminal: one plain progress line per provider on stderr.
    expect(r.err.map((l) => l.replace(/\(\d+ ms\)/, '(N ms)')).sort()).toEqual([
      'ant: ok (N ms)',
      'local: ok',
      'oai: ok (N ms)',
      'resp: ok (N ms)',
    ]);

    expect(fleet.calls.map((c) => `${c.upstream} ${c.method} ${c.path} ${c.status}`).sort()).toEqual([
      'ant GET /v1/models 200',
      'oai GET /v1/models 200',
      'resp GET /v1/models 200',
    ]);
    expect(fleet.up.oai.calls[0].headers.authorization).toBe(`Bearer ${KEYS.OAI_KEY}`);
    expect(fleet.up.resp.calls[0].headers.authorization).toBe(`Bearer ${KEYS.RESP_KEY}`);
    expect(fleet.up.ant.calls[0].headers['x-api-key']).toBe(KEYS.ANT_KEY);
    expect(fleet.up.ant.calls[0].headers['anthropic-version']).toBe('2023-06-01');
    expect(fleet.up.ant.calls[0].format).toBe('anthropic');
    expectNoKey(r.all());
  });

  test('--probe sends each model one tiny request in its kind format, and reports per model', async () => {
    const r = await cli(['providers', '-c', healthyConfig(), '--probe'], { env });
    expect(r.code, r.all()).toBe(0);
    const posts = fleet.calls.filter((c) => c.method === 'POST');
    expect(posts.map((c) => `${c.upstream} ${c.path} ${c.status}`).sort()).toEqual([
      'ant /v1/messages 200',
      'oai /v1/chat/completions 200',
      'oai /v1/embeddings 200',
      'resp /v1/responses 200',
    ]);
    const body = (up: string, path: string) => posts.find((c) => c.upstream === up && c.path === path)?.body;
    expect(body('oai', '/v1/chat/completions')).toEqual({
      model: 'gpt-small',
      messages: [{ role: 'user', content: 'ping' }],
      max_completion_tokens: 1,
    });
    expect(body('oai', '/v1/embeddings')).toEqual({ model: 'embed', input: 'ping' });
    expect(body('resp', '/v1/responses')).toEqual({
      model: 'gpt-resp',
      input: 'ping',
      max_output_tokens: 16,
      store: false,
    });
    expect(body('ant', '/v1/messages')).toEqual({
      model: 'claude-x',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'ping' }],
    });
    const table = rows(r.out);
    for (const id of ['oai/gpt-small', 'oai/embed', 'resp/gpt-resp', 'ant/claude-small'])
      expect(table.get(id)?.slice(1, 3), id).toEqual(['model', 'ok']);
    expect(table.get('local/echo')).toEqual(['local/echo', 'model', 'ok', '-', 'in-process']);
    expectNoKey(r.all());
  });

  test('--json prints one document: healthy, and per provider its credentials, endpoint and models', async () => {
    const r = await cli(['providers', '-c', healthyConfig(), '--json', '--probe', '--provider', 'ant', 'local'], {
      env,
    });
    expect(r.code, r.all()).toBe(0);
    expect(r.err).toEqual([]);
    const doc = JSON.parse(r.out.join('\n')) as { healthy: boolean; providers: ProviderCheck[] };
    expect(doc).toEqual({
      healthy: true,
      providers: [
        {
          provider: 'ant',
          kind: 'anthropic',
          status: 'ok',
          credentials: 'configured',
          endpoint: `${fleet.up.ant.url}/v1/models`,
          latencyMs: expect.any(Number),
          httpStatus: 200,
          detail: 'reachable, credentials accepted',
          models: [
            {
              model: 'ant/claude-small',
              status: 'ok',
              latencyMs: expect.any(Number),
              httpStatus: 200,
              detail: 'answered',
            },
          ],
        },
        {
          provider: 'local',
          kind: 'mock',
          status: 'ok',
          credentials: 'in-process',
          detail: 'in-process, always up',
          models: [{ model: 'local/echo', status: 'ok', detail: 'in-process' }],
        },
      ],
    });
    expect(fleet.up.oai.calls).toEqual([]);
    expectNoKey(r.all());
  });

  test('a byok: required provider answering 401 without a key is healthy; one without any key is not', async () => {
    const file = configFile(`mine:
  api: openai
  base_url: ${fleet.up.byok.url}/v1
  byok: required
  models:
    m: { context_window: 8192 }
keyless:
  api: openai
  base_url: ${fleet.up.byok.url}/v1
  models:
    m: { context_window: 8192 }`);
    const r = await cli(['providers', '-c', file, '--probe', '--json'], { env });
    expect(r.code, r.all()).toBe(1);
    const [check, keyless] = (JSON.parse(r.out.join('\n')) as { providers: ProviderCheck[] }).providers;
    expect(keyless).toMatchObject({
      status: 'failed',
      credentials: 'none',
      error: 'credentials_rejected',
      detail: 'credentials rejected (HTTP 401); no key is configured',
      models: [{ model: 'keyless/m', status: 'skipped', detail: 'skipped: credentials rejected' }],
    });
    expect(check).toMatchObject({
      status: 'ok',
      credentials: 'caller',
      httpStatus: 401,
      detail: 'reachable (HTTP 401 without a key); callers bring their key',
      models: [{ model: 'mine/m', status: 'skipped', detail: "skipped: needs a caller's key" }],
    });
    expect(fleet.up.byok.calls.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([
      'GET /v1/models 401',
      'GET /v1/models 401',
    ]);
    expect(fleet.up.byok.calls.map((c) => c.headers.authorization)).toEqual([undefined, undefined]);
  });
});

describe('gateway providers: failures (exit 1)', () => {
  function failingConfig(): string {
    return configFile(`down:
  api: openai
  base_url: ${refused}/v1
  api_key: \${OAI_KEY}
  models:
    m: { context_window: 8192 }
denied:
  api: anthropic
  base_url: ${fleet.up.ant.url}
  api_key: \${ANT_KEY}
  models:
    c: { context_window: 8192 }
slow:
  api: openai-responses
  base_url: ${fleet.up.resp.url}/v1
  api_key: \${RESP_KEY}
  models:
    r: { context_window: 8192 }
nokey:
  api: openai
  base_url: ${fleet.up.oai.url}/v1
  api_key: \${UNSET_KEY_VAR}
  models:
    m: { context_window: 8192 }
fine:
  api: mock
  models:
    echo: { context_window: 8192 }`);
  }

  test('refused, 401, timeout and unset key are each named in plain words; nothing hangs; no key leaks', async () => {
    // The 401 echoes the key it refused, as some providers do: it must not reach the output.
    fleet.up.ant.setHandler({ kind: 'error', status: 401, message: `invalid x-api-key: ${KEYS.ANT_KEY}` });
    fleet.up.resp.setHandler({ kind: 'hang' });
    const started = Date.now();
    const r = await cli(['providers', '-c', failingConfig(), '--probe', '--timeout-ms', '300'], { env });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.code, r.all()).toBe(1);
    const table = rows(r.out);
    expect(table.get('down')?.slice(1, 3)).toEqual(['openai', 'failed']);
    expect(table.get('down')?.[4]).toBe('connection refused');
    expect(table.get('down/m')?.slice(2)).toEqual(['skipped', '-', 'skipped: endpoint unreachable']);
    expect(table.get('denied')?.slice(2, 3)).toEqual(['failed']);
    expect(table.get('denied')?.[4]).toBe('credentials rejected (HTTP 401)');
    expect(table.get('denied/c')?.slice(2)).toEqual(['skipped', '-', 'skipped: credentials rejected']);
    expect(table.get('slow')?.[4]).toBe('no answer within 300 ms');
    expect(table.get('nokey')?.[4]).toBe(
      'no credentials: environment variable UNSET_KEY_VAR is not set; endpoint reachable',
    );
    expect(table.get('nokey/m')?.slice(2)).toEqual(['skipped', '-', 'skipped: no credentials']);
    expect(table.get('fine')?.slice(2, 3)).toEqual(['ok']);
    // The unset key's provider was checked without a key; the probes sent nothing.
    expect(fleet.up.oai.calls.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual(['GET /v1/models 401']);
    expect(fleet.up.oai.calls[0].headers.authorization).toBeUndefined();
    expect(fleet.calls.filter((c) => c.method === 'POST')).toEqual([]);
    expectNoKey(r.all());
  });

  test('--json names each failure class', async () => {
    fleet.up.ant.setHandler({ kind: 'error', status: 403, message: 'forbidden' });
    fleet.up.resp.setHandler({ kind: 'hang' });
    const r = await cli(['providers', '-c', failingConfig(), '--json', '--timeout-ms', '300'], { env });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out.join('\n')) as { healthy: boolean; providers: ProviderCheck[] };
    expect(doc.healthy).toBe(false);
    expect(
      doc.providers.map((p) => [p.provider, p.status, p.credentials, p.error ?? null, p.httpStatus ?? null]),
    ).toEqual([
      ['down', 'failed', 'configured', 'refused', null],
      ['denied', 'failed', 'configured', 'credentials_rejected', 403],
      ['slow', 'failed', 'configured', 'timeout', null],
      ['nokey', 'failed', 'missing', 'credentials_missing', 401],
      ['fine', 'ok', 'in-process', null, null],
    ]);
    expect(doc.providers.every((p) => p.models === undefined)).toBe(true);
    expectNoKey(r.all());
  });

  test('a model the upstream refuses fails its provider, with the upstream message', async () => {
    fleet.up.oai.script(
      { kind: 'json', body: { object: 'list', data: [] } },
      { kind: 'error', status: 404, message: `The model \`gpt-small\` does not exist for key ${KEYS.OAI_KEY}` },
    );
    const file = configFile(`oai:
  api: openai
  base_url: ${fleet.up.oai.url}/v1
  api_key: \${OAI_KEY}
  models:
    gpt-small: { context_window: 8192 }`);
    const r = await cli(['providers', '-c', file, '--probe'], { env });
    expect(r.code).toBe(1);
    const table = rows(r.out);
    expect(table.get('oai')?.slice(2, 3)).toEqual(['failed']);
    expect(table.get('oai')?.[4]).toBe('reachable, credentials accepted; a model probe failed');
    expect(table.get('oai/gpt-small')?.[4]).toBe(
      'HTTP 404 Not Found: The model `gpt-small` does not exist for key [REDACTED]',
    );
    expectNoKey(r.all());
  });
});

describe('gateway providers: colours', () => {
  const file = () =>
    configFile(`down:
  api: openai
  base_url: ${refused}/v1
  api_key: \${OAI_KEY}
  models:
    m: { context_window: 8192 }
local:
  api: mock
  models:
    echo: { context_window: 8192 }`);

  test('on a terminal: bold header, green healthy rows, red failed ones, dim skipped models', async () => {
    const r = await cli(['providers', '-c', file(), '--probe'], { env, isTTY: true });
    expect(r.code).toBe(1);
    expect(r.out[0]).toMatch(/^\x1b\[1mPROVIDER .*DETAIL\x1b\[22m$/);
    expect(r.out[1]).toMatch(/^\x1b\[31mdown .*connection refused\x1b\[39m$/);
    expect(r.out[2]).toMatch(/^\x1b\[2m {2}down\/m .*skipped: endpoint unreachable\x1b\[22m$/);
    expect(r.out[3]).toMatch(/^\x1b\[32mlocal .*in-process, always up\x1b\[39m$/);
  });

  test('no colour without a terminal, nor with NO_COLOR', async () => {
    for (const opts of [{ env }, { env: { ...env, NO_COLOR: '1' }, isTTY: true }]) {
      const r = await cli(['providers', '-c', file()], opts);
      expect(r.code).toBe(1);
      expect(r.out).toHaveLength(3);
      expect(r.all()).not.toContain('\x1b');
    }
  });
});

describe('transportFailure: each socket error in a word and plain words', () => {
  const via = (code: string) => new GatewayError('upstream_unavailable', 'Could not reach', { cause: { code } });
  test.each([
    [via('ENOTFOUND'), 'dns', 'DNS lookup failed (ENOTFOUND)'],
    [via('EAI_AGAIN'), 'dns', 'DNS lookup failed (EAI_AGAIN)'],
    [via('ECONNREFUSED'), 'refused', 'connection refused'],
    [new GatewayError('upstream_timeout', 'timed out'), 'timeout', 'no answer within 250 ms'],
    [via('UND_ERR_CONNECT_TIMEOUT'), 'timeout', 'no answer within 250 ms'],
    [via('DEPTH_ZERO_SELF_SIGNED_CERT'), 'tls', 'TLS failure (DEPTH_ZERO_SELF_SIGNED_CERT)'],
    [via('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls', 'TLS failure (ERR_TLS_CERT_ALTNAME_INVALID)'],
    [via('ECONNRESET'), 'reset', 'connection closed by the server (ECONNRESET)'],
    [via('EHOSTUNREACH'), 'network', 'network error (EHOSTUNREACH)'],
    [new Error('odd'), 'network', 'network error'],
  ])('%#: %s', (err, error, detail) => {
    expect(transportFailure(err, 250)).toEqual({ error, detail });
  });
});

describe('gateway providers: bad usage or config (exit 2)', () => {
  test('an unknown --provider, a bad --timeout-ms and an invalid config', async () => {
    const unknown = await cli(['providers', '-c', healthyConfig(), '--provider', 'oai', 'nope'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.err.at(-1)).toMatch(/^error: unknown provider "nope" \(providers in .+: oai, resp, ant, local\)$/);
    expect(fleet.calls).toEqual([]);

    for (const bad of ['abc', '0', '-5']) {
      const r = await cli(['providers', '-c', healthyConfig(), '--timeout-ms', bad], { env });
      expect(r.code, bad).toBe(2);
    }

    const invalid = await cli(['providers', '-c', 'test/fixtures/cli/invalid.yaml']);
    expect(invalid.code).toBe(2);
    expect(invalid.out).toEqual([]);
    expect(invalid.err.at(-1)).toMatch(/^test\/fixtures\/cli\/invalid\.yaml: \d+ errors$/);
  });
});
