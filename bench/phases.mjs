/**
 * The measurement phases. Each takes the run context
 *   { lanes, clients, procs, results, plan, opts, log, has(lane, test), directOf(lane) }
 * and fills `results[lane.id][test]` (`directOf` is the id of the baseline lane a lane's added
 * latency and added stream time are measured against). Lanes are interleaved in rounds with a rotating order, so
 * drift on a shared machine (other processes, CPU frequency) hits every lane alike.
 */

import { machineCpu, procStatusKb, resetPeakRss } from './children.mjs';
import { closedLoop, jsonCall, percentile, streamCall } from './load.mjs';
import { wrkThroughput } from './wrk.mjs';

const mb = (kb) => kb / 1024;
/** The lane every proxy lane is compared with (issue 13). */
const FLOOR = 'floor';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const usesJson = (lane) => lane.tests.some((t) => t !== 'stream');
const usesStream = (lane) => lane.tests.includes('stream') || lane.tests.includes('memory');

async function interleave(lanes, rounds, batch) {
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < lanes.length; k++) await batch(lanes[(k + round) % lanes.length], round);
  }
}

/** Runs `fn` and returns its result with the CPU time (µs) `proc` spent meanwhile (undefined without proc). */
async function withCpu(proc, fn) {
  const before = proc ? await proc.stats() : undefined;
  const result = await fn();
  const after = proc ? await proc.stats() : undefined;
  return { result, cpuUs: before && after ? after.cpuUs - before.cpuUs : undefined };
}

const failure = (r) => `HTTP ${r.status}: ${(r.text ?? '').slice(0, 200)}`;

/**
 * One checked request of each kind per lane (the lane's validators; `validate.headers`, when a
 * lane has it, also checks the JSON reply's headers; `lane.probe`, when it has one, checks what
 * the lane's config must be doing, e.g. recording metrics and a log file), then JIT and pool
 * warm-up.
 */
export async function validateAndWarm(ctx) {
  const { lanes, clients, results, plan, opts, log } = ctx;
  const w = plan.warmup;
  const took = [];
  for (const lane of lanes) {
    const t0 = Date.now();
    const client = clients.get(lane.id);
    const problems = [];
    if (usesJson(lane)) {
      const r = await jsonCall(client, lane.request, true);
      problems.push(r.ok ? lane.validate.json(r.text) : failure(r));
      if (r.ok && lane.validate.headers) problems.push(lane.validate.headers(r.headers));
    }
    if (usesStream(lane)) {
      const r = await streamCall(client, lane.request, true);
      problems.push(r.ok ? lane.validate.stream(r.text, { chunks: opts.chunks }) : failure(r));
      if (r.ok && lane.validate.describeStream) {
        const shape = lane.validate.describeStream(r.text, { chunks: opts.chunks });
        results[lane.id].streamShape = shape;
        log(`lane ${lane.id}: stream ${shape}`);
      }
    }
    // A lane's own check that what it configures is in force (prod: metrics and the log file).
    if (lane.probe) problems.push(await lane.probe({ client, proc: ctx.procs[lane.proc] }).catch((e) => String(e)));
    const invalid = problems.filter(Boolean);
    if (invalid.length > 0) {
      results[lane.id].invalid = invalid;
      log(`lane ${lane.id}: INVALID RESPONSE: ${invalid.join('; ')}`);
    }
    if (usesJson(lane))
      await closedLoop({
        concurrency: w.concurrency,
        maxRequests: w.requests,
        maxMs: w.maxMs,
        call: () => jsonCall(client, lane.request),
      });
    if (usesStream(lane))
      await closedLoop({
        concurrency: 4,
        maxRequests: w.streams,
        maxMs: w.maxMs,
        call: () => streamCall(client, lane.request),
      });
    took.push(`${lane.id} ${((Date.now() - t0) / 1000).toFixed(1)}`);
  }
  log(`validated and warmed ${lanes.length} lanes (s: ${took.join(', ')})`);
}

