/** The real executable, built: what users run. stdout is a pipe here, so output must be plain. */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { startFakeUpstream } from '../helpers/fake-upstream.js';
import { INVALID, ROOT, VALID } from './capture.js';

const exec = promisify(execFile);

async function gateway(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '1' };
  delete env.OPENAI_API_KEY;
  delete env.GATEWAY_CONFIG;
  try {
    const { stdout, stderr } = await exec(process.execPath, ['bin/gateway.js', ...args], {
      cwd: ROOT,
      env,
      timeout: 20_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('bin/gateway.js', () => {
  beforeAll(async () => {
    // Other parts of src/ may have type errors mid-edit; tsc still emits, so only the output matters.
    await exec(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT }).catch(
      () => undefined,
    );
    expect(existsSync(join(ROOT, 'dist/cli/main.js'))).toBe(true);
  }, 180_000);

  test('a reader that leaves early (`gateway --help | head -1`) ends the output quietly, exit 0', async () => {
    const child = spawn(process.execPath, ['bin/gateway.js', '--help'], { cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    // The reader leaves before the help is written (as `head -1` has by the help's later writes).
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  test('serve keeps serving when its log reader has gone (a dead log pipe is not a reason to stop)', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.GATEWAY_KEY; // the example config's own key, local-dev-key
    const args = ['bin/gateway.js', 'serve', '--config', 'gateway.example.yaml', '--port', '0'];
    const child = spawn(process.execPath, args, { cwd: ROOT, env });
    try {
      child.stdout.destroy(); // request lines go to stdout: every one after this is an EPIPE
      let stderr = '';
      const url = await new Promise<string>((resolve) =>
        child.stderr.on('data', (c: Buffer) => {
          stderr += c.toString('utf8');
          const m = /listening on (http:\/\/\S+)/.exec(stderr);
          if (m) resolve(m[1]);
        }),
      );
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: 'Bearer local-dev-key', 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] }),
        });
        expect(r.status).toBe(200);
        await r.text();
        await new Promise((r) => setTimeout(r, 100)); // the line is written on the next turn
      }
      expect(child.exitCode).toBe(null);
    } finally {
      child.kill();
    }
  });

  test('check-config on a valid file exits 0', async () => {
    const r = await gateway(['check-config', VALID]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/valid, 2 warnings \(2 providers, 3 models, 2 aliases, 2 roles, 2 keys\)\n$/);
  });

  test('check-config on an invalid file exits 2 with plain output when stdout is not a terminal', async () => {
    const r = await gateway(['check-config', INVALID]);
    expect(r.code).toBe(2);
    expect(r.stdout).not.toContain('\u001b[');
    expect(r.stdout.split('\n')[0]).toBe(`${INVALID}:3:9  server.port: must be <= 65535`);
  });

  test('providers ends on its own within the time limit when an upstream never answers, and exits 1', async () => {
    const up = await startFakeUpstream({ handler: { kind: 'hang' } });
    try {
      const file = join(mkdtempSync(join(tmpdir(), 'gw-bin-')), 'gateway.yaml');
      writeFileSync(
        file,
        [
          'providers:',
          `  slow: { api: openai, base_url: "${up.url}/v1", api_key: k-1234567, models: { m: { context_window: 9 } } }`,
          'roles: { all: { models: ["*"] } }',
          'keys: [{ id: k, key: "test-key-123456", role: all }]',
        ].join('\n'),
      );
      const started = Date.now();
      const r = await gateway(['providers', '-c', file, '--json', '--timeout-ms', '300']);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout).providers[0]).toMatchObject({ provider: 'slow', status: 'failed', error: 'timeout' });
      expect(up.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /v1/models']);
    } finally {
      await up.close();
    }
  });
});
