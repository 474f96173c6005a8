/**
 * The request log line in isolation: the gateway's logger (from a build, --dist) against pino
 * with an async destination (`pino.destination({ sync: false, minLength: 4096 })`, configured to
 * write the same fields), each case in its own child process, N realistic request records.
 *
 *   node bench/logger.mjs [--lines 100000] [--runs 3] [--dist dir] [--sinks file,stdout-file,null,pipe]
 *                         [--loggers gateway,pino,gateway-noop,pino-noop] [--burst 32] [--out file]
 *   more loggers: pino-sync (pino.destination's default: a write(2) per line), pino-async0 (async,
 *   minLength 0)
 *
 * Sinks: `file` is `observability.log.file` (the gateway's file writer; pino's destination on
 * the path); `stdout-file`, `null` and `pipe` are the default (stdout) redirected to a file,
 * /dev/null or a pipe the parent drains (a container or a service manager). `*-noop` loggers
 * format every line and drop it: what the formatting alone costs.
 *
 * Per case, medians over --runs: CPU µs per line (process.cpuUsage, every thread of the process,
 * the final flush included), µs per line spent inside log() (how long a request is held up),
 * lines per second until everything is written, and the event loop's worst delay (1 ms timer).
 * Lines go out in bursts of --burst (32: many requests ending in one turn of the event loop; 1:
 * one at a time) with a setImmediate between, so async writers can drain as between requests.
 * Everything is bounded: --lines lines per child, a 60 s limit per child.
 */

import { fork } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { args } from './child-common.mjs';
import { loadPino, PINO_ASYNC, pinoLogger } from './pino-logger.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const opts = args();
const BURST = Number(opts.burst ?? 32);
const WARMUP = 5_000;

/** A finished streaming request as src/observe/record.ts builds it: 27 keys, 23 set. */
function record(i) {
  return {
    correlation_id: `01JC${(1e12 + i).toString(36).toUpperCase()}ZQ4M8N2P6R`,
    time: new Date(1_760_000_000_000 + i * 7).toISOString(),
    endpoint: 'POST /v1/chat/completions',
    key_id: 'team-backend',
    role: 'developer',
    model: 'team/fast',
    provider: 'openai',
    served_model: 'openai/gpt-4.1-mini',
    attempts: 1,
    fallback: false,
    status: 200,
    error_code: undefined,
    fault: undefined,
    stream: true,
    input_tokens: 812 + (i % 97),
    output_tokens: 64 + (i % 13),
    cache_read_tokens: 512,
    cache_write_tokens: 0,
    cost_usd: (1234 + i) / 1e9,
    latency_ms: 412.37 + (i % 50),
    upstream_ms: 409.91 + (i % 50),
    ttft_ms: 121.5,
    overhead_ms: 0.41,
    byok: false,
    client_aborted: undefined,
    guardrails: [{ guardrail: 'pii', action: 'redact', direction: 'output', label: 'email' }],
    dropped_fields: undefined,
  };
}

/** pino's destinations: the async one asked about, and its default (sync) and unbatched forms. */
const PINO_DESTINATIONS = {
  pino: PINO_ASYNC,
  'pino-sync': { sync: true },
  'pino-async0': { sync: false, minLength: 0 },
};

/**
 * The gateway's logger from the build; `flush` resolves once every line is written. The file
 * writer is in observe/log-writer.js (observe/logger.js in builds before the batching).
 */
async function gatewayLog(dist, logger, sink, file) {
  const load = (f) => import(pathToFileURL(join(dist, f)).href);
  const gw = await load('observe/logger.js');
  const writers = await load('observe/log-writer.js').catch(() => gw);
  let write;
  // The default stdout writer writes at the end of each turn (or at once, before the batching).
  let flush = () => new Promise((r) => setImmediate(r));
  if (logger === 'gateway-noop') write = () => {};
  else if (sink === 'file') ({ write, close: flush } = writers.fileWriter(file));
  // Otherwise the default, stdout (this child's stdout is the sink).
  const l = gw.createLogger({ level: 'info', format: 'json', ...(write ? { write } : {}) });
  return { log: (level, msg, fields) => l.log(level, msg, fields), flush };
}

