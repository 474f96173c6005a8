/**
 * Gateway benchmark (issue 13's method). Every server is its own child process on 127.0.0.1: one
 * upstream that speaks every format, reached directly, through the `floor` proxy (the thinnest
 * Node proxy: node:http + undici Pool.stream, bodies piped; what every target divides by), the
 * older `bare` proxy, and the gateway in several lanes: pass-through (`gateway`, `anth-pass`,
 * `resp-pass`), translation (`tr-a2o`, `tr-o2a`, `tr-r2a`), budgets + rate limits (embedded
 * store; Redis on loopback when `redis-server` is on PATH, started here on a free port),
 * guardrails, and the production config
 * (`prod`: JSON request log to a file, metrics, a budget + a rate limit, credential and PII
 * guardrails). Lanes, processes and targets: lanes.mjs.
 *
 * Phases (phases.mjs), each lane interleaved with the others so drift hits all alike:
 *   latency     sequential non-stream requests (c=1), +p50/+p99 over the lane's direct lane;
 *   stream      sequential streams (c=1): TTFB, total, the proxy's CPU per stream, each proxy
 *               lane's TTFB and stream CPU divided by the floor's;
 *   throughput  a Node closed loop at c=32 (req/s, CPU per request; the older figures);
 *   wrk         wrk.mjs: the proxy pinned to core 0, wrk + upstream on the other core, c=32 and
 *               c=128 for 3 s, 3 interleaved repetitions; medians, per-rep ratios to the floor
 *               of the same repetition, their min–max, errors, a forwarding check per run;
 *   memory      peak RSS (VmHWM) at c=128, half streams.
 * Prints the tables and the targets against the floor with one verdict line per group (and the
 * earlier targets); writes JSON with every per-rep value to --out (default
 * bench/.last-results.json). About 8 minutes; --quick is a ~1 minute smoke run (one
 * repetition, ¼ of the counts). Exits 0 unless something crashed: a benchmark is a report.
 *
 *   node bench/run.mjs [--out file] [--quick] [--lanes floor,gateway]
 *                      [--tests latency,stream,throughput,wrk,memory] [--wrk-reps 3]
 *                      [--chunks 100] [--pacing interval|tick|burst] [--dist dir]
 *                      [--budget-period month|week|day|total]
 *
 * Everything talks to 127.0.0.1 only; every loop is bounded in count and in time (phases not
 * started within PLAN.budgetMs are skipped, and their targets print as MISSING).
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { args } from './child-common.mjs';
import { killAllNow, machineCpu, startChild, stopAll } from './children.mjs';
import {
  DEFAULT_BASELINE,
  FLOOR_TARGET_GROUPS,
  LANES,
  LIMITS_LANES,
  LIMITS_REFERENCE,
  PROCS,
  TARGETS,
  TARGET_LANES,
  TRANSLATION_LANES,
} from './lanes.mjs';
import { createClient } from './load.mjs';
import { PHASES, validateAndWarm } from './phases.mjs';
import { startRedis } from './redis.mjs';
import { wrkAvailable, wrkTable } from './wrk.mjs';
import {
  evaluateFloorTargets,
  evaluateTargets,
  floorTargetsTable,
  limitsTable,
  memoryTable,
  resultsTable,
  streamsTable,
  targetsTable,
} from './report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const opts = args();
opts.chunks = Number(opts.chunks ?? 100);
opts.pacing = opts.pacing ?? 'interval';
/** The gateway build under test (default: the repository's dist/). */
opts.dist = resolve(opts.dist ?? resolve(here, '../dist'));
/** The period of the limits lanes' budget (month, as in gateway.example.yaml). */
opts.budgetPeriod = opts['budget-period'] ?? 'month';
if (!['month', 'week', 'day', 'total'].includes(opts.budgetPeriod))
  throw new Error(`--budget-period must be month, week, day or total, not ${opts.budgetPeriod}`);
const scale = opts.quick === 'true' ? 0.25 : 1;
const outPath = resolve(opts.out ?? resolve(here, '.last-results.json'));

