/**
 * Budget spend survives restarts of the real CLI (`node bin/gateway.js serve`), run as a child
 * process with the embedded store's file in a temporary directory:
 *   (a) SIGTERM: the graceful close writes the state file (flush_ms is set far beyond the run, so
 *       only the close can have written it), and the next instance refuses what would overflow;
 *   (b) SIGKILL after waiting longer than flush_ms: what the periodic flush wrote is still there.
 * The built-in mock provider answers (no upstream); its model has a price, so requests cost.
 * Only the PIDs of children started here are ever signalled.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const exec = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

const KEY1 = 'restart-state-key-one-0001';
const KEY2 = 'restart-state-key-two-0002';
const BODY = JSON.stringify({
  model: 'local/echo',
  max_tokens: 5,
  messages: [{ role: 'user', content: 'one two three' }],
});
/** 1000 USD per million tokens = 1 000 000 nano-USD per token. */
const PER_TOKEN = 1_000_000;
/** The mock reports ceil(13 / 4) + 3 + 3 = 10 input tokens and 3 output tokens (one per word). */
const A = 13 * PER_TOKEN;
/** Reserved: ceil(body bytes / 3) input tokens + max_tokens. */
const R = (Math.ceil(Buffer.byteLength(BODY) / 3) + 5) * PER_TOKEN;
/** Three requests per key fit (2A + R ≤ L), a fourth does not (3A + R > L). */
const L = 2 * A + R + A / 2;

interface Child {
  proc: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<ChildProcess>();
let dir: string;
let statePath: string;

interface RunConfig {
  flushMs: number;
  /** Default: the shared state file of this file's tests. */
  path?: string;
  graceMs?: number;
  /** Provider `mock:` settings (e.g. a delay between stream chunks). */
  mock?: string;
  extra?: string;
}

function configYaml(c: RunConfig): string {
  return `
server: { host: 127.0.0.1, port: 4000, shutdown_grace_ms: ${c.graceMs ?? 2000} }
providers:
  local:
    api: mock
    mock: ${c.mock ?? '{}'}
    models:
      echo: { context_window: 8192, price: { input: 1000, output: 1000 } }
roles:
  user: { models: ["local/*"] }
keys:
  - { id: k1, key: ${KEY1}, role: user }
  - { id: k2, key: ${KEY2}, role: user }
budgets:
  - { id: per-key, scope: { each_key_of_role: user }, limit_usd: ${L / 1e9}, period: total }
state: { path: ${JSON.stringify(c.path ?? statePath)}, flush_ms: ${c.flushMs} }
${c.extra ?? ''}`;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/**
 * Starts `gateway serve` and waits for its "listening" line. Retried (at most 3 times) when the
 * child exits first: the free port may have been taken meanwhile, or another test file may be
 * rewriting dist/ at that moment.
 */
let configs = 0;

async function startCli(c: RunConfig): Promise<Child> {
  const configPath = join(dir, `gateway-${++configs}.yaml`);
  writeFileSync(configPath, configYaml(c));
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.GATEWAY_CONFIG;
  delete env.FORCE_COLOR;
  let lastErr = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const proc = spawn(
      process.execPath,
      ['bin/gateway.js', 'serve', '--config', configPath, '--port', String(port), '--host', '127.0.0.1'],
      {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.add(proc);
    let err = '';
    proc.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
    proc.stdout!.resume(); // request logs: drained so the pipe never fills
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      proc.once('exit', (code, signal) => {
        children.delete(proc);
        r({ code, signal });
      }),
    );
    const url = await new Promise<string | undefined>((resolveUrl) => {
      const timer = setTimeout(() => resolveUrl(undefined), 20_000);
      const check = () => {
        const m = /gateway listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err.replace(/\u001b\[[0-9;]*m/g, ''));
        if (m) {
          clearTimeout(timer);
          resolveUrl(m[1]);
        }
      };
      proc.stderr!.on('data', check);
      void exited.then(() => {
        clearTimeout(timer);
        resolveUrl(undefined);
      });
    });
    if (url) return { proc, url, stderr: () => err, exited };
    lastErr = err;
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
      await exited;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`gateway serve did not start:\n${lastErr}`);
}

async function stop(child: Child, signal: 'SIGTERM' | 'SIGKILL') {
  child.proc.kill(signal);
  return child.exited;
}

function chat(url: string, key: string): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: BODY,
  });
}

