import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { startServe, type RunningServe } from '../../src/cli/commands/serve.js';
import { capture, cli, INVALID, PLAIN_KEY, SHA_KEY, VALID } from './capture.js';

const SECRET = 'sk-live-supersecret-999';

/** Sends the request a printed curl line describes, expanding `$VAR` from `env` as a shell would. */
async function curlLine(line: string, env: Record<string, string>): Promise<Response> {
  const m =
    /^ {2}curl (\S+) -H "Authorization: Bearer ((?:[^"\\]|\\.)*)" -H 'content-type: application\/json' -d '(.+)'$/.exec(
      line,
    );
  if (!m) throw new Error(`not a curl line: ${line}`);
  const key = m[2].replace(/\$([A-Za-z_]\w*)|\\(.)/g, (_, v: string | undefined, esc: string | undefined) =>
    v ? (env[v] ?? '') : esc!,
  );
  return fetch(m[1], {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: m[3],
  });
}

describe('gateway serve', () => {
  let running: RunningServe | undefined;
  afterEach(async () => {
    await running?.close(100);
    running = undefined;
  });

  test('starts in-process, serves /health and /v1/models, and prints a working curl line without secrets', async () => {
    const c = capture({ env: { OPENAI_API_KEY: SECRET } });
    running = await startServe({ config: VALID, host: '127.0.0.1', port: 0 }, c.io);
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const health = await fetch(`${running.url}/health`);
    expect(health.status).toBe(200);
    const models = await fetch(`${running.url}/v1/models`, { headers: { authorization: `Bearer ${PLAIN_KEY}` } });
    expect(models.status).toBe(200);
    const body = (await models.json()) as { data: Array<{ id: string }> };
    expect(body.data.map((m) => m.id)).toEqual(['local/echo', 'team/cloud', 'team/fast']);

    expect(c.err[0]).toContain('warning: aliases allowed here route to models role "developer" may not name directly');
    expect(c.err[1]).toBe(`gateway listening on ${running.url} (config: ${VALID})`);
    // valid.yaml writes the key of "laptop" literally: the line carries it, so it works as pasted.
    expect(c.err.join('\n')).toContain(`try it with the key with id "laptop" (role: developer; written in ${VALID}):`);
    const curl = c.err.find((l) => l.trimStart().startsWith('curl '));
    expect(curl).toBe(
      `  curl ${running.url}/v1/chat/completions -H "Authorization: Bearer ${PLAIN_KEY}" -H 'content-type: ` +
        `application/json' ` +
        `-d '{"model":"local/echo","messages":[{"role":"user","content":"Hello"}]}'`,
    );
    expect((await curlLine(curl!, {})).status).toBe(200);
    // Values from the environment are never printed.
    expect(c.all()).not.toContain(SECRET);
  });

  test('prints config warnings to stderr before starting', async () => {
    const c = capture();
    running = await startServe({ config: VALID, port: 0 }, c.io);
    expect(c.err[0]).toMatch(
      /:17:14 {2}providers\.openai\.api_key: warning: environment variable OPENAI_API_KEY is not set/,
    );
    expect(c.out).toEqual([]);
  });

  test('a port in use is one line and exit 1', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const r = await cli(['serve', '-c', VALID, '--host', '127.0.0.1', '--port', String(port)], {
        env: { OPENAI_API_KEY: SECRET },
      });
      expect(r.code).toBe(1);
      expect(r.err.filter((l) => !l.includes('warning:'))).toEqual([
        `error: port ${port} on 127.0.0.1 is already in use (try --port)`,
      ]);
      expect(r.out).toEqual([]);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  test('an invalid config prints issues and a summary on stderr and exits 2', async () => {
    const r = await cli(['serve', '-c', INVALID, '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.out).toEqual([]);
    expect(r.err[0]).toMatch(/^test\/fixtures\/cli\/invalid\.yaml:3:9 {2}server\.port: /);
    expect(r.err.at(-1)).toMatch(/^test\/fixtures\/cli\/invalid\.yaml: \d+ errors$/);
  });

  test('a bad --port is a usage error (2)', async () => {
    const r = await cli(['serve', '-c', VALID, '--port', '70000']);
    expect(r.code).toBe(2);
    expect(r.err.join('\n')).toContain('must be an integer from 0 to 65535');
  });

  describe('the request log', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-serve-log-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const KEY = 'serve-log-key-0001';
    const configWithLog = (name: string, log: string) => {
      const file = join(dir, name);
      writeFileSync(
        file,
        `server: { host: 127.0.0.1, port: 0 }
providers: { local: { api: mock, models: { echo: { context_window: 8192 } } } }
roles: { dev: { models: ["local/*"] } }
keys: [ { id: k, key: ${KEY}, role: dev } ]
observability: { log: ${log} }
`,
      );
      return file;
    };
    /** Requests at once (their lines batched in few turns); the correlation ids, in no particular order. */
    const requests = (n: number) =>
      Promise.all(
        Array.from({ length: n }, async () => {
          const res = await fetch(`${running!.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] }),
          });
          expect(res.status).toBe(200);
          await res.arrayBuffer();
          return res.headers.get('x-correlation-id')!;
        }),
      );
    const requestIds = (text: string) =>
      text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l))
        .filter((l) => l.msg === 'request')
        .map((l) => l.correlation_id as string);

    test('stdout: one JSON line per request, every one written by close()', async () => {
      const c = capture();
      running = await startServe({ config: configWithLog('out.yaml', '{ format: json }'), port: 0 }, c.io);
      const ids = await requests(20);
      await running.close(100);
      running = undefined;
      expect(requestIds(c.out.join('\n')).sort()).toEqual([...ids].sort());
    });

    test('log.file: every line in the file once close() resolves', async () => {
      const path = join(dir, 'requests.jsonl');
      const c = capture();
      running = await startServe({ config: configWithLog('file.yaml', `{ file: ${path} }`), port: 0 }, c.io);
      const ids = await requests(20);
      await running.close(100);
      running = undefined;
      expect(requestIds(readFileSync(path, 'utf8')).sort()).toEqual([...ids].sort());
      expect(c.out).toEqual([]);
    });
  });

  describe("the curl line's key", () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-serve-key-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const configWithKeys = (name: string, keys: string) => {
      const file = join(dir, name);
      writeFileSync(
        file,
        `server: { host: 127.0.0.1, port: 0 }
providers: { local: { api: mock, models: { echo: { context_window: 8192 } } } }
roles: { dev: { models: ["local/*"] } }
keys:
${keys}
`,
      );
      return file;
    };
    const start = async (file: string, env: Record<string, string>) => {
      const c = capture({ env });
      running = await startServe({ config: file, port: 0 }, c.io);
      const curl = c.err.find((l) => l.trimStart().startsWith('curl '));
      return { c, curl: curl!, intro: c.err.find((l) => l.startsWith('try it'))! };
    };

    test('${VAR:-default} with VAR unset: the default, as written in the file', async () => {
      const file = configWithKeys(
        'default.yaml',
        '  - { id: laptop, key: "${GW_TEST_KEY:-local-dev-key}", role: dev }',
      );
      const { curl, intro } = await start(file, {});
      expect(curl).toContain('-H "Authorization: Bearer local-dev-key"');
      expect(intro).toBe(
        `try it with the key with id "laptop" (role: dev; the default in ${file}, as GW_TEST_KEY is unset):`,
      );
      expect((await curlLine(curl, {})).status).toBe(200);
    });

    test('a key from the environment is named by its variable, never printed', async () => {
      const env = { GW_TEST_KEY: 'env-secret-key-0001' };
      for (const written of ['${GW_TEST_KEY}', '${GW_TEST_KEY:-local-dev-key}']) {
        const file = configWithKeys('env.yaml', `  - { id: laptop, key: "${written}", role: dev }`);
        const { c, curl, intro } = await start(file, env);
        expect(curl).toContain('-H "Authorization: Bearer $GW_TEST_KEY"');
        expect(intro).toBe(
          'try it with the key with id "laptop" (role: dev; with GW_TEST_KEY set as for the gateway):',
        );
        expect(c.all()).not.toContain(env.GW_TEST_KEY);
        expect((await curlLine(curl, env)).status).toBe(200);
        await running!.close(100);
        running = undefined;
      }
    });

    test('prefers a key that can be shown, escaped for the shell; a digest is $GATEWAY_KEY', async () => {
      const digest = 'sha256:a36833886702d7d1502c67e49bd31a8ba1423a0958998910bc4db0c6e0b84df8';
      const mixed = configWithKeys(
        'mixed.yaml',
        [
          `  - { id: ci, key: "${digest}", role: dev }`,
          '  - { id: dev2, key: "dev \\"quoted\\" $key", role: dev }',
        ].join('\n'),
      );
      const shown = await start(mixed, {});
      expect(shown.intro).toContain('key with id "dev2"');
      expect(shown.curl).toContain('-H "Authorization: Bearer dev \\"quoted\\" \\$key"');
      expect((await curlLine(shown.curl, {})).status).toBe(200);
      await running!.close(100);
      running = undefined;

      const only = configWithKeys('digest.yaml', `  - { id: ci, key: "${digest}", role: dev }`);
      const placeholder = await start(only, {});
      expect(placeholder.intro).toBe('try it with the key with id "ci" (role: dev; with GATEWAY_KEY set to that key):');
      expect(placeholder.curl).toContain('-H "Authorization: Bearer $GATEWAY_KEY"');
      expect((await curlLine(placeholder.curl, { GATEWAY_KEY: SHA_KEY })).status).toBe(200);
    });
  });
});
