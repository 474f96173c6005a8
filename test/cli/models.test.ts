import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServe, type RunningServe } from '../../src/cli/commands/serve.js';
import { silentLogger } from '../../src/observe/logger.js';
import type { ModelListEntry } from '../../src/routing/list-models.js';
import { capture, cli, INVALID, PLAIN_KEY, SHA_KEY, VALID } from './capture.js';

/** The ID column of a table printed on stdout (header skipped). */
const ids = (out: string[]) => out.slice(1).map((l) => l.split(/\s+/)[0]);

describe('gateway models (from the config)', () => {
  test('without --key/--role lists every model and alias, marking unavailable providers', async () => {
    const r = await cli(['models', '--config', VALID]);
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(/^ID\s+KIND\s+PROVIDER\s+CONTEXT\s+TARGETS$/);
    expect(ids(r.out)).toEqual(['local/big', 'local/echo', 'openai/gpt-4o-mini', 'team/cloud', 'team/fast']);
    expect(r.out.find((l) => l.startsWith('openai/gpt-4o-mini'))).toMatch(/model\s+openai \(unavailable\)\s+128000/);
    expect(r.out.find((l) => l.startsWith('team/fast'))).toMatch(
      /alias\s+team\s+8192\s+local\/echo, openai\/gpt-4o-mini$/,
    );
    // The table marks the provider; the config's warnings are serve's and check-config's to print.
    expect(r.err).toEqual([]);
  });

  test("--key lists what the key's role may use, for plain and sha256 keys, without echoing the key", async () => {
    const dev = await cli(['models', '-c', VALID, '--key', PLAIN_KEY]);
    expect(dev.code).toBe(0);
    expect(ids(dev.out)).toEqual(['local/echo', 'team/cloud', 'team/fast']);
    expect(dev.all()).not.toContain(PLAIN_KEY);
    const admin = await cli(['models', '-c', VALID, '--key', SHA_KEY]);
    expect(ids(admin.out)).toHaveLength(5);
    expect(admin.all()).not.toContain(SHA_KEY);
  });

  test('--role and --json', async () => {
    const r = await cli(['models', '-c', VALID, '--role', 'developer', '--json']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.out.join('\n')) as ModelListEntry[];
    expect(list.map((m) => m.id)).toEqual(['local/echo', 'team/cloud', 'team/fast']);
    expect(list[0]).toMatchObject({ kind: 'model', owner: 'local', contextWindow: 8192, available: true });
    expect(list[1]).toMatchObject({
      kind: 'alias',
      owner: 'team',
      available: true,
      targets: [],
      fallbacks: ['team/fast'],
    }); // available through its fallback; its target is outside the role, so not shown
  });

  test('unknown key, unknown role and --key with --role are usage errors (2)', async () => {
    const key = await cli(['models', '-c', VALID, '--key', 'not-a-real-key-999']);
    expect(key.code).toBe(2);
    expect(key.err.at(-1)).toBe(`error: the given key matches no key in ${VALID}`);
    expect(key.all()).not.toContain('not-a-real-key-999');
    expect(key.out).toEqual([]);

    const role = await cli(['models', '-c', VALID, '--role', 'nobody']);
    expect(role.code).toBe(2);
    expect(role.err.at(-1)).toBe(`error: unknown role "nobody" (roles in ${VALID}: developer, admin)`);

    const both = await cli(['models', '-c', VALID, '--role', 'admin', '--key', PLAIN_KEY]);
    expect(both.code).toBe(2);
    expect(both.err).toEqual(['error: --key and --role cannot be used together']);
  });

  test('an invalid config prints its issues on stderr and exits 2', async () => {
    const r = await cli(['models', '-c', INVALID]);
    expect(r.code).toBe(2);
    expect(r.out).toEqual([]);
    expect(r.err[0]).toMatch(/^test\/fixtures\/cli\/invalid\.yaml:3:9 {2}server\.port: /);
    expect(r.err.at(-1)).toMatch(/^test\/fixtures\/cli\/invalid\.yaml: \d+ errors$/);
  });
});