function counters(path = statePath): Record<string, { value: number; expiresAt?: number }> {
  return (JSON.parse(readFileSync(path, 'utf8')) as { counters: Record<string, { value: number; expiresAt?: number }> })
    .counters;
}

describe('budget spend across restarts of `gateway serve`', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-restart-'));
    statePath = join(dir, 'state.json');
    // Other parts of src/ may have type errors mid-edit; tsc still emits, so only the output matters.
    await exec(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT }).catch(
      () => undefined,
    );
    expect(existsSync(join(ROOT, 'dist/cli/main.js'))).toBe(true);
  }, 180_000);

  afterAll(async () => {
    // Only children this file started, by their own handles.
    for (const proc of children) proc.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the arithmetic the test relies on', () => {
    expect(Buffer.byteLength(BODY)).toBe(92);
    expect(R).toBe(36 * PER_TOKEN);
    expect(L).toBe(68_500_000);
  });

  test('SIGTERM flushes on close; SIGKILL keeps what was flushed before it', async () => {
    // ---- run 1: flush_ms far beyond the run, so only the graceful close can write the file.
    const one = await startCli({ flushMs: 600_000 });
    for (let i = 0; i < 3; i++) {
      const res = await chat(one.url, KEY1);
      expect(res.status, await res.clone().text()).toBe(200);
      expect(res.headers.get('x-gateway-cost-usd')).toBe('0.013000');
      await res.arrayBuffer();
    }
    expect(existsSync(statePath)).toBe(false);
    expect(await stop(one, 'SIGTERM')).toEqual({ code: 0, signal: null });
    expect(counters()['budget:per-key:k1:total'].value).toBe(3 * A);

    // ---- run 2: the spend is back: k1's next request would overflow and is refused.
    const two = await startCli({ flushMs: 200 });
    const refused = await chat(two.url, KEY1);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-gateway-limit')).toBe('budget=per-key');
    const body = await refused.json();
    expect(body.error.code).toBe('budget_exceeded');
    expect(body.error.message).toContain(`$0.039000 of $${L / 1e9} used`);
    // k2 has its own counter, untouched so far: three requests fit.
    for (let i = 0; i < 3; i++) expect((await chat(two.url, KEY2)).status).toBe(200);
    // Longer than flush_ms (lower bound only), then no chance to flush on the way out.
    await new Promise((r) => setTimeout(r, 600));
    expect(await stop(two, 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    const saved = counters();
    expect(saved['budget:per-key:k1:total'].value).toBe(3 * A);
    expect(saved['budget:per-key:k2:total'].value).toBe(3 * A);

    // ---- run 3: both keys' spend survived the kill.
    const three = await startCli({ flushMs: 200 });
    for (const key of [KEY2, KEY1]) {
      const res = await chat(three.url, key);
      expect(res.status).toBe(429);
      expect((await res.json()).error.message).toContain(`$0.039000 of $${L / 1e9} used`);
    }
    expect(await stop(three, 'SIGTERM')).toEqual({ code: 0, signal: null });
    // The writes go through a temporary file renamed over the state file: none is left behind.
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(JSON.parse(readFileSync(statePath, 'utf8')).version).toBe(1);
  }, 120_000);
  /*
   * BUG (src/server/http.ts, Gateway.close): after the grace period, close() destroys the
   * remaining connections (closeAllConnections) and then closes the reconcile queue and the
   * store (MemoryStore.close → final flush) WITHOUT waiting for the cut requests' pipelines to
   * finish. Their settlement (limits.ts settle(), run from the stream's finally / ctx.onDone)
   * lands after the final flush, in memory only. The state file therefore keeps the stream's
   * in-flight slot and its whole reservation: after the restart, max_concurrent 1 refuses every
   * request ("at most 1 requests in flight") until the slot's 15-minute TTL expires, and the
   * budget stays charged the reservation (max_tokens at the output price) instead of the usage
   * seen. Expected: close() waits (bounded) for the aborted requests to settle before closing
   * the store, so the file holds in-flight 0 and the settled spend.
   */
  test('SIGTERM with a stream still running past shutdown_grace_ms: its slot and reservation are settled before the ' +
    'final flush', async () => {
    const path = join(dir, 'shutdown-state.json');
    const run = {
      flushMs: 600_000,
      path,
      graceMs: 200,
      mock: '{ chunk_delay_ms: 300 }',
      extra: 'rate_limits:\n  - { id: one-at-a-time, scope: { global: true }, max_concurrent: 1 }',
    };
    const one = await startCli(run);
    const long = JSON.stringify({
      model: 'local/echo',
      max_tokens: 20,
      stream: true,
      messages: [{ role: 'user', content: 'a b c d e f g h i j k l m n o p' }],
    });
    // A stream of 16 chunks 300 ms apart: started, far from done when the grace period ends.
    await new Promise<void>((resolveStarted, reject) => {
      const req = httpRequest(
        `${one.url}/v1/chat/completions`,
        { method: 'POST', headers: { authorization: `Bearer ${KEY1}`, 'content-type': 'application/json' } },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`stream refused: ${res.statusCode}`));
          res.once('data', () => resolveStarted());
          res.on('error', () => undefined);
          res.resume();
        },
      );
      req.on('error', (e) => reject(e));
      req.end(long);
    });
    expect(await stop(one, 'SIGTERM')).toEqual({ code: 0, signal: null });
    const saved = counters(path);
    // The mock reported ceil(31 / 4) + 3 + 3 = 14 input tokens at message_start (14 000 000
    // nano), plus the output relayed before the cut (counted locally, a token or two): the
    // usage seen, well below the reservation (~47 estimated input + 20 output tokens).
    expect(saved['rl:one-at-a-time:*:inflight']?.value ?? 0).toBe(0);
    const spent = saved['budget:per-key:k1:total'].value;
    expect(spent).toBeGreaterThanOrEqual(14 * PER_TOKEN);
    expect(spent).toBeLessThanOrEqual((14 + 20) * PER_TOKEN);
    // And so, after the restart, the one slot is free.
    const two = await startCli(run);
    try {
      expect((await chat(two.url, KEY2)).status).toBe(200);
    } finally {
      await stop(two, 'SIGTERM');
    }
  }, 60_000);
});

describe('SIGHUP reloads the config of a running `gateway serve`', () => {
  test('a valid file is applied, an invalid one is refused and the old config stays', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-sighup-'));
    const path = join(dir, 'state-sighup.json');
    const child = await startCli({ flushMs: 1000, path });
    const configPath = join(dir, `gateway-${configs}.yaml`);
    try {
      expect((await chat(child.url, KEY2)).status).toBe(200);
      // Without key k2, the next requests with it are refused once the reload is in.
      writeFileSync(configPath, configYaml({ flushMs: 1000, path }).replace(/\n {2}- \{ id: k2, .*\n/, '\n'));
      child.proc.kill('SIGHUP');
      let status = 200;
      for (let i = 0; i < 100 && status !== 401; i++) {
        await new Promise((r) => setTimeout(r, 50));
        status = (await chat(child.url, KEY2)).status;
      }
      expect(status).toBe(401);
      writeFileSync(configPath, 'providers: [');
      child.proc.kill('SIGHUP');
      await new Promise((r) => setTimeout(r, 300));
      expect((await chat(child.url, KEY1)).status).toBe(200);
      expect(child.proc.exitCode).toBeNull();
    } finally {
      await stop(child, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
