/**
 * Throughput with `wrk` (a C load generator, so the load itself costs the proxy's core nothing).
 *
 * Method: each proxy lane's process is pinned to core 0 while it is measured; wrk, the upstream,
 * the other children and this runner stay on the other cores (taskset). Non-stream requests at
 * each concurrency (c=32 and c=128) for `durationS` each. `reps` repetitions, interleaved: rep 1
 * runs every lane at c32 then c128, then rep 2 does it again (lane order rotated), and so on, so
 * that drift on a shared machine hits every lane alike. In rep 1 each lane first gets an unmeasured
 * `warmupS` run at the highest concurrency (pools filled, code warm). Each lane is compared with the `floor`
 * lane of the SAME repetition (per-rep ratios); the report gives the median of each value, the
 * median of the per-rep ratios and their spread (min–max).
 *
 * Per lane, repetition and concurrency: req/s, p50/p99 (wrk's), errors (socket errors + non-2xx),
 * the proxy's CPU per completed request (its cpuUsage delta over the run, in-flight tail
 * included), how many requests the upstream received (a lane that answered without forwarding,
 * or forwarded twice, shows up there), and the CPU other processes used and the hypervisor
 * stole meanwhile (noise).
 * Before and after each run the upstream's request count must settle, so requests still in flight
 * when wrk stops are counted in the run they belong to.
 *
 * Lanes: those with `wrk: 'reps'` (measured every repetition) or `wrk: 'once'` (a reference, rep 1
 * only), plus any lane with a `throughput` test named with --lanes. Affinity is put back on every
 * process afterwards. Skipped, with a note, without wrk, taskset, /proc or a second core.
 */

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineCpu } from './children.mjs';

const has = (cmd, arg) => !spawnSync(cmd, [arg], { stdio: 'ignore' }).error;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function wrkAvailable() {
  return has('wrk', '--version') && has('taskset', '--version') && cpus().length >= 2 && machineCpu() !== undefined;
}

/** A Lua script that POSTs the lane's JSON request and prints one parsable summary line. */
export function luaScript(req) {
  const q = (s) => `[==[${s}]==]`;
  const headers = Object.entries(req.headers)
    .map(([k, v]) => `wrk.headers[ ${q(k)} ] = ${q(v)}`)
    .join('\n');
  return `wrk.method = "POST"
wrk.path = ${q(req.path)}
wrk.body = ${q(req.json.toString('utf8'))}
${headers}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRK %d %d %d %d %d %d\\n", summary.requests, summary.duration,
    e.connect + e.read + e.write + e.timeout, e.status, latency:percentile(50), latency:percentile(99)))
end
`;
}

export function pin(pid, cores) {
  spawnSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
}

/** utime + stime of a process in µs (/proc/<pid>/stat), or undefined once it is gone. */
function procCpuUs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1e6 / 100); // USER_HZ 100
  } catch {
    return undefined;
  }
}

/**
 * One wrk run. Its CPU is read from /proc every 100 ms (taskset execs wrk: same pid); the last
 * reading before it exits misses at most that much, enough for a noise gauge.
 */
