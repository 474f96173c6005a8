import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { startServe, type RunningServe } from '../../src/cli/commands/serve.js';
import { capture, cli, INVALID, PLAIN_KEY, VALID } from './capture.js';

const SECRET = 'sk-live-supersecret-999';

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
    expect(c.err.join('\n')).toContain('key with id "laptop"');
    const curl = c.err.find((l) => l.trimStart().startsWith('curl '));
    expect(curl).toBe(
      `  curl ${running.url}/v1/chat/completions -H "Authorization: Bearer $GATEWAY_KEY" -H 'content-type: application/json' ` +
        `-d '{"model":"local/echo","messages":[{"role":"user","content":"Hello"}]}'`,
    );
    // The curl line's request works against the mock provider.
    const payload = /-d '(.+)'$/.exec(curl!)![1];
    const chat = await fetch(`${running.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PLAIN_KEY}`, 'content-type': 'application/json' },
      body: payload,
    });
    expect(chat.status).toBe(200);

    expect(c.all()).not.toContain(PLAIN_KEY);
    expect(c.all()).not.toContain(SECRET);
  });

  test('prints config warnings to stderr before starting', async () => {
    const c = capture();
    running = await startServe({ config: VALID, port: 0 }, c.io);
    expect(c.err[0]).toMatch(/:17:14 {2}providers\.openai\.api_key: warning: environment variable OPENAI_API_KEY is not set/);
    expect(c.out).toEqual([]);
  });

  test('a port in use is one line and exit 1', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const r = await cli(['serve', '-c', VALID, '--host', '127.0.0.1', '--port', String(port)], { env: { OPENAI_API_KEY: SECRET } });
      expect(r.code).toBe(1);
      expect(r.err.filter((l) => !l.includes('warning:'))).toEqual([`error: port ${port} on 127.0.0.1 is already in use (try --port)`]);
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
});
