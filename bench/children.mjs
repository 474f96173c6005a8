/**
 * Parent side of the child processes: fork, wait for the URL, ask for CPU/memory stats over IPC,
 * read /proc for peak RSS, and kill exactly the children this run started.
 */

import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const started = new Set();

/** Forks bench/<file> with args; resolves with { name, url, pid, child, stats() } once listening. */
export function startChild(name, file, args = [], timeoutMs = 15_000, execArgv = []) {
  // The children measure themselves: no inherited node flags (BENCH_CHILD_EXECARGV for profiling;
  // execArgv: flags for this child, e.g. one side of an A/B).
  const nodeArgs = [
    ...(process.env.BENCH_CHILD_EXECARGV ? process.env.BENCH_CHILD_EXECARGV.split(' ') : []),
    ...execArgv,
  ];
  const child = fork(fileURLToPath(new URL(file, import.meta.url)), args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: nodeArgs,
  });
  started.add(child);
  child.once('exit', () => started.delete(child));
  let nextId = 0;
  const pending = new Map();
  child.on('message', (msg) => {
    if (msg?.type === 'stats' && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    }
  });
  const handle = {
    name,
    child,
    pid: child.pid,
    url: undefined,
    /** CPU (µs) and memory as the child sees them. */
    stats(ms = 5_000, { gc = false } = {}) {
      return new Promise((resolve, reject) => {
        const id = ++nextId;
        const t = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${name}: no stats reply within ${ms} ms`));
        }, ms);
        pending.set(id, (m) => {
          clearTimeout(t);
          const { type: _t, id: _i, ...rest } = m;
          resolve({ cpuUs: m.cpuUserUs + m.cpuSystemUs, ...rest });
        });
        child.send({ type: 'stats', id, gc });
      });
    },
  };
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => fail(new Error(`${name}: not listening within ${timeoutMs} ms`)), timeoutMs);
    const fail = (err) => {
      clearTimeout(t);
      child.off('message', onReady);
      reject(err);
    };
    const onReady = (msg) => {
      if (msg?.type !== 'ready') return;
      clearTimeout(t);
      child.off('message', onReady);
      child.off('exit', onExit);
      handle.url = msg.url;
      resolve(handle);
    };
    const onExit = (code, signal) =>
      fail(new Error(`${name}: exited before listening (code ${code}, signal ${signal})`));
    child.on('message', onReady);
    child.once('exit', onExit);
  });
}

/** Fields of /proc/<pid>/status in kB (VmRSS, VmHWM…), or undefined off Linux. */
export function procStatusKb(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const out = {};
    for (const m of text.matchAll(/^(Vm\w+):\s+(\d+) kB$/gm)) out[m[1]] = Number(m[2]);
    return out;
  } catch {
    return undefined;
  }
}

/** Resets the peak-RSS watermark (VmHWM) of a child; false when the kernel does not allow it. */
export function resetPeakRss(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Asks every child started by this run to shut down, then SIGKILLs those still alive. */
export async function stopAll(graceMs = 2_000) {
  const children = [...started];
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const t = setTimeout(() => {
            killNow(child);
            resolve();
          }, graceMs);
          child.once('exit', () => {
            clearTimeout(t);
            resolve();
          });
          try {
            child.send({ type: 'shutdown' });
          } catch {
            killNow(child);
          }
        }),
    ),
  );
}

/** Synchronous last resort (process 'exit' handler): SIGKILL each child this run started, by pid. */
export function killAllNow() {
  for (const child of started) killNow(child);
}

function killNow(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Machine-wide CPU time from /proc/stat (µs, all cores), to tell how much CPU processes other
 * than this benchmark's used meanwhile. Undefined off Linux.
 */
export function machineCpu() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    const us = 1e6 / 100; // USER_HZ is 100 on Linux
    return {
      busyUs: (user + nice + system + irq + softirq) * us,
      stealUs: (steal || 0) * us,
      idleUs: (idle + iowait) * us,
    };
  } catch {
    return undefined;
  }
}