export function runWrk(url, script, concurrency, durationS, cores) {
  return new Promise((resolve) => {
    const args = ['-c', cores, 'wrk', '-t1', `-c${concurrency}`, `-d${durationS}s`, '--timeout', '5s'];
    const child = spawn('taskset', [...args, '-s', script, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let cpuUs = 0;
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    const poll = setInterval(() => {
      cpuUs = procCpuUs(child.pid) ?? cpuUs;
    }, 100);
    // Bounded: wrk stops itself after durationS; this only catches a wrk that hangs.
    const timer = setTimeout(() => child.kill('SIGKILL'), (durationS + 15) * 1000);
    child.on('close', () => {
      clearTimeout(timer);
      clearInterval(poll);
      const m = /^WRK (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$/m.exec(out);
      if (!m) return resolve({ failed: out.slice(0, 300) || 'wrk printed nothing' });
      const [requests, durationUs, socketErrors, statusErrors, p50Us, p99Us] = m.slice(1).map(Number);
      resolve({ requests, durationUs, socketErrors, statusErrors, p50Ms: p50Us / 1000, p99Ms: p99Us / 1000, cpuUs });
    });
  });
}

/**
 * Waits until the upstream's request count stops moving (two equal readings 50 ms apart, at most
 * `maxMs`): the requests a proxy still had in flight when wrk stopped have arrived.
 */
async function settle(upstream, maxMs = 3_000) {
  const t0 = Date.now();
  let last = (await upstream.stats()).requests;
  while (Date.now() - t0 < maxMs) {
    await sleep(50);
    const now = (await upstream.stats()).requests;
    if (now === last) return;
    last = now;
  }
}

export const median = (values) => {
  const v = values.filter((x) => x !== undefined && !Number.isNaN(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
};
const spread = (values) => {
  const v = values.filter((x) => x !== undefined && !Number.isNaN(x));
  return v.length === 0 ? undefined : [Math.min(...v), Math.max(...v)];
};

/** Values of one run compared with the floor: per-rep ratio = lane / floor of the same rep and c. */
const RATIOS = { rps: 'rpsRatio', cpuUsPerReq: 'cpuRatio', p50Ms: 'p50Ratio', p99Ms: 'p99Ratio' };

/** Whether the upstream saw each completed request once (in-flight ones at the stop may add up to c). */
const forwardedOnce = (r) =>
  r.upstreamRequests === undefined || (r.upstreamRequests >= r.completed && r.upstreamRequests <= r.completed + r.c);

/**
 * Fills `results[lane].wrk = { reps: [run…], byC: { [c]: summary } }`.
 * run: { rep, c, rps, cpuUsPerReq, p50Ms, p99Ms, errors, socketErrors, statusErrors, completed,
 *        upstreamRequests, forwarded, foreignCores, rpsRatio, cpuRatio, p50Ratio, p99Ratio }
 * summary: medians of those values over the reps, `<ratio>Range: [min, max]` of each per-rep
 * ratio, `errors` summed, `unforwarded` (runs that failed the forwarding check), `n` runs.
 */
export async function wrkThroughput(ctx) {
  const { procs, results, log, named } = ctx;
  const lanes = ctx.lanes.filter(
    (l) => l.tests.includes('throughput') && (l.wrk === 'reps' || l.wrk === 'once' || named?.has(l.id)),
  );
  if (lanes.length === 0) return;
  if (!wrkAvailable()) {
    log('wrk phase skipped: needs wrk and taskset on PATH, /proc and 2 or more cores (apt-get install wrk)');
    return;
  }
  const { concurrencies, durationS, reps, warmupS = 0 } = ctx.plan.wrk;
  const maxC = Math.max(...concurrencies);
  const all = `0-${cpus().length - 1}`;
  const others = cpus().length > 2 ? `1-${cpus().length - 1}` : '1';
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const everyone = Object.values(procs).filter((p) => p?.pid);
  for (const lane of lanes) {
    writeFileSync(join(dir, `${lane.id}.lua`), luaScript(lane.request));
    results[lane.id].wrk = { reps: [], byC: {} };
  }
  let stop = false;
  try {
    for (const p of everyone) pin(p.pid, others);
    pin(process.pid, others);
    for (let rep = 1; rep <= reps && !stop; rep++) {
      const inRep = lanes.filter((l) => rep === 1 || l.wrk !== 'once');
      const order = inRep.map((_, k) => inRep[(k + rep - 1) % inRep.length]);
      for (const lane of order) {
        if (stop) break;
        const proxy = lane.proxy ? procs[lane.proc] : undefined;
        if (proxy) pin(proxy.pid, '0');
        try {
          // Rep 1: an unmeasured run at the highest concurrency first, so that the proxy's pool to
          // the upstream holds enough connections and its code is warm before anything is timed.
          if (rep === 1 && warmupS > 0 && !ctx.overBudget(`wrk warm-up ${lane.id}`)) {
            const w = await runWrk(procs[lane.proc].url, join(dir, `${lane.id}.lua`), maxC, warmupS, others);
            ctx.addOwnCpuUs?.(w.cpuUs ?? 0);
            if (w.failed) log(`wrk warm-up ${lane.id} failed: ${w.failed}`);
          }
          for (const c of concurrencies) {
            if (ctx.overBudget(`wrk rep ${rep} ${lane.id} c=${c}`)) {
              stop = true;
              break;
            }
            const run = await measure(ctx, lane, proxy, c, rep, join(dir, `${lane.id}.lua`), durationS, others);
            if (run) results[lane.id].wrk.reps.push(run);
          }
        } finally {
          if (proxy) pin(proxy.pid, others);
        }
      }
    }
  } finally {
    for (const p of everyone) pin(p.pid, all);
    pin(process.pid, all);
    rmSync(dir, { recursive: true, force: true });
  }
  summarise(lanes, results);
}

async function measure(ctx, lane, proxy, c, rep, script, durationS, cores) {
  const { procs, log } = ctx;
  await settle(procs.upstream);
  const [pBefore, uBefore] = await Promise.all([proxy?.stats(), procs.upstream.stats()]);
  const mBefore = machineCpu();
  const t0 = Date.now();
  const r = await runWrk(procs[lane.proc].url, script, c, durationS, cores);
  const elapsedMs = Date.now() - t0;
  const mAfter = machineCpu();
  await settle(procs.upstream);
  const [pAfter, uAfter] = await Promise.all([proxy?.stats(), procs.upstream.stats()]);
  // wrk's CPU is this benchmark's own: the runner does not count it as other processes' CPU.
  ctx.addOwnCpuUs?.(r.cpuUs ?? 0);
  if (r.failed) {
    log(`wrk rep ${rep} ${lane.id} c=${c} failed: ${r.failed}`);
    return undefined;
  }
  const proxyUs = proxy ? pAfter.cpuUs - pBefore.cpuUs : 0;
  const ours = proxyUs + (uAfter.cpuUs - uBefore.cpuUs) + r.cpuUs;
  const run = {
    rep,
    c,
    rps: r.requests / (r.durationUs / 1e6),
    cpuUsPerReq: proxy ? proxyUs / Math.max(1, r.requests) : undefined,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    errors: r.socketErrors + r.statusErrors,
    socketErrors: r.socketErrors,
    statusErrors: r.statusErrors,
    completed: r.requests,
    upstreamRequests: uAfter.requests !== undefined ? uAfter.requests - uBefore.requests : undefined,
    /** Cores the proxy kept busy: near 1 when it was the bottleneck, as the method intends. */
    proxyCores: proxy ? proxyUs / 1000 / elapsedMs : undefined,
    /** Cores used by processes other than the proxy, the upstream and wrk during the run: noise. */
    foreignCores: Math.max(0, mAfter.busyUs - mBefore.busyUs - ours) / 1000 / elapsedMs,
    /** Cores the hypervisor took from this VM meanwhile (steal): noise too. */
    stealCores: (mAfter.stealUs - mBefore.stealUs) / 1000 / elapsedMs,
  };
  run.forwarded = forwardedOnce(run);
  log(
    `wrk rep ${rep} ${lane.id} c=${c}: ${Math.round(run.rps)} req/s, ` +
      `${run.cpuUsPerReq === undefined ? '—' : run.cpuUsPerReq.toFixed(0)} µs/req, p99 ${run.p99Ms} ms` +
      `${run.errors ? `, ${run.errors} ERRORS` : ''}${run.forwarded ? '' : ', NOT FORWARDED ONCE'}`,
  );
  return run;
}

function summarise(lanes, results, floorId = 'floor') {
  const floorRuns = results[floorId]?.wrk?.reps ?? [];
  for (const lane of lanes) {
    const w = results[lane.id].wrk;
    for (const run of w.reps) {
      const f = floorRuns.find((x) => x.rep === run.rep && x.c === run.c);
      for (const [key, ratioKey] of Object.entries(RATIOS))
        if (f && run[key] !== undefined && f[key] > 0) run[ratioKey] = run[key] / f[key];
      // The CPU the lane adds to the floor's, same rep and c: steadier than the ratio on a host
      // whose speed moves (the floor's cost moves with it, the gateway's additions much less).
      if (f?.cpuUsPerReq !== undefined && run.cpuUsPerReq !== undefined)
        run.cpuAddedUs = run.cpuUsPerReq - f.cpuUsPerReq;
    }
    for (const c of [...new Set(w.reps.map((r) => r.c))]) {
      const runs = w.reps.filter((r) => r.c === c);
      const s = { n: runs.length, errors: 0, unforwarded: 0 };
      for (const key of ['proxyCores', 'foreignCores', 'stealCores']) s[key] = median(runs.map((r) => r[key]));
      for (const key of ['rps', 'cpuUsPerReq', 'cpuAddedUs', 'p50Ms', 'p99Ms', 'completed'])
        s[key] = median(runs.map((r) => r[key]));
      for (const ratioKey of Object.values(RATIOS)) {
        s[ratioKey] = median(runs.map((r) => r[ratioKey]));
        s[`${ratioKey}Range`] = spread(runs.map((r) => r[ratioKey]));
      }
      for (const r of runs) {
        s.errors += r.errors;
        if (!r.forwarded) s.unforwarded++;
      }
      w.byC[c] = s;
    }
  }
}

/** The wrk table: one row per lane and concurrency, medians over the reps, ratios to the floor. */
export function wrkTable(lanes, results, plan) {
  const rows = lanes.filter((l) => results[l.id]?.wrk?.reps.length > 0);
  if (rows.length === 0) return '';
  const f0 = (v) => (v === undefined ? '—' : v.toFixed(0));
  const f2 = (v) => (v === undefined ? '—' : v.toFixed(2));
  const range = (r) => (r ? `${r[0].toFixed(2)}–${r[1].toFixed(2)}` : '—');
  const head = [
    'lane',
    'c',
    'reps',
    'req/s',
    '÷ floor',
    '(range)',
    'CPU µs/req',
    '÷ floor',
    '(range)',
    '+µs',
    'p50 ms',
    'p99 ms',
    '÷ floor',
    '(range)',
    'errors',
    'fwd',
    'busy',
    'other',
    'steal',
  ];
  const lines = [head];
  for (const l of rows) {
    for (const [c, s] of Object.entries(results[l.id].wrk.byC)) {
      lines.push([
        l.id,
        c,
        String(s.n),
        s.rps === undefined ? '—' : Math.round(s.rps).toLocaleString('en-US'),
        f2(s.rpsRatio),
        range(s.rpsRatioRange),
        f0(s.cpuUsPerReq),
        f2(s.cpuRatio),
        range(s.cpuRatioRange),
        l.id === 'floor' || s.cpuAddedUs === undefined
          ? '—'
          : `${s.cpuAddedUs >= 0 ? '+' : ''}${s.cpuAddedUs.toFixed(0)}`,
        f2(s.p50Ms),
        f2(s.p99Ms),
        f2(s.p99Ratio),
        range(s.p99RatioRange),
        s.errors ? `${s.errors} !` : '0',
        s.unforwarded ? 'NO' : 'ok',
        f2(s.proxyCores),
        f2(s.foreignCores),
        f2(s.stealCores),
      ]);
    }
  }
  const widths = head.map((_, i) => Math.max(...lines.map((r) => String(r[i]).length)));
  const fmt = (r) =>
    r.map((v, i) => (i === 0 ? String(v).padEnd(widths[i]) : String(v).padStart(widths[i]))).join('  ');
  const runs = rows.flatMap((l) => results[l.id].wrk.reps.map((r) => ({ lane: l.id, ...r })));
  const unforwarded = runs
    .filter((r) => !r.forwarded)
    .map((r) => `${r.lane} rep ${r.rep} c${r.c}: ${r.upstreamRequests} upstream for ${r.completed} completed`);
  const errors = runs
    .filter((r) => r.errors > 0)
    .map((r) => `${r.lane} rep ${r.rep} c${r.c}: ${r.socketErrors} socket, ${r.statusErrors} non-2xx`);
  const reps = plan?.wrk?.reps;
  // The method assumes the pinned proxy is the bottleneck; a run where it was not measured the rest.
  const idle = runs
    .filter((r) => r.proxyCores !== undefined && r.proxyCores < 0.8)
    .map((r) => `${r.lane} rep ${r.rep} c${r.c} ${r.proxyCores.toFixed(2)}`);
  return [
    `wrk: non-stream, ${plan?.wrk?.durationS ?? '?'} s per run, ${reps ?? '?'} interleaved repetition(s); ` +
      'the proxy pinned to core 0, wrk and the upstream on the other core(s).',
    'Values are medians over the reps; "÷ floor" is the median of the per-rep ratios (lane / floor of the same ' +
      'rep and c), "(range)" their min–max; +µs: the CPU per request the lane adds to the floor\'s (median of ' +
      "the per-rep differences: steadier than the ratio when the host's speed moves); " +
      'fwd: the upstream saw each request once; busy: cores the proxy used ' +
      '(~1: it was the bottleneck); other/steal: cores used by other processes / taken by the hypervisor (noise).',
    fmt(lines[0]),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...lines.slice(1).map(fmt),
    unforwarded.length > 0
      ? `WARNING: not every request was forwarded exactly once: ${unforwarded.join('; ')}`
      : 'Every lane forwarded each request to the upstream exactly once (upstream count vs wrk, every run).',
    errors.length > 0 ? `ERRORS in wrk runs: ${errors.join('; ')}` : 'No socket errors and no non-2xx in any wrk run.',
    ...(idle.length > 0
      ? [
          `WARNING: proxy below 0.8 cores (not the bottleneck: wrk, the upstream or other processes were) in ` +
            `${idle.length} run(s): ${idle.join(', ')}.`,
        ]
      : []),
  ].join('\n');
}