describe('gateway models --url (from a running gateway)', () => {
  let gw: RunningServe;
  beforeAll(async () => {
    gw = await startServe({ config: VALID, host: '127.0.0.1', port: 0, logger: silentLogger }, capture().io);
  });
  afterAll(() => gw?.close(100));

  test('lists what the key may use, the same table as from the config', async () => {
    const r = await cli(['models', '--url', gw.url, '--key', PLAIN_KEY]);
    expect(r.code).toBe(0);
    expect(ids(r.out)).toEqual(['local/echo', 'team/cloud', 'team/fast']);
    expect(r.out.find((l) => l.startsWith('team/fast'))).toMatch(/alias\s+team\s+8192\s+local\/echo$/);
    expect(r.all()).not.toContain(PLAIN_KEY);
  });

  test('takes the key from GATEWAY_KEY, accepts a /v1 suffix, and prints JSON', async () => {
    const r = await cli(['models', '--url', `${gw.url}/v1/`, '--json'], { env: { GATEWAY_KEY: SHA_KEY } });
    expect(r.code).toBe(0);
    const list = JSON.parse(r.out.join('\n')) as ModelListEntry[];
    expect(list).toHaveLength(5);
    expect(list.find((m) => m.id === 'team/fast')).toMatchObject({
      kind: 'alias',
      owner: 'team',
      targets: ['local/echo', 'openai/gpt-4o-mini'],
    });
  });

  test('an HTTP error prints the message from the body and exits 1', async () => {
    const r = await cli(['models', '--url', gw.url, '--key', 'wrong-key-0000']);
    expect(r.code).toBe(1);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/^error: http:\/\/127\.0\.0\.1:\d+\/v1\/models answered 401: .+/);
    expect(r.all()).not.toContain('wrong-key-0000');
  });

  test('no key, or --role with --url, is a usage error (2); an unreachable gateway is 1', async () => {
    expect((await cli(['models', '--url', gw.url])).code).toBe(2);
    expect((await cli(['models', '--url', gw.url, '--role', 'admin', '--key', PLAIN_KEY])).code).toBe(2);
    const down = await cli(['models', '--url', 'http://127.0.0.1:9', '--key', PLAIN_KEY]);
    expect(down.code).toBe(1);
    expect(down.err[0]).toMatch(/^error: cannot reach http:\/\/127\.0\.0\.1:9\/v1\/models: /);
  });
});

describe('gateway models: chat and embedding models', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'gw-models-')), 'gateway.yaml');
  writeFileSync(
    file,
    'providers:\n' +
      '  local:\n' +
      '    api: mock\n' +
      '    models:\n' +
      '      echo: { context_window: 8192 }\n' +
      '      embed: { context_window: 8191, kind: embedding, dimensions: 16 }\n' +
      'aliases:\n' +
      '  team/embed: { targets: [local/embed] }\n' +
      'roles: { dev: { models: ["*"] } }\n' +
      'keys: [{ id: k, key: models-kind-key-0001, role: dev }]\n',
  );

  test('the KIND column says chat or embedding, from the config and from a running gateway', async () => {
    const rows = [
      /^local\/echo\s+chat model\s+local\s+8192\s*$/,
      /^local\/embed\s+embedding model\s+local\s+8191\s*$/,
      /^team\/embed\s+embedding alias\s+team\s+8191\s+local\/embed$/,
    ];
    const local = await cli(['models', '-c', file]);
    expect(local.code).toBe(0);
    expect(local.out.slice(1)).toEqual(rows.map((r) => expect.stringMatching(r)));

    const gw = await startServe({ config: file, host: '127.0.0.1', port: 0, logger: silentLogger }, capture().io);
    try {
      const remote = await cli(['models', '--url', gw.url, '--key', 'models-kind-key-0001']);
      expect(remote.out.slice(1)).toEqual(rows.map((r) => expect.stringMatching(r)));
      const json = await cli(['models', '--url', gw.url, '--key', 'models-kind-key-0001', '--json']);
      const list = JSON.parse(json.out.join('\n')) as ModelListEntry[];
      expect(list.map((m) => [m.id, m.kind, m.modelKind])).toEqual([
        ['local/echo', 'model', 'chat'],
        ['local/embed', 'model', 'embedding'],
        ['team/embed', 'alias', 'embedding'],
      ]);
    } finally {
      await gw.close(100);
    }
  });
});