/** Sequential non-stream requests; added latency = lane percentile − its baseline's percentile. */
export async function latency(ctx) {
  const { clients, results, plan, log, has, directOf } = ctx;
  const lanes = ctx.lanes.filter((l) => has(l, 'latency'));
  if (lanes.length === 0) return;
  const { requests, maxMs, rounds } = plan.latency;
  const acc = new Map(lanes.map((l) => [l.id, { samples: [], errors: 0 }]));
  await interleave(lanes, rounds, async (lane) => {
    const a = acc.get(lane.id);
    const client = clients.get(lane.id);
    const r = await closedLoop({
      concurrency: 1,
      maxRequests: Math.ceil(requests / rounds),
      maxMs: maxMs / rounds,
      call: () => jsonCall(client, lane.request),
      onResult: (x) => a.samples.push(x.ms),
    });
    a.errors += r.errors;
    if (r.firstError) log(`latency ${lane.id}: ${r.errors} errors, first: ${r.firstError}`);
  });
  for (const lane of lanes) {
    const { samples: s, errors } = acc.get(lane.id);
    results[lane.id].latency = {
      n: s.length,
      errors,
      p50: percentile(s, 50),
      p90: percentile(s, 90),
      p99: percentile(s, 99),
      mean: s.reduce((x, y) => x + y, 0) / s.length,
    };
  }
  for (const lane of lanes) {
    const l = results[lane.id].latency;
    const base = lane.baseline ? undefined : results[directOf(lane)]?.latency;
    if (base) {
      l.addedP50 = l.p50 - base.p50;
      l.addedP99 = l.p99 - base.p99;
    }
  }
  log('latency done');
}

/**
 * Sequential streams: time to first body byte, total time, and the proxy's CPU per stream; added
 * stream time = total p50 − its baseline's total p50 (what the proxy adds end to end). Each proxy
 * lane's TTFB p50 and CPU per stream are also divided by the `floor` lane's (ttfbRatio, cpuRatio),
 * with the spread of the same ratios round by round.
 */
export async function stream(ctx) {
  const { clients, procs, results, plan, opts, log, has, directOf } = ctx;
  const lanes = ctx.lanes.filter((l) => has(l, 'stream'));
  if (lanes.length === 0) return;
  const { requests, maxMs, rounds, warm } = plan.stream;
  // JIT warm-up of each proxy's stream path first: a stream's setup (routing the answer, the
  // watch, the first write) runs once per stream, so after the general warm-up's few dozen streams
  // V8 is still optimising it, and c=1 TTFB measured a cold path that a server with traffic leaves
  // behind (perf at c=1 after 200 requests: mostly baseline code and IC stubs; the TTFB ratio fell
  // from ~1.35 to ~1.1 after 5,000 streams). At c=16 it takes a few seconds per lane.
  for (const lane of lanes.filter((l) => l.proxy)) {
    await closedLoop({
      concurrency: warm.concurrency,
      maxRequests: warm.streams,
      maxMs: warm.maxMs,
      call: () => streamCall(clients.get(lane.id), lane.request),
    });
  }
  const acc = new Map(
    lanes.map((l) => [l.id, { ttfb: [], total: [], reads: [], errors: 0, completed: 0, cpuUs: 0, rounds: [] }]),
  );
  await interleave(lanes, rounds, async (lane, round) => {
    const a = acc.get(lane.id);
    const client = clients.get(lane.id);
    const ttfb = [];
    const { result: r, cpuUs } = await withCpu(lane.proxy ? procs[lane.proc] : undefined, () =>
      closedLoop({
        concurrency: 1,
        maxRequests: Math.ceil(requests / rounds),
        maxMs: maxMs / rounds,
        call: () => streamCall(client, lane.request),
        onResult: (x) => {
          ttfb.push(x.ttfbMs);
          a.total.push(x.totalMs);
          a.reads.push(x.reads);
        },
      }),
    );
    a.ttfb.push(...ttfb);
    a.errors += r.errors;
    a.completed += r.completed;
    if (cpuUs !== undefined) a.cpuUs += cpuUs;
    // Per round, for the spread of the ratios to the floor.
    a.rounds[round] = {
      ttfbP50: percentile(ttfb, 50),
      cpuMsPerStream: cpuUs !== undefined && r.completed > 0 ? cpuUs / 1000 / r.completed : undefined,
    };
    if (r.firstError) log(`stream ${lane.id}: ${r.errors} errors, first: ${r.firstError}`);
  });
  for (const lane of lanes) {
    const a = acc.get(lane.id);
    results[lane.id].stream = {
      n: a.ttfb.length,
      errors: a.errors,
      chunks: opts.chunks,
      pacing: opts.pacing,
      ttfbP10: percentile(a.ttfb, 10),
      ttfbP50: percentile(a.ttfb, 50),
      ttfbP90: percentile(a.ttfb, 90),
      ttfbP99: percentile(a.ttfb, 99),
      totalP50: percentile(a.total, 50),
      totalP99: percentile(a.total, 99),
      /** How many reads the client needed per stream (how much the proxy coalesced the events). */
      readsP50: percentile(a.reads, 50),
      proxyCpuMsPerStream: lane.proxy && a.completed > 0 ? a.cpuUs / 1000 / a.completed : undefined,
      /** Per round (lanes interleaved): TTFB p50 and proxy CPU per stream. */
      rounds: a.rounds,
    };
  }
  // Against the floor lane of the same run: TTFB p50 and CPU per stream over all streams, and the
  // min–max of the same ratios taken round by round (the spread).
  const floor = results[FLOOR]?.stream;
  if (floor) {
    for (const lane of lanes.filter((l) => l.proxy)) {
      const st = results[lane.id].stream;
      const perRound = (key) =>
        st.rounds
          .map((x, i) => (x?.[key] !== undefined && floor.rounds[i]?.[key] > 0 ? x[key] / floor.rounds[i][key] : NaN))
          .filter((x) => !Number.isNaN(x));
      const range = (v) => (v.length > 0 ? [Math.min(...v), Math.max(...v)] : undefined);
      st.ttfbRatio = floor.ttfbP50 > 0 ? st.ttfbP50 / floor.ttfbP50 : undefined;
      st.ttfbRatioRange = range(perRound('ttfbP50'));
      st.cpuRatio =
        st.proxyCpuMsPerStream !== undefined && floor.proxyCpuMsPerStream > 0
          ? st.proxyCpuMsPerStream / floor.proxyCpuMsPerStream
          : undefined;
      st.cpuRatioRange = range(perRound('cpuMsPerStream'));
    }
  }
  for (const lane of lanes) {
    const base = lane.baseline ? undefined : results[directOf(lane)]?.stream;
    if (base) {
      const st = results[lane.id].stream;
      st.addedTotalP50 = st.totalP50 - base.totalP50;
      st.addedTtfbP50 = st.ttfbP50 - base.ttfbP50;
    }
  }
  log('stream done');
}

