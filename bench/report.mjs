/** The table printed to stdout and the target verdicts. */

const fmt = (v, digits = 2) => (v === undefined || v === null || Number.isNaN(v) ? '—' : v.toFixed(digits));
const int = (v) => (v === undefined || Number.isNaN(v) ? '—' : Math.round(v).toLocaleString('en-US'));

function table(headers, rows, alignLeft = new Set([0])) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (alignLeft.has(i) ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function resultsTable(lanes, results) {
  const headers = ['lane', 'c=1 p50', 'c=1 p99', '+p50', '+p99', 'req/s c=32', 'CPU ms/req', 'TTFB p50', 'TTFB p99', 'stream p50', '+stream', 'stream CPU', 'peak RSS MB', 'errors'];
  const rows = lanes.map((lane) => {
    const r = results[lane.id] ?? {};
    const errors = ['latency', 'stream', 'throughput', 'memory'].reduce((n, t) => n + (r[t]?.errors ?? 0), 0) + (r.invalid ? 1 : 0);
    return [
      lane.id,
      fmt(r.latency?.p50, 3),
      fmt(r.latency?.p99, 3),
      lane.baseline ? '' : fmt(r.latency?.addedP50, 3),
      lane.baseline ? '' : fmt(r.latency?.addedP99, 3),
      int(r.throughput?.rps),
      lane.proxy ? fmt(r.throughput?.proxyCpuMsPerReq, 3) : '',
      fmt(r.stream?.ttfbP50, 3),
      fmt(r.stream?.ttfbP99, 3),
      fmt(r.stream?.totalP50, 3),
      lane.baseline ? '' : fmt(r.stream?.addedTotalP50, 3),
      lane.proxy ? fmt(r.stream?.proxyCpuMsPerStream, 3) : '',
      r.memory ? fmt(r.memory.peakRssMB, 1) : '',
      String(errors),
    ];
  });
  const legend = lanes.map((l) => `  ${l.id.padEnd(Math.max(...lanes.map((x) => x.id.length)))}  ${l.label}${l.direct ? ` (+ columns vs ${l.direct})` : ''}`).join('\n');
  return `${table(headers, rows)}\n${legend}`;
}

/**
 * Evaluates every target for each of its lanes (`t.lanes`, default `targetLanes`) that has the
 * metric; rows are grouped by lane, in `order` (the lanes' run order) after `targetLanes`.
 */
export function evaluateTargets(targets, targetLanes, results, order = []) {
  const out = [];
  const laneIds = [...new Set([...targetLanes, ...order])];
  for (const laneId of laneIds) {
    const r = results[laneId];
    if (!r) continue;
    for (const t of targets) {
      if (!(t.lanes ?? targetLanes).includes(laneId)) continue;
      const value = t.metric(r);
      if (value === undefined || Number.isNaN(value)) continue;
      let base;
      let ratio;
      let measured = value;
      if (t.vs) {
        base = t.metric(results[t.vs] ?? {});
        if (base === undefined || Number.isNaN(base)) continue;
        // Added-latency baselines can be ~0 or negative by noise; a floor keeps the ratio finite.
        const denom = t.floor !== undefined ? Math.max(base, t.floor) : base;
        ratio = value / denom;
        measured = ratio;
      }
      const pass = t.cmp === '>=' ? measured >= t.limit : t.cmp === '<=' ? measured <= t.limit : measured < t.limit;
      out.push({ lane: laneId, target: t.id, text: t.text, value, vs: t.vs, base, ratio, limit: t.limit, cmp: t.cmp, unit: t.unit, informational: !!t.informational, pass });
    }
  }
  return out;
}

export function targetsTable(rows) {
  const headers = ['lane', 'target', 'lane value', 'vs', 'vs value', 'ratio', 'limit', 'result'];
  const body = rows.map((t) => [
    t.lane,
    t.text,
    `${t.unit === 'req/s' ? int(t.value) : fmt(t.value, t.unit === 'MB' ? 1 : 3)} ${t.unit}`,
    t.vs ?? '',
    t.base === undefined ? '' : `${t.unit === 'req/s' ? int(t.base) : fmt(t.base, 3)} ${t.unit}`,
    t.ratio === undefined ? '' : fmt(t.ratio, 2),
    `${t.cmp} ${t.limit}${t.ratio === undefined ? ' ' + t.unit : ''}`,
    (t.pass ? 'PASS' : 'FAIL') + (t.informational ? ' (info)' : ''),
  ]);
  return table(headers, body, new Set([0, 1, 3]));
}