/** Counts and time limits (ms) of each phase; --quick scales them down for a smoke run. */
const PLAN = {
  warmup: { concurrency: 32, requests: Math.ceil(1_000 * scale), streams: Math.ceil(60 * scale), maxMs: 2_000 * scale },
  latency: { requests: Math.ceil(1_600 * scale), maxMs: 10_000 * scale, rounds: 5 },
  stream: {
    requests: Math.ceil(160 * scale),
    maxMs: 8_000 * scale,
    rounds: 8,
    warm: { concurrency: 16, streams: Math.ceil(4_000 * scale), maxMs: 5_000 * scale },
  },
  throughput: { concurrency: 32, maxRequests: 250_000, maxMs: 3_000 * scale, rounds: 4 },
  /** Interleaved repetitions (medians of 3; one in --quick), each lane at every concurrency. */
  wrk: {
    concurrencies: [32, 128],
    // 4 s: at c=128 the first request of each of wrk's 128 fresh connections is ~1% of a shorter
    // run, and those (connection setup on a loaded 2-core box) are what made p99 jump run to run.
    durationS: Math.max(1, Math.round(4 * scale)),
    // Long enough for V8 to finish optimising the lane's code: after 1-2 s the optimising compiler
    // still took ~15% of the gateway's CPU (perf), which no long-running server pays.
    warmupS: Math.max(1, Math.round(5 * scale)),
    reps: Number(opts['wrk-reps'] ?? (scale === 1 ? 3 : 1)),
  },
  memory: { concurrency: 128, maxRequests: 200_000, maxMs: 3_000 * scale },
  /** Phases (and throughput/memory batches) not started by then are skipped. */
  budgetMs: 540_000,
};
/** The lane issue 13's targets divide by (floor-proxy.mjs). */
const FLOOR = 'floor';
/** Load-generator connections per lane: the highest concurrency used. */
const MAX_CONNECTIONS = 128;

const tStart = Date.now();
const log = (msg) => process.stderr.write(`[bench +${((Date.now() - tStart) / 1000).toFixed(1)}s] ${msg}\n`);

/** The redis-server this run started (if any): stopped at the end, SIGKILLed by pid on exit. */
let redis;