/** Closed loop at c=32, in rounds; CPU per request of the proxy, the upstream and the load generator. */
export async function throughput(ctx) {
  const { clients, procs, results, plan, log, has } = ctx;
  const lanes = ctx.lanes.filter((l) => has(l, 'throughput'));
  if (lanes.length === 0) return;
  const { concurrency, maxRequests, maxMs, rounds } = plan.throughput;
  const acc = new Map(
    lanes.map((l) => [
      l.id,
      {
        completed: 0,
        errors: 0,
        elapsedMs: 0,
        proxyUs: 0,
        upstreamUs: 0,
        loadgenUs: 0,
        helperUs: 0,
        foreignUs: 0,
        stealUs: 0,
      },
    ]),
  );
  await interleave(lanes, rounds, async (lane) => {
    if (ctx.overBudget(`throughput ${lane.id}`)) return;
    const a = acc.get(lane.id);
    const client = clients.get(lane.id);
    const proxy = lane.proxy ? procs[lane.proc] : undefined;
    // Processes the lane relies on besides the proxy (its Redis): their CPU is ours, not noise.
    const helpers = (lane.uses ?? []).map((name) => procs[name]).filter(Boolean);
    const helperCpu = async () => (await Promise.all(helpers.map((h) => h.stats()))).reduce((n, s) => n + s.cpuUs, 0);
    const [pBefore, uBefore, hBefore] = await Promise.all([proxy?.stats(), procs.upstream.stats(), helperCpu()]);
    const lBefore = process.cpuUsage();
    const mBefore = machineCpu();
    const r = await closedLoop({
      concurrency,
      maxRequests: Math.ceil(maxRequests / rounds),
      maxMs: maxMs / rounds,
      call: () => jsonCall(client, lane.request),
    });
    const mAfter = machineCpu();
    const lCpu = process.cpuUsage(lBefore);
    const [pAfter, uAfter, hAfter] = await Promise.all([proxy?.stats(), procs.upstream.stats(), helperCpu()]);
    a.completed += r.completed;
    a.errors += r.errors;
    a.elapsedMs += r.elapsedMs;
    if (proxy) a.proxyUs += pAfter.cpuUs - pBefore.cpuUs;
    a.upstreamUs += uAfter.cpuUs - uBefore.cpuUs;
    a.loadgenUs += lCpu.user + lCpu.system;
    a.helperUs += hAfter - hBefore;
    if (mBefore && mAfter) {
      const ours =
        (proxy ? pAfter.cpuUs - pBefore.cpuUs : 0) +
        (uAfter.cpuUs - uBefore.cpuUs) +
        lCpu.user +
        lCpu.system +
        (hAfter - hBefore);
      a.foreignUs += Math.max(0, mAfter.busyUs - mBefore.busyUs - ours);
      a.stealUs += mAfter.stealUs - mBefore.stealUs;
    }
    if (r.firstError) log(`throughput ${lane.id}: ${r.errors} errors, first: ${r.firstError}`);
    await sleep(150);
  });
  for (const lane of lanes) {
    const a = acc.get(lane.id);
    if (a.completed === 0) continue;
    const perReq = (us) => us / 1000 / a.completed;
    results[lane.id].throughput = {
      concurrency,
      completed: a.completed,
      errors: a.errors,
      elapsedMs: a.elapsedMs,
      rps: a.completed / (a.elapsedMs / 1000),
      proxyCpuMsPerReq: lane.proxy ? perReq(a.proxyUs) : undefined,
      /** Cores the proxy kept busy: ~1.0 means it was the bottleneck. */
      proxyCpuUtilisation: lane.proxy ? a.proxyUs / 1000 / a.elapsedMs : undefined,
      upstreamCpuMsPerReq: perReq(a.upstreamUs),
      loadgenCpuMsPerReq: perReq(a.loadgenUs),
      /** CPU of the processes in lane.uses (redis-server) per request (10 ms resolution per batch). */
      helperCpuMsPerReq: lane.uses?.length ? perReq(a.helperUs) : undefined,
      /** Cores used by processes other than this benchmark's meanwhile (and stolen by the hypervisor): noise. */
      foreignCores: a.foreignUs / 1000 / a.elapsedMs,
      stealCores: a.stealUs / 1000 / a.elapsedMs,
    };
    log(`throughput ${lane.id}: ${Math.round(results[lane.id].throughput.rps)} req/s`);
  }
}

