/**
 * Starts a real `redis-server` on 127.0.0.1 (free port, no persistence) for integration tests,
 * and can stop it and start it again on the same port to simulate an outage.
 *
 * The binary must be on PATH (Debian/Ubuntu: `apt-get install redis-server`). Without it the
 * Redis tests are skipped with a notice on stderr (a fresh machine still runs `npm test`), unless
 * GATEWAY_REQUIRE_REDIS=1 (CI sets it in .ci/run): then they fail. GATEWAY_SKIP_REDIS_TESTS=1
 * skips them even when the binary is there.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export const REDIS_BINARY = 'redis-server';

export interface RedisServer {
  url: string;
  port: number;
  /** SIGTERM the process this helper started and wait for it to exit. */
  stop(): Promise<void>;
  /** Start redis-server again on the same port (after stop()) and wait until it answers PING. */
  restart(): Promise<void>;
}

/** Whether `redis-server` is an executable on PATH. */
export function redisAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, REDIS_BINARY), fsConstants.X_OK);
      return true;
    } catch {
      // keep looking
    }
  }
  return false;
}

const INSTALL_HINT = 'Debian/Ubuntu: sudo apt-get install redis-server';

/**
 * Why the Redis tests are skipped, or undefined when they run: the binary is missing and
 * GATEWAY_REQUIRE_REDIS is not 1, or GATEWAY_SKIP_REDIS_TESTS=1.
 */
export function redisSkipReason(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.GATEWAY_REQUIRE_REDIS === '1') return undefined;
  if (env.GATEWAY_SKIP_REDIS_TESTS === '1') return 'GATEWAY_SKIP_REDIS_TESTS=1';
  if (!redisAvailable(env))
    return `${REDIS_BINARY} is not on PATH (${INSTALL_HINT}; GATEWAY_REQUIRE_REDIS=1 makes this a failure)`;
  return undefined;
}

/** True when the Redis tests in `what` are skipped; says so on stderr, so a skip is never silent. */
export function skipRedisTests(what = 'the Redis tests'): boolean {
  const reason = redisSkipReason();
  if (reason) console.warn(`NOTICE: skipping ${what}: ${reason}`);
  return reason !== undefined;
}

/** Throws a clear error when the binary is missing and the tests were not skipped. */
export function requireRedis(): void {
  if (redisAvailable()) return;
  throw new Error(
    `${REDIS_BINARY} was not found on PATH; the Redis integration tests need it (${INSTALL_HINT}). ` +
      `GATEWAY_REQUIRE_REDIS=1 is set, so they fail instead of being skipped.`,
  );
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** One raw PING over TCP; resolves true on +PONG. */
function pingOnce(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    let buf = '';
    const sock = createConnection({ host: '127.0.0.1', port });
    const finish = (ok: boolean): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    sock.once('error', () => finish(false));
    sock.once('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      if (buf.includes('\r\n')) finish(buf.startsWith('+PONG'));
    });
  });
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // If a test run dies without calling stop(), do not leave our redis-server processes behind.
  process.once('exit', () => {
    for (const child of live) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

export async function startRedisServer(opts: { startTimeoutMs?: number } = {}): Promise<RedisServer> {
  requireRedis();
  installExitHook();
  const startTimeoutMs = opts.startTimeoutMs ?? 10_000;
  const port = await freePort();
  let child: ChildProcess | undefined;
  let dir: string | undefined;

  const launch = async (): Promise<void> => {
    const output: string[] = [];
    // Working directory for the server, so nothing (not even a stray dump) lands in the repository.
    dir = mkdtempSync(join(tmpdir(), 'gateway-redis-'));
    const proc = spawn(
      REDIS_BINARY,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--daemonize',
        'no',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir },
    );
    child = proc;
    live.add(proc);
    let exited: string | undefined;
    proc.once('exit', (code, signal) => {
      live.delete(proc);
      exited = `exited (code ${code}, signal ${signal})`;
    });
    proc.once('error', (err) => {
      exited = `failed to start: ${err.message}`;
    });
    const keep = (d: Buffer): void => {
      if (output.length < 200) output.push(d.toString('utf8'));
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);

    const deadline = Date.now() + startTimeoutMs;
    while (Date.now() < deadline) {
      if (exited) break;
      if (await pingOnce(port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!exited) await stopProcess(proc);
    child = undefined;
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `redis-server on 127.0.0.1:${port} did not answer PING within ${startTimeoutMs} ms` +
        `${exited ? ` (${exited})` : ''}:\n${output.join('').slice(-2000)}`,
    );
  };

  await launch();

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      const proc = child;
      child = undefined;
      if (proc) await stopProcess(proc);
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
    async restart() {
      if (child) throw new Error('restart(): redis-server is still running; stop() it first');
      await launch();
    },
  };
}

/** SIGTERM this one process, wait for it to exit; SIGKILL it after 5 s. */
async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }, 5_000);
  await exited;
  clearTimeout(timer);
}