async function main() {
  if (!existsSync(resolve(opts.dist, 'index.js')))
    throw new Error(`${opts.dist}/index.js not found: run \`npm run build\` first (or \`npm run bench\`)`);
  const t0 = Date.now();
  const load0 = loadavg();
  const machine0 = machineCpu();
  const self0 = process.cpuUsage();
  const wantedLanes = opts.lanes ? new Set(opts.lanes.split(',')) : undefined;
  const wantedTests = opts.tests ? new Set(opts.tests.split(',')) : undefined;
  const directOf = (lane) => lane.direct ?? DEFAULT_BASELINE;
  // The wanted lanes, plus the default baseline and the baseline each of them is measured against.
  // Lanes marked optIn run only when named.
  const wanted = LANES.filter((l) => (wantedLanes ? wantedLanes.has(l.id) : !l.optIn));
  const unknown = wantedLanes ? [...wantedLanes].filter((id) => !LANES.some((l) => l.id === id)) : [];
  if (unknown.length > 0)
    throw new Error(`unknown lane(s): ${unknown.join(', ')} (lanes: ${LANES.map((l) => l.id).join(', ')})`);
  // The limits lanes are read against the plain gateway lane: it comes along.
  const reference = wanted.some((l) => LIMITS_LANES.includes(l.id)) ? [LIMITS_REFERENCE] : [];
  // Every proxy lane is compared with the floor (issue 13's targets): it comes along too.
  const floor = wanted.some((l) => l.proxy) ? [FLOOR] : [];
  const keep = new Set([DEFAULT_BASELINE, ...wanted.map((l) => l.id), ...wanted.map(directOf), ...reference, ...floor]);
  let lanes = LANES.filter((l) => keep.has(l.id));

  // Lanes whose process needs Redis: start a redis-server, or skip them with a note.
  const notes = [];
  const procs = {};
  if (lanes.some((l) => PROCS[l.proc].needs === 'redis')) {
    const r = await startRedis();
    if (r.skipped) {
      const skipped = lanes.filter((l) => PROCS[l.proc].needs === 'redis').map((l) => l.id);
      lanes = lanes.filter((l) => PROCS[l.proc].needs !== 'redis');
      notes.push(`SKIPPED lane(s) ${skipped.join(', ')}: ${r.skipped}.`);
      log(`skipping ${skipped.join(', ')}: ${r.skipped}`);
    } else {
      redis = r;
      procs.redis = r;
      opts.redisUrl = r.url;
      log(`redis-server ${r.url} (pid ${r.pid})`);
    }
  }

  // Processes: the upstream first, then every other process the selected lanes need, in parallel.
  procs.upstream = await startChild('upstream', PROCS.upstream.file, PROCS.upstream.args({ opts }));
  const needed = [...new Set(lanes.map((l) => l.proc))].filter((p) => p !== 'upstream');
  await Promise.all(
    needed.map(async (p) => {
      procs[p] = await startChild(p, PROCS[p].file, PROCS[p].args({ upstreamUrl: procs.upstream.url, opts }));
    }),
  );
  log(
    `upstream ${procs.upstream.url} (pid ${procs.upstream.pid}); ` +
      needed.map((p) => `${p} ${procs[p].url} (pid ${procs[p].pid})`).join('; '),
  );

  const clients = new Map(lanes.map((l) => [l.id, createClient(procs[l.proc].url, MAX_CONNECTIONS)]));
  // CPU of helpers this run starts that are not children (wrk): ours, not other processes'.
  let ownExtraUs = 0;
  const ctx = {
    lanes,
    /** Lanes named with --lanes (a lane with a throughput test then joins the wrk phase). */
    named: wantedLanes ?? new Set(),
    addOwnCpuUs: (us) => {
      ownExtraUs += us;
    },
    clients,
    procs,
    directOf: (lane) => directOf(lane),
    plan: PLAN,
    opts,
    log,
    results: Object.fromEntries(lanes.map((l) => [l.id, {}])),
    has: (lane, test) => lane.tests.includes(test) && (!wantedTests || wantedTests.has(test)),
    overBudget(what) {
      const over = Date.now() - t0 > PLAN.budgetMs;
      if (over) log(`time budget spent: skipping ${what}`);
      return over;
    },
  };
  let foreignCores;
  try {
    await validateAndWarm(ctx);
    for (const phase of PHASES) {
      if (wantedTests && !wantedTests.has(phase.id)) continue;
      if (ctx.overBudget(phase.id)) break;
      await phase.run(ctx);
    }
    // CPU used by anything but this benchmark while it ran (other tests, builds…): a noise gauge.
    const machine1 = machineCpu();
    const self = process.cpuUsage(self0);
    const children = await Promise.all(Object.values(procs).map((p) => p.stats()));
    if (machine0 && machine1) {
      const ours = self.user + self.system + children.reduce((n, s) => n + s.cpuUs, 0) + ownExtraUs;
      foreignCores = Math.max(0, machine1.busyUs - machine0.busyUs - ours) / 1000 / (Date.now() - t0);
    }
  } finally {
    await Promise.all([...clients.values()].map((c) => c.close().catch(() => {})));
  }
  const { results } = ctx;

  const targets = evaluateTargets(
    TARGETS,
    TARGET_LANES,
    results,
    lanes.map((l) => l.id),
  );
  // Which phases each lane took part in (a target of a phase that ran but left no figure is MISSING).
  const ran = (lane, phase) => {
    if (wantedTests && !wantedTests.has(phase)) return false;
    if (phase === 'wrk')
      return lane.tests.includes('throughput') && (!!lane.wrk || ctx.named.has(lane.id)) && wrkAvailable();
    return lane.tests.includes(phase);
  };
  const floorTargets = evaluateFloorTargets(FLOOR_TARGET_GROUPS, lanes, results, ran);
  const meta = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    loadavgBefore: load0,
    loadavgAfter: loadavg(),
    foreignCores,
    notes,
    budgetPeriod: opts.budgetPeriod,
    redis: redis ? { url: redis.url } : undefined,
    commit: gitCommit(),
    dist: opts.dist,
    plan: PLAN,
    chunks: opts.chunks,
    pacing: opts.pacing,
    quick: scale !== 1,
    durationMs: Date.now() - t0,
  };

  const out = [];
  out.push(
    `Gateway benchmark  node ${meta.node}  ${meta.cpus} CPUs  commit ${meta.commit ?? '?'}  ` +
      `load avg before ${load0[0].toFixed(2)}  ${meta.quick ? '(QUICK) ' : ''}${(meta.durationMs / 1000).toFixed(1)} s`,
  );
  out.push('Every server is its own process on 127.0.0.1, sharing the machine with the load generator. Times in ms.');
  out.push(
    `c=1: ${PLAN.latency.requests} sequential non-stream requests per lane; +p50/+p99 = lane minus its direct lane ` +
      '(direct-anth for lanes whose upstream leg is Anthropic-format, direct-resp for Responses, else direct).',
  );
  out.push(
    `req/s and CPU ms/req (of the proxy process): non-stream at c=${PLAN.throughput.concurrency} ` +
      `for ${PLAN.throughput.maxMs / 1000} s.`,
  );
  const pacing = opts.pacing === 'interval' ? 'first event at once, then 10 events per ms' : `${opts.pacing} pacing`;
  out.push(
    `TTFB/stream/stream CPU: ${PLAN.stream.requests} sequential ${opts.chunks}-chunk streams (${pacing}); ` +
      "+stream = stream p50 minus its direct lane's.",
  );
  out.push(
    `Peak RSS: VmHWM over ${PLAN.memory.maxMs / 1000} s at c=${PLAN.memory.concurrency}, ` +
      'half non-stream half streams (includes the RSS already reached earlier in the run).',
  );
  out.push(
    `wrk: non-stream, c=${PLAN.wrk.concurrencies.join(' and c=')} for ${PLAN.wrk.durationS} s each, ` +
      `${PLAN.wrk.reps} interleaved repetition(s), the proxy alone on core 0; ratios to the floor per repetition.`,
  );
  if (lanes.some((l) => LIMITS_LANES.includes(l.id))) {
    out.push(
      `limits lanes: one enforced budget (period ${opts.budgetPeriod}) and one requests-per-minute limit, ` +
        'reserved and settled on every request, never refusing.',
    );
  }
  for (const n of notes) out.push(n);
  const noisy = Object.entries(results)
    .filter(([, r]) => (r.throughput?.foreignCores ?? 0) > 0.25)
    .map(([id, r]) => `${id} ${r.throughput.foreignCores.toFixed(2)}`);
  if ((foreignCores ?? 0) > 0.15 || noisy.length > 0) {
    out.push(
      `WARNING: other processes used ${foreignCores?.toFixed(2) ?? '?'} cores on average during the run` +
        `${noisy.length ? ` (throughput batches: ${noisy.join(', ')} cores)` : ''}; ` +
        'rerun on a quiet machine before trusting the ratios.',
    );
  } else if (foreignCores !== undefined) {
    out.push(`Other processes used ${foreignCores.toFixed(2)} cores on average during the run (quiet enough).`);
  }
  const util = lanes
    .filter((l) => results[l.id].throughput?.proxyCpuUtilisation !== undefined)
    .map((l) => [l.id, results[l.id].throughput.proxyCpuUtilisation]);
  if (util.length > 0) {
    const low = util.filter(([, u]) => u < 0.8).map(([id]) => id);
    out.push(
      `Proxy CPU during c=${PLAN.throughput.concurrency} (cores): ` +
        `${util.map(([id, u]) => `${id} ${u.toFixed(2)}`).join(', ')}` +
        (low.length
          ? ` — WARNING: ${low.join(', ')} not CPU-bound, ` +
            'so req/s is limited elsewhere (load generator, upstream, other processes).'
          : ' (each proxy was the bottleneck).'),
    );
  }
  out.push('');
  out.push(resultsTable(lanes, results));
  const wrkText = wrkTable(lanes, results, PLAN);
  if (wrkText) {
    out.push('');
    out.push(wrkText);
  }
  const streamsText = streamsTable(lanes, results);
  if (streamsText) {
    out.push('');
    out.push(streamsText);
  }
  const memoryText = memoryTable(lanes, results);
  if (memoryText) {
    out.push('');
    out.push(memoryText);
  }
  const limitsText = limitsTable(lanes, results, LIMITS_LANES, LIMITS_REFERENCE);
  if (limitsText) {
    out.push('');
    out.push(limitsText);
  }
  out.push('');
  out.push('Earlier targets (before issue 13; those against `bare` are information now):');
  out.push(targetsTable(targets));
  const primary = targets.filter((t) => t.lane === TARGET_LANES[0] && !t.informational);
  const translation = targets.filter((t) => TRANSLATION_LANES.includes(t.lane) && !t.informational);
  out.push('');
  if (primary.length > 0)
    out.push(`${TARGET_LANES[0]}: ${primary.filter((t) => t.pass).length}/${primary.length} targets met.`);
  if (translation.length > 0)
    out.push(
      `translation latency (${TRANSLATION_LANES.join(', ')}): ` +
        `${translation.filter((t) => t.pass).length}/${translation.length} targets met.`,
    );
  const limitsTargets = targets.filter((t) => LIMITS_LANES.includes(t.lane) && !t.informational);
  if (limitsTargets.length > 0)
    out.push(
      `budgets + rate limits (${LIMITS_LANES.join(', ')}): ` +
        `${limitsTargets.filter((t) => t.pass).length}/${limitsTargets.length} targets met.`,
    );
  // The guardrails lane (compared with `gateway` of the same run: run both, e.g. --lanes gateway,guardrails).
  const guardrailTargets = targets.filter((t) => t.target.startsWith('guardrails-') && !t.informational);
  if (guardrailTargets.length > 0)
    out.push(
      'guardrails + info log (guardrails vs gateway): ' +
        `${guardrailTargets.filter((t) => t.pass).length}/${guardrailTargets.length} targets met.`,
    );
  else if (lanes.some((l) => l.id === 'guardrails') && !lanes.some((l) => l.id === 'gateway'))
    out.push('guardrails: no verdict without the gateway lane (run --lanes gateway,guardrails).');
  // Issue 13's targets last, where the eye lands.
  const floorText = floorTargetsTable(floorTargets);
  if (floorText) {
    out.push('');
    out.push(floorText);
  }
  process.stdout.write(`${out.join('\n')}\n`);

  const json = {
    meta,
    lanes: lanes.map((l) => ({
      id: l.id,
      label: l.label,
      proc: l.proc,
      baseline: !!l.baseline,
      direct: l.baseline ? undefined : directOf(l),
      proxy: !!l.proxy,
      tests: l.tests,
    })),
    results,
    floorTargets,
    targets,
  };
  mkdirSync(dirname(outPath), { recursive: true });
  writeFileSync(outPath, `${JSON.stringify(json, null, 2)}\n`);
  log(`results written to ${outPath}`);
}

function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: here, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return undefined;
  }
}

// Children (and our redis-server) are killed by pid whatever happens: normal end, crash, Ctrl-C.
process.on('exit', () => {
  killAllNow();
  redis?.killNow();
});
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    killAllNow();
    redis?.killNow();
    process.exit(130);
  });
}

let code = 0;
try {
  await main();
} catch (err) {
  code = 1;
  process.stderr.write(`[bench] FAILED: ${err?.stack ?? err}\n`);
} finally {
  await stopAll();
  await redis?.stop().catch(() => {});
}
process.exit(code);