/** Peak RSS (VmHWM, reset first when the kernel allows) over ~3 s at c=128, half JSON half streams. */
export async function memory(ctx) {
  const { clients, procs, results, plan, log, has } = ctx;
  for (const lane of ctx.lanes.filter((l) => has(l, 'memory'))) {
    if (ctx.overBudget(`memory ${lane.id}`)) break;
    const { concurrency, maxRequests, maxMs } = plan.memory;
    const proc = procs[lane.proc];
    const reset = resetPeakRss(proc.pid);
    const before = procStatusKb(proc.pid);
    const client = clients.get(lane.id);
    const r = await closedLoop({
      concurrency,
      maxRequests,
      maxMs,
      call: (i) => (i % 2 === 0 ? jsonCall(client, lane.request) : streamCall(client, lane.request)),
    });
    const after = procStatusKb(proc.pid);
    const stats = await proc.stats();
    const peakKb = after?.VmHWM ?? stats.maxRssKb;
    results[lane.id].memory = {
      concurrency,
      completed: r.completed,
      errors: r.errors,
      rps: r.rps,
      peakRssMB: mb(peakKb),
      /** True when VmHWM could not be reset, so the peak covers the whole run. */
      peakIsLifetime: !reset || !after,
      rssBeforeMB: before ? mb(before.VmRSS) : undefined,
      rssAfterMB: after ? mb(after.VmRSS) : mb(stats.rssBytes / 1024),
      heapTotalAfterMB: mb(stats.heapTotalBytes / 1024),
      heapUsedAfterMB: mb(stats.heapUsedBytes / 1024),
      externalAfterMB: mb(stats.externalBytes / 1024),
      /** Size (reserved and resident) of each V8 space after the run, MB. */
      heapSpacesAfterMB: Object.fromEntries(
        Object.entries(stats.heapSpaces ?? {}).map(([name, s]) => [name, mb(s.sizeBytes / 1024)]),
      ),
    };
    if (r.firstError) log(`memory ${lane.id}: ${r.errors} errors, first: ${r.firstError}`);
    log(
      `memory ${lane.id}: peak ${mb(peakKb).toFixed(1)} MB ` +
        `(RSS before ${before ? mb(before.VmRSS).toFixed(1) : '?'} MB)` +
        `${reset ? '' : ' (lifetime peak: clear_refs not allowed)'}`,
    );
  }
}

/** In run order. */
export const PHASES = [
  { id: 'latency', run: latency },
  { id: 'stream', run: stream },
  { id: 'throughput', run: throughput },
  { id: 'wrk', run: wrkThroughput },
  { id: 'memory', run: memory },
];
