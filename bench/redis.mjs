/**
 * A redis-server for the Redis lane: started on a free 127.0.0.1 port (no persistence, its own
 * temporary directory) when `redis-server` is on PATH; otherwise the lane is skipped with a note.
 * Only the process started here is ever signalled, by its pid.
 */

import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const BINARY = 'redis-server';

/** The redis-server on PATH, or undefined. */
export function findRedisServer() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, BINARY);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

async function freePort() {
  const srv = createServer();
  await new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', resolve);
  });
  const { port } = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

function ping(port, timeoutMs = 500) {
  return new Promise((resolve) => {
    let buf = '';
    const sock = createConnection({ host: '127.0.0.1', port });
    const finish = (ok) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    sock.once('error', () => finish(false));
    sock.once('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => {
      buf += d.toString('utf8');
      if (buf.includes('\r\n')) finish(buf.startsWith('+PONG'));
    });
  });
}

/** CPU time (µs) of a process from /proc/<pid>/stat (USER_HZ = 100), or undefined off Linux. */
function procCpuUs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which is in parentheses and may contain spaces).
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(rest[11]);
    const stime = Number(rest[12]);
    return (utime + stime) * 10_000;
  } catch {
    return undefined;
  }
}

/**
 * Starts redis-server; resolves with { name, url, pid, stats(), stop(), killNow() }, or with
 * { skipped: reason } when the binary is not on PATH. Rejects if it does not answer PING in time.
 */
export async function startRedis({ timeoutMs = 10_000 } = {}) {
  const binary = findRedisServer();
  if (!binary) return { skipped: `${BINARY} not on PATH (Debian/Ubuntu: apt-get install redis-server)` };
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-redis-'));
  const proc = spawn(
    binary,
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
      '--loglevel',
      'warning',
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      cwd: dir,
    },
  );
  let stderr = '';
  proc.stderr.on('data', (d) => {
    if (stderr.length < 4000) stderr += d.toString('utf8');
  });
  let exited;
  proc.once('exit', (code, signal) => {
    exited = `exited (code ${code}, signal ${signal})`;
  });
  proc.once('error', (err) => {
    exited = `failed to start: ${err.message}`;
  });

  const killNow = () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    try {
      process.kill(proc.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const stop = async (graceMs = 2_000) => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const gone = new Promise((resolve) => proc.once('exit', resolve));
      try {
        process.kill(proc.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const t = setTimeout(killNow, graceMs);
      await gone;
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !exited) {
    if (await ping(port)) {
      return {
        name: 'redis',
        url: `redis://127.0.0.1:${port}`,
        pid: proc.pid,
        /** Same shape as a forked child's stats (CPU only): counted as the benchmark's own CPU. */
        async stats() {
          return { cpuUs: procCpuUs(proc.pid) ?? 0 };
        },
        stop,
        killNow,
      };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new Error(
    `redis-server on 127.0.0.1:${port} did not answer PING within ${timeoutMs} ms` +
      `${exited ? ` (${exited})` : ''}: ${stderr.slice(-1000)}`,
  );
}