async function pinoLog(logger, sink, file, bound) {
  const pino = await loadPino();
  if (logger === 'pino-noop') return { log: pinoLogger(pino, { write() {} }, { bound }).log, flush: async () => {} };
  const stream = pino.destination({ dest: sink === 'file' ? file : 1, ...PINO_DESTINATIONS[logger] });
  const flush = () => new Promise((r) => (logger === 'pino-sync' ? r(stream.flushSync()) : stream.flush(() => r())));
  return { log: pinoLogger(pino, stream, { bound }).log, flush };
}

async function child() {
  const { logger, sink, file } = opts;
  const lines = Number(opts.lines);
  const dist = resolve(opts.dist);
  const bound = await import(pathToFileURL(join(dist, 'observe/bound-field.js')).href);
  const { log, flush } = logger.startsWith('gateway')
    ? await gatewayLog(dist, logger, sink, file)
    : await pinoLog(logger, sink, file, bound);
  const records = Array.from({ length: 1024 }, (_, i) => record(i));
  const run = async (n) => {
    let inside = 0;
    for (let i = 0; i < n; i += BURST) {
      const t = performance.now();
      for (let j = i; j < i + BURST && j < n; j++) log('info', 'request', records[j & 1023]);
      inside += performance.now() - t;
      await new Promise((r) => setImmediate(r));
    }
    return inside;
  };
  await run(WARMUP);
  const eld = monitorEventLoopDelay({ resolution: 1 });
  eld.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const inside = await run(lines);
  await flush();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  eld.disable();
  process.send({
    cpuUsPerLine: (cpu.user + cpu.system) / lines,
    insideUsPerLine: (inside * 1000) / lines,
    linesPerSec: lines / (wall / 1000),
    eldMaxMs: eld.max / 1e6,
  });
}

/** One child; resolves with its figures and the bytes it wrote to the sink. */
function runCase(dir, logger, sink, run) {
  const file = join(dir, `${logger}-${sink}-${run}.jsonl`);
  // 'ignore' is /dev/null: what `null` measures, and where the `file` sink's stdout goes.
  const out = sink === 'pipe' ? 'pipe' : sink === 'stdout-file' ? openFd(file) : 'ignore';
  return new Promise((done, fail) => {
    const argv = [
      '--child',
      '--logger',
      logger,
      '--sink',
      sink,
      '--file',
      file,
      '--lines',
      String(opts.lines),
      '--burst',
      String(BURST),
    ];
    const c = fork(fileURLToPath(import.meta.url), [...argv, '--dist', opts.dist], {
      stdio: ['ignore', out, 'inherit', 'ipc'],
    });
    let piped = 0;
    c.stdout?.on('data', (b) => (piped += b.length));
    let result;
    const limit = setTimeout(() => c.kill('SIGKILL'), 60_000);
    c.on('message', (m) => (result = m));
    c.on('exit', (code) => {
      clearTimeout(limit);
      if (!result) return fail(new Error(`${logger}/${sink}: exited ${code} without a result`));
      const written = sink === 'pipe' ? piped : sink === 'file' || sink === 'stdout-file' ? sizeOf(file) : 0;
      done({ ...result, bytesPerLine: written / (opts.lines + WARMUP) });
    });
  });
}

