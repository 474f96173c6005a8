/**
 * Throughput with `wrk` (a C load generator, so the load itself costs the proxy's core nothing):
 * each proxy lane's process pinned to core 0, wrk and the upstream to the other cores (taskset),
 * non-stream requests at c=32 and c=128 for `durationS` each. Results per lane and concurrency:
 * req/s, p50/p99, errors (wrk's non-2xx and socket errors), the proxy's CPU per request, and how
 * many requests the upstream saw (a lane that answered without forwarding shows up there).
 * Affinity is put back on every process afterwards. Skipped, with a note, without wrk or taskset.
 */

import { spawnSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

const has = (cmd, arg) => !spawnSync(cmd, [arg], { stdio: 'ignore' }).error;

export function wrkAvailable() {
  return has('wrk', '--version') && has('taskset', '--version') && cpus().length >= 2;
}

/** A Lua script that POSTs the lane's JSON request and prints one parsable summary line. */
function luaScript(req) {
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

function pin(pid, cores) {
  spawnSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
}

function runWrk(url, script, concurrency, durationS, cores) {
  return new Promise((resolve) => {
    const args = ['-c', cores, 'wrk', '-t1', `-c${concurrency}`, `-d${durationS}s`, '--timeout', '5s'];
    const child = spawn('taskset', [...args, '-s', script, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), (durationS + 15) * 1000);
    child.on('close', () => {
      clearTimeout(timer);
      const m = /^WRK (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$/m.exec(out);
      if (!m) return resolve({ failed: out.slice(0, 300) || 'wrk printed nothing' });
      const [requests, durationUs, socketErrors, statusErrors, p50Us, p99Us] = m.slice(1).map(Number);
      resolve({ requests, durationUs, errors: socketErrors + statusErrors, p50Ms: p50Us / 1000, p99Ms: p99Us / 1000 });
    });
  });
}

/**
 * `ctx.results[lane].wrk = { [c]: { rps, p50Ms, p99Ms, errors, cpuMsPerReq, completed, upstreamRequests } }`.
 * `upstreamRequests`: what the upstream received meanwhile; between `completed` and `completed` plus
 * the requests still in flight when wrk stopped (at most the concurrency) when every one was forwarded.
 */
export async function wrkThroughput(ctx) {
  const { procs, results, log } = ctx;
  // The lanes with a throughput test (selected by the phase's own id, `--tests wrk`).
  const lanes = ctx.lanes.filter((l) => l.tests.includes('throughput'));
  if (lanes.length === 0) return;
  if (!wrkAvailable()) {
    log('wrk phase skipped: needs wrk and taskset on PATH and 2 or more cores (apt-get install wrk)');
    return;
  }
  const { concurrencies, durationS } = ctx.plan.wrk;
  const all = `0-${cpus().length - 1}`;
  const others = cpus().length > 2 ? `1-${cpus().length - 1}` : '1';
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const everyone = Object.values(procs).filter((p) => p?.pid);
  try {
    for (const p of everyone) pin(p.pid, others);
    for (const lane of lanes) {
      const proxy = lane.proxy ? procs[lane.proc] : undefined;
      if (proxy) pin(proxy.pid, '0');
      const script = join(dir, `${lane.id}.lua`);
      writeFileSync(script, luaScript(lane.request));
      const url = procs[lane.proc].url;
      results[lane.id].wrk = {};
      for (const c of concurrencies) {
        if (ctx.overBudget(`wrk ${lane.id} c=${c}`)) break;
        const [pBefore, uBefore] = await Promise.all([proxy?.stats(), procs.upstream.stats()]);
        const r = await runWrk(url, script, c, durationS, others);
        const [pAfter, uAfter] = await Promise.all([proxy?.stats(), procs.upstream.stats()]);
        if (r.failed) {
          log(`wrk ${lane.id} c=${c} failed: ${r.failed}`);
          continue;
        }
        const done = Math.max(1, r.requests);
        results[lane.id].wrk[c] = {
          rps: r.requests / (r.durationUs / 1e6),
          p50Ms: r.p50Ms,
          p99Ms: r.p99Ms,
          errors: r.errors,
          cpuMsPerReq: proxy ? (pAfter.cpuUs - pBefore.cpuUs) / 1000 / done : undefined,
          upstreamRequests: uAfter.requests !== undefined ? uAfter.requests - uBefore.requests : undefined,
          completed: r.requests,
        };
        log(`wrk ${lane.id} c=${c}: ${Math.round(results[lane.id].wrk[c].rps)} req/s, p99 ${r.p99Ms} ms`);
      }
      if (proxy) pin(proxy.pid, others);
    }
  } finally {
    for (const p of everyone) pin(p.pid, all);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The wrk table: each proxy lane against the `floor` lane of the same run. */
export function wrkTable(lanes, results, floorId = 'floor') {
  const rows = lanes.filter((l) => results[l.id]?.wrk && Object.keys(results[l.id].wrk).length > 0);
  if (rows.length === 0) return '';
  const floor = results[floorId]?.wrk ?? {};
  const cs = [...new Set(rows.flatMap((l) => Object.keys(results[l.id].wrk)))].map(Number).sort((a, b) => a - b);
  const ratio = (v, f) => (v !== undefined && f ? (v / f).toFixed(2) : '—');
  const head = ['lane'];
  for (const c of cs) head.push(`req/s c${c}`, '÷ floor', `CPU µs c${c}`, '÷ floor', `p99 c${c}`, 'errors');
  const lines = [head];
  for (const l of rows) {
    const line = [l.id];
    for (const c of cs) {
      const r = results[l.id].wrk[c];
      const f = floor[c];
      if (!r) {
        line.push('—', '—', '—', '—', '—', '—');
        continue;
      }
      const cpuUs = r.cpuMsPerReq !== undefined ? r.cpuMsPerReq * 1000 : undefined;
      const fCpuUs = f?.cpuMsPerReq !== undefined ? f.cpuMsPerReq * 1000 : undefined;
      line.push(
        Math.round(r.rps).toLocaleString('en-US'),
        ratio(r.rps, f?.rps),
        cpuUs !== undefined ? cpuUs.toFixed(0) : '—',
        ratio(cpuUs, fCpuUs),
        r.p99Ms.toFixed(1),
        String(r.errors),
      );
    }
    lines.push(line);
  }
  const widths = head.map((_, i) => Math.max(...lines.map((r) => String(r[i]).length)));
  const fmt = (r) =>
    r.map((v, i) => (i === 0 ? String(v).padEnd(widths[i]) : String(v).padStart(widths[i]))).join('  ');
  // Every request must have reached the upstream once: a lane that answered on its own is no measure.
  const unforwarded = rows.flatMap((l) =>
    Object.entries(results[l.id].wrk)
      .filter(([c, r]) => {
        if (r.upstreamRequests === undefined) return false;
        return r.upstreamRequests < r.completed || r.upstreamRequests > r.completed + Number(c);
      })
      .map(([c, r]) => `${l.id} c${c}: ${r.upstreamRequests} upstream for ${r.completed} completed`),
  );
  return [
    `wrk (proxy pinned to core 0; wrk and upstream on the other cores; ${lanes.length} lanes, non-stream):`,
    fmt(lines[0]),
    ...lines.slice(1).map(fmt),
    unforwarded.length > 0
      ? `WARNING: not every request was forwarded exactly once: ${unforwarded.join('; ')}`
      : 'Every lane forwarded each request to the upstream exactly once.',
  ].join('\n');
}
