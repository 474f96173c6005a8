/** The table printed to stdout and the target verdicts. */

const fmt = (v, digits = 2) => (v === undefined || v === null || Number.isNaN(v) ? '—' : v.toFixed(digits));
const int = (v) => (v === undefined || Number.isNaN(v) ? '—' : Math.round(v).toLocaleString('en-US'));

function table(headers, rows, alignLeft = new Set([0])) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells.map((c, i) => (alignLeft.has(i) ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function resultsTable(lanes, results) {
  const headers = [
    'lane',
    'c=1 p50',
    'c=1 p99',
    '+p50',
    '+p99',
    'req/s c=32',
    'CPU ms/req',
    'TTFB p50',
    'TTFB p99',
    'stream p50',
    '+stream',
    'stream CPU',
    'peak RSS MB',
    'errors',
  ];
  const rows = lanes.map((lane) => {
    const r = results[lane.id] ?? {};
    const errors =
      ['latency', 'stream', 'throughput', 'memory'].reduce((n, t) => n + (r[t]?.errors ?? 0), 0) + (r.invalid ? 1 : 0);
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
  const legend = lanes
    .map(
      (l) =>
        `  ${l.id.padEnd(Math.max(...lanes.map((x) => x.id.length)))}  ${l.label}` +
        `${l.direct ? ` (+ columns vs ${l.direct})` : ''}`,
    )
    .join('\n');
  return `${table(headers, rows)}\n${legend}`;
}

/**
 * What budgets + rate limits cost: each limits lane beside the reference lane (the plain
 * gateway) of the same run. `per request` = the lane's +p50 (or +p99) minus the reference's, i.e.
 * what reserving and settling the counters in that store adds to one request at c=1; the % is
 * of the reference's added latency. Empty when no limits lane ran.
 */
export function limitsTable(lanes, results, limitsLanes, referenceId) {
  const ref = results[referenceId];
  const rows = lanes.filter((l) => limitsLanes.includes(l.id) && results[l.id]);
  if (rows.length === 0 || !ref) return '';
  const refLat = ref.latency;
  const refTp = ref.throughput;
  const sign = (v, d = 3) => (v === undefined || Number.isNaN(v) ? '—' : `${v >= 0 ? '+' : ''}${v.toFixed(d)}`);
  const pct = (v, base) =>
    v === undefined || base === undefined || !(base > 0)
      ? '—'
      : `${v >= 0 ? '+' : ''}${((v / base) * 100).toFixed(1)}%`;
  const headers = [
    'lane',
    '+p50',
    'per request p50',
    '% of gw +p50',
    '+p99',
    'per request p99',
    'req/s c=32',
    'vs gw',
    'CPU ms/req',
    'CPU Δ',
    'store CPU ms/req',
  ];
  const body = [
    [
      referenceId,
      fmt(refLat?.addedP50, 3),
      '',
      '',
      fmt(refLat?.addedP99, 3),
      '',
      int(refTp?.rps),
      '',
      fmt(refTp?.proxyCpuMsPerReq, 3),
      '',
      '',
    ],
    ...rows.map((l) => {
      const r = results[l.id];
      const d50 = r.latency && refLat ? r.latency.addedP50 - refLat.addedP50 : undefined;
      const d99 = r.latency && refLat ? r.latency.addedP99 - refLat.addedP99 : undefined;
      const tp = r.throughput;
      return [
        l.id,
        fmt(r.latency?.addedP50, 3),
        `${sign(d50)} ms`,
        pct(d50, refLat?.addedP50),
        fmt(r.latency?.addedP99, 3),
        `${sign(d99)} ms`,
        int(tp?.rps),
        tp && refTp ? pct(tp.rps - refTp.rps, refTp.rps) : '—',
        fmt(tp?.proxyCpuMsPerReq, 3),
        tp && refTp ? sign(tp.proxyCpuMsPerReq - refTp.proxyCpuMsPerReq) : '—',
        tp?.helperCpuMsPerReq === undefined ? '' : fmt(tp.helperCpuMsPerReq, 3),
      ];
    }),
  ];
  return (
    `Budgets + rate limits vs ${referenceId} ` +
    `(same run; "per request" = lane +p50/+p99 minus ${referenceId}'s; store CPU = redis-server's):\n` +
    `${table(headers, body)}`
  );
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
      out.push({
        lane: laneId,
        target: t.id,
        text: t.text,
        value,
        vs: t.vs,
        base,
        ratio,
        limit: t.limit,
        cmp: t.cmp,
        unit: t.unit,
        informational: !!t.informational,
        pass,
      });
    }
  }
  return out;
}

/** Targets marked `collapse` (no errors, forwarded): the lanes that pass share one row. */
function collapsePassing(rows) {
  const shown = [];
  for (const t of rows) {
    if (!t.collapse || !t.pass) shown.push(t);
    else if (!shown.some((x) => x.collapsed && x.group === t.group && x.target === t.target)) {
      const same = rows.filter((x) => x.group === t.group && x.target === t.target && x.pass);
      const worst = Math.max(...same.map((x) => x.value));
      shown.push({ ...t, collapsed: true, lane: `${same.length} lane${same.length > 1 ? 's' : ''}`, value: worst });
    }
  }
  return shown;
}

export function targetsTable(rows) {
  const headers = ['lane', 'target', 'lane value', 'vs', 'vs value', 'ratio', 'limit', 'result'];
  const shown = collapsePassing(rows);
  const body = shown.map((t) => [
    t.lane,
    t.text,
    `${t.unit === 'req/s' ? int(t.value) : fmt(t.value, t.unit === 'MB' ? 1 : 3)} ${t.unit}`,
    t.vs ?? '',
    t.base === undefined ? '' : `${t.unit === 'req/s' ? int(t.base) : fmt(t.base, 3)} ${t.unit}`,
    t.ratio === undefined ? '' : fmt(t.ratio, 2),
    `${t.cmp} ${t.limit}${t.ratio === undefined ? ` ${t.unit}` : ''}`,
    (t.pass ? 'PASS' : 'FAIL') + (t.informational ? ' (info)' : ''),
  ]);
  return table(headers, body, new Set([0, 1, 3]));
}

/**
 * Issue 13's targets (lanes.mjs FLOOR_TARGET_GROUPS) for the lanes of this run. `ran(lane, phase)`
 * says whether the lane took part in a phase: a target whose phase ran for the lane but gave no
 * figure (skipped by the time budget, failed) is a row marked missing, which is not met.
 * Rows: { group, info, lane, target, text, value, base, ratio, range, cmp, limit, unit, missing, pass }.
 */
export function evaluateFloorTargets(groups, lanes, results, ran) {
  const out = [];
  for (const g of groups) {
    const inGroup = lanes.filter((l) => (typeof g.lanes === 'function' ? g.lanes(l) : g.lanes.includes(l.id)));
    for (const lane of inGroup) {
      const r = results[lane.id] ?? {};
      for (const t of g.targets) {
        if (t.proxyOnly && !lane.proxy) continue;
        if (t.phase && !ran(lane, t.phase)) continue;
        const value = t.value(r);
        const base = t.vs ? t.value(results[t.vs] ?? {}) : undefined;
        let ratio;
        if (t.vs) ratio = t.ratio ? t.ratio(r) : value !== undefined && base > 0 ? value / base : undefined;
        const measured = t.vs ? ratio : value;
        const missing = measured === undefined || Number.isNaN(measured);
        const pass =
          !missing &&
          (t.cmp === '>=' ? measured >= t.limit : t.cmp === '<=' ? measured <= t.limit : measured < t.limit);
        out.push({
          group: g.id,
          info: !!g.info,
          lane: lane.id,
          target: t.id,
          text: t.text,
          value,
          vs: t.vs,
          base,
          ratio,
          range: t.range?.(r),
          cmp: t.cmp,
          limit: t.limit,
          unit: t.unit,
          collapse: !!t.collapse,
          missing,
          pass,
        });
      }
    }
  }
  return out;
}

const valueText = (v, unit) => {
  if (v === undefined || Number.isNaN(v)) return '—';
  if (unit === 'req/s' || unit === 'µs' || unit === 'errors' || unit === 'runs') return `${int(v)} ${unit}`;
  return `${fmt(v, unit === 'MB' || Math.abs(v) >= 10 ? 1 : 3)} ${unit}`;
};

/** The floor targets, one row per lane and target, then one verdict line per group. */
export function floorTargetsTable(rows) {
  if (rows.length === 0) return '';
  const headers = ['group', 'lane', 'target', 'lane value', 'floor value', 'ratio', '(range)', 'limit', 'result'];
  const shown = collapsePassing(rows);
  const body = shown.map((t) => [
    t.group,
    t.lane,
    t.text,
    valueText(t.value, t.unit),
    t.vs ? valueText(t.base, t.unit) : '',
    t.ratio === undefined ? (t.vs ? '—' : '') : fmt(t.ratio, 2),
    t.range ? `${fmt(t.range[0], 2)}–${fmt(t.range[1], 2)}` : '',
    `${t.cmp} ${t.limit}${t.vs ? '× floor' : ` ${t.unit}`}`,
    t.missing ? 'MISSING' : `${t.pass ? 'PASS' : 'FAIL'}${t.info ? ' (info)' : ''}`,
  ]);
  const verdicts = [];
  for (const group of [...new Set(rows.map((t) => t.group))]) {
    const g = rows.filter((t) => t.group === group);
    const lanes = [...new Set(g.map((t) => t.lane))];
    const failed = g.filter((t) => !t.pass).map((t) => `${t.lane} ${t.target}${t.missing ? ' (missing)' : ''}`);
    const met = `${g.length - failed.length}/${g.length} targets met`;
    const scope = group === 'every lane' ? `${lanes.length} lanes` : lanes.join(', ');
    verdicts.push(
      `${group} (${scope}): ${g[0].info ? `information only, ${met}` : met}` +
        `${failed.length ? `; not met: ${failed.join(', ')}` : ''}.`,
    );
  }
  return [
    'Targets vs the floor (issue 13; ratio = lane / floor of the same run; wrk ratios: median of the per-rep ' +
      'ratios, so not always lane value / floor value):',
    table(headers, body, new Set([0, 1, 2])),
    '',
    ...verdicts,
  ].join('\n');
}

/** Streams against the floor: TTFB p50 and the proxy's CPU per stream, with their ratios. */
export function streamsTable(lanes, results) {
  const rows = lanes.filter((l) => l.proxy && results[l.id]?.stream?.ttfbRatio !== undefined);
  if (rows.length === 0) return '';
  const range = (r) => (r ? `${fmt(r[0], 2)}–${fmt(r[1], 2)}` : '—');
  const headers = ['lane', 'TTFB p50', '÷ floor', '(range)', 'stream CPU ms', '÷ floor', '(range)', 'reads p50'];
  const body = rows.map((l) => {
    const st = results[l.id].stream;
    return [
      l.id,
      fmt(st.ttfbP50, 3),
      fmt(st.ttfbRatio, 2),
      range(st.ttfbRatioRange),
      fmt(st.proxyCpuMsPerStream, 3),
      fmt(st.cpuRatio, 2),
      range(st.cpuRatioRange),
      fmt(st.readsP50, 0),
    ];
  });
  return [
    'Streams vs the floor (sequential streams at c=1, lanes interleaved in rounds; ratio over all streams, ' +
      '(range) = the same ratio round by round; reads = client reads per stream):',
    table(headers, body),
  ].join('\n');
}

/**
 * The memory phase per lane, with the process it ran in: lanes that share a process (the gateway
 * lanes) run one after another, so each starts from the RSS the previous one left.
 */
export function memoryTable(lanes, results) {
  const rows = lanes.filter((l) => results[l.id]?.memory);
  if (rows.length === 0) return '';
  const headers = ['lane', 'process', 'RSS before', 'peak RSS', 'RSS after', 'heap used after', 'req/s', 'errors'];
  const body = rows.map((l) => {
    const m = results[l.id].memory;
    return [
      l.id,
      l.proc,
      fmt(m.rssBeforeMB, 1),
      `${fmt(m.peakRssMB, 1)}${m.peakIsLifetime ? ' (lifetime)' : ''}`,
      fmt(m.rssAfterMB, 1),
      fmt(m.heapUsedAfterMB, 1),
      int(m.rps),
      String(m.errors),
    ];
  });
  const shared = [...new Set(rows.map((l) => l.proc))].filter((p) => rows.filter((l) => l.proc === p).length > 1);
  return [
    'Memory (MB; VmHWM reset before each lane, c=128, half streams; in run order' +
      `${shared.length ? `; lanes of process ${shared.join(', ')} run in one process, one after another` : ''}):`,
    table(headers, body),
  ].join('\n');
}