const sizeOf = (path) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** A writable fd for a child's stdout (closed by the child's exit; the parent's copy leaks a handful). */
function openFd(path) {
  writeFileSync(path, '');
  return openSync(path, 'a');
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Both loggers' lines parsed: the same keys and values (except the log time). */
async function checkSameFields() {
  const gw = await import(pathToFileURL(join(resolve(opts.dist), 'observe/logger.js')).href);
  const bound = await import(pathToFileURL(join(resolve(opts.dist), 'observe/bound-field.js')).href);
  const pino = await loadPino();
  const a = [];
  const b = [];
  gw.createLogger({ write: (l) => a.push(l) }).log('info', 'request', record(1));
  gw.createLogger({ write: (l) => a.push(l) }).log('warn', 'plain', { n: 1, s: 'x'.repeat(10) });
  const p = pinoLogger(pino, { write: (l) => b.push(l) }, { bound });
  p.log('info', 'request', record(1));
  p.log('warn', 'plain', { n: 1, s: 'x'.repeat(10) });
  gw.createLogger({ write: (l) => a.push(l) }).log('error', 'long', { model: 'm'.repeat(5000), n: undefined });
  p.log('error', 'long', { model: 'm'.repeat(5000), n: undefined });
  const strip = (l) => {
    const o = JSON.parse(l);
    if (o.msg !== 'request') delete o.time;
    return JSON.stringify(Object.fromEntries(Object.entries(o).sort(([x], [y]) => (x < y ? -1 : 1))));
  };
  for (let i = 0; i < a.length; i++)
    if (strip(a[i]) !== strip(b[i])) throw new Error(`different fields:\n gateway ${a[i]} pino    ${b[i]}`);
  return { gateway: a[0], pino: b[0] };
}

async function parent() {
  opts.lines = Number(opts.lines ?? 100_000);
  opts.dist = resolve(opts.dist ?? resolve(here, '../dist'));
  const runs = Number(opts.runs ?? 3);
  const sinks = (opts.sinks ?? 'file,stdout-file,null,pipe').split(',');
  let loggers = (opts.loggers ?? 'gateway,pino,gateway-noop,pino-noop').split(',');
  const dir = mkdtempSync(join(tmpdir(), 'logger-bench-'));
  try {
    if (await loadPino()) {
      const sample = await checkSameFields();
      process.stderr.write(`same fields; sample lines:\n gateway ${sample.gateway} pino    ${sample.pino}`);
    } else {
      process.stderr.write('pino is not installed: its cases are skipped (npm install --no-save pino)\n');
      loggers = loggers.filter((l) => !l.startsWith('pino'));
    }
    const rows = [];
    for (const sink of sinks) {
      for (const logger of loggers) {
        // A no-op writer ignores the sink: measured once.
        if (logger.endsWith('-noop') && sink !== sinks[0]) continue;
        const results = [];
        for (let r = 0; r < runs; r++) {
          results.push(await runCase(dir, logger, sink, r));
          rmSync(join(dir, `${logger}-${sink}-${r}.jsonl`), { force: true });
        }
        const row = { logger, sink: logger.endsWith('-noop') ? '(none)' : sink };
        for (const k of Object.keys(results[0])) {
          row[k] = median(results.map((x) => x[k]));
          row[`${k}All`] = results.map((x) => x[k]);
        }
        rows.push(row);
        process.stderr.write(`${row.logger}/${row.sink}: ${row.cpuUsPerLine.toFixed(2)} µs CPU/line\n`);
      }
    }
    printTable(rows, runs);
    if (opts.out)
      writeFileSync(opts.out, JSON.stringify({ node: process.version, lines: opts.lines, runs, rows }, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function printTable(rows, runs) {
  const head = ['logger', 'sink', 'CPU µs/line', 'in log() µs/line', 'lines/s', 'loop max ms', 'bytes/line'];
  const body = rows.map((r) => [
    r.logger,
    r.sink,
    `${r.cpuUsPerLine.toFixed(2)} (${r.cpuUsPerLineAll.map((x) => x.toFixed(2)).join(' ')})`,
    r.insideUsPerLine.toFixed(2),
    Math.round(r.linesPerSec).toLocaleString('en'),
    r.eldMaxMs.toFixed(1),
    r.bytesPerLine ? r.bytesPerLine.toFixed(0) : '',
  ]);
  const width = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(width[i])).join('  ');
  console.log(`node ${process.version}, ${opts.lines} lines per run, median of ${runs} runs (each run in brackets)`);
  console.log(line(head));
  console.log(line(width.map((w) => '-'.repeat(w))));
  for (const b of body) console.log(line(b));
}

if (opts.child) await child();
else await parent();
