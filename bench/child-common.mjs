/**
 * Child-process side of the benchmark's IPC: every server the benchmark starts (upstream, bare
 * proxy, gateway) is a forked child that reports its URL once listening, answers `stats`
 * requests (its own CPU time and memory, measured inside the process) and exits on `shutdown`
 * or when the parent goes away.
 */

import { getHeapSpaceStatistics } from 'node:v8';

/** Wires up IPC; `close` is awaited (bounded) before the process exits on shutdown. */
export function serveIpc(close) {
  if (!process.send) throw new Error('this file is meant to be forked by bench/run.mjs');
  let exiting = false;
  const exit = async (code) => {
    if (exiting) return;
    exiting = true;
    const t = setTimeout(() => process.exit(code), 1500);
    t.unref();
    try {
      await close();
    } catch {
      // Shutting down anyway.
    }
    process.exit(code);
  };
  process.on('message', (msg) => {
    if (msg?.type === 'stats') {
      // With BENCH_CHILD_EXECARGV=--expose-gc, `{ gc: true }` measures the heap after a full GC.
      if (msg.gc && typeof globalThis.gc === 'function') globalThis.gc();
      const cpu = process.cpuUsage();
      const mem = process.memoryUsage();
      process.send({
        type: 'stats',
        id: msg.id,
        cpuUserUs: cpu.user,
        cpuSystemUs: cpu.system,
        rssBytes: mem.rss,
        heapTotalBytes: mem.heapTotal,
        heapUsedBytes: mem.heapUsed,
        externalBytes: mem.external,
        maxRssKb: process.resourceUsage().maxRSS,
        // Per V8 space (new_space, old_space, code_space, ...): what the heap's share of RSS is made of.
        heapSpaces: Object.fromEntries(
          getHeapSpaceStatistics().map((s) => [
            s.space_name,
            { sizeBytes: s.space_size, usedBytes: s.space_used_size },
          ]),
        ),
        // Requests served so far, for a process that counts them (the upstream: proof a lane forwarded).
        requests: globalThis.benchRequestCount,
        // Whatever else the child reports about itself (gateway-child: its request log file).
        ...globalThis.benchStats?.(),
      });
    } else if (msg?.type === 'shutdown') {
      void exit(0);
    }
  });
  // The parent died or closed the channel: do not linger.
  process.on('disconnect', () => void exit(0));
  process.on('SIGTERM', () => void exit(0));
}

export function ready(url) {
  process.send({ type: 'ready', url, pid: process.pid });
}

/** `--name value` pairs from argv. */
export function args(argv = process.argv.slice(2)) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq !== -1) out[a.slice(2, eq)] = a.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out[a.slice(2)] = argv[++i];
    else out[a.slice(2)] = 'true';
  }
  return out;
}
