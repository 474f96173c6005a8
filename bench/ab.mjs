/**
 * Paired A/B of CPU per request: every process started once, side by side, then wrk runs that
 * alternate between them round after round, so machine drift hits each alike. For comparing two
 * builds of the gateway (or two configurations) on a noisy box, where two separate `npm run bench`
 * runs differ by more than the change being measured.
 *
 *   node bench/ab.mjs [--rounds 6] [--secs 3] [--warm 8] [--c 32] [--lane gateway] SPEC...
 *
 * SPEC: a process of lanes.mjs (`floor`, `gateway`, `prod`…), optionally `@<dist dir>` for another
 * build, e.g. `floor gateway@/tmp/old/dist gateway`, and `+<node flag>` (repeatable) for node
 * flags of that process alone, e.g. `gateway+--max-semi-space-size=8`. --lane picks the request (a lane id of
 * lanes.mjs, e.g. `tr-a2o`); every SPEC gets the same one. Each process is pinned to core 0 while
 * measured, wrk and the upstream to the other cores (needs wrk, taskset, 2+ cores). Prints each
 * SPEC's median CPU µs per request and the median of its per-round ratio to the first SPEC, then the
 * same split into user and system time (where a difference lies: JS or syscalls).
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { args } from './child-common.mjs';
import { startChild, stopAll } from './children.mjs';
import { LANES, PROCS } from './lanes.mjs';
import { luaScript, pin, runWrk, wrkAvailable } from './wrk.mjs';

const opts = args();
const specs = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
const rounds = Number(opts.rounds ?? 6);
const secs = Number(opts.secs ?? 3);
const warm = Number(opts.warm ?? 8);
const c = Number(opts.c ?? 32);
const lane = LANES.find((l) => l.id === (opts.lane ?? 'gateway'));
if (!lane) throw new Error(`unknown lane ${opts.lane}`);
if (specs.length === 0) throw new Error('name at least one process, e.g. floor gateway');
if (!wrkAvailable()) throw new Error('needs wrk and taskset on PATH and 2 or more cores');

const defaultDist = resolve(fileURLToPath(new URL('../dist', import.meta.url)));
const base = { chunks: 100, pacing: 'interval', budgetPeriod: 'month', dist: defaultDist };
const others = cpus().length > 2 ? `1-${cpus().length - 1}` : '1';
const dir = mkdtempSync(join(tmpdir(), 'bench-ab-'));

try {
  const upstream = await startChild('upstream', PROCS.upstream.file, PROCS.upstream.args({ opts: base }));
  pin(upstream.pid, others);
  const procs = [];
  for (const spec of specs) {
    const [nameAndDist, ...flags] = spec.split('+');
    const [name, dist] = nameAndDist.split('@');
    if (!PROCS[name]) throw new Error(`unknown process ${name} (${Object.keys(PROCS).join(', ')})`);
    const o = { ...base, dist: dist ? resolve(dist) : defaultDist };
    const args = PROCS[name].args({ upstreamUrl: upstream.url, opts: o });
    const p = await startChild(spec, PROCS[name].file, args, undefined, flags);
    pin(p.pid, '0');
    procs.push({ spec, p, runs: [], user: [], sys: [] });
  }
  // The floor takes the plain upstream model; gateway processes the lane's own request.
  const script = (spec) => {
    const path = join(dir, `${spec.replace(/[^a-z0-9]/gi, '_')}.lua`);
    const req =
      spec.startsWith('floor') || spec.startsWith('bare') ? LANES.find((l) => l.id === 'floor').request : lane.request;
    writeFileSync(path, luaScript(req));
    return path;
  };
  for (const x of procs) {
    x.script = script(x.spec);
    await runWrk(x.p.url, x.script, c, warm, others);
  }
  for (let r = 0; r < rounds; r++) {
    for (const x of procs) {
      const before = await x.p.stats();
      const w = await runWrk(x.p.url, x.script, c, secs, others);
      const after = await x.p.stats();
      const errors = (w.socketErrors ?? 0) + (w.statusErrors ?? 0);
      if (w.failed || errors > 0) throw new Error(`${x.spec}: ${w.failed ?? `${errors} errors`}`);
      const n = Math.max(1, w.requests);
      x.runs.push((after.cpuUs - before.cpuUs) / n);
      x.user.push((after.cpuUserUs - before.cpuUserUs) / n);
      x.sys.push((after.cpuSystemUs - before.cpuSystemUs) / n);
    }
  }
  const list = (v) => v.map((n) => n.toFixed(0)).join(' ');
  const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  const ref = procs[0].runs;
  for (const x of procs) {
    const ratios = x.runs.map((v, i) => v / ref[i]);
    process.stdout.write(
      `${x.spec.padEnd(40)} ${median(x.runs).toFixed(0).padStart(5)} µs/req  ÷ ${procs[0].spec}: ` +
        `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})  ` +
        `runs ${x.runs.map((v) => v.toFixed(0)).join(' ')}\n` +
        `${''.padEnd(40)} user ${median(x.user).toFixed(0).padStart(4)} µs/req (${list(x.user)}), ` +
        `system ${median(x.sys).toFixed(0)} µs/req (${list(x.sys)})\n`,
    );
  }
} finally {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
