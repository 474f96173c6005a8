/**
 * The top self-time frames of a V8 .cpuprofile (from `node --cpu-prof`, e.g. a bench run with
 * BENCH_CHILD_EXECARGV="--cpu-prof --cpu-prof-dir=DIR"): one line per function (name, file:line),
 * its share of the sampled time, and a total per file, so a change can be shown before and after.
 *
 * With --inclusive, also the functions by total time (self + what they called, each sample
 * counted once per function on its stack), to see which subtree a cost sits under.
 *
 * With --lines NAME, the self time of the functions called NAME line by line, with the line's
 * source (read from the profiled file; V8 counts inlined callees on the caller's line): where in
 * a function its time goes, e.g. `--lines handle` for the server's request handler.
 *
 *   node bench/profile-top.mjs FILE.cpuprofile [--top 30] [--files 15] [--inclusive] [--lines NAME]
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { args } from './child-common.mjs';

const opts = args();
const file = process.argv[2];
if (!file || file.startsWith('--')) throw new Error('usage: node bench/profile-top.mjs FILE.cpuprofile [--top N]');
const top = Number(opts.top ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8'));

// Sample counts per node id, then time per node (each sample stands for its time delta).
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const shortUrl = (url) => url.replace(/^file:\/\//, '').replace(/^.*\/(dist|node_modules|bench)\//, '$1/');
const byFrame = new Map();
const byFile = new Map();
let total = 0;
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  // Idle time is the event loop waiting: shares are of the time the process was busy.
  if (us === 0 || node.callFrame.functionName === '(idle)') continue;
  total += us;
  const cf = node.callFrame;
  const url = shortUrl(cf.url) || '(native)';
  const key = `${cf.functionName || '(anonymous)'}  ${url}${cf.url ? `:${cf.lineNumber + 1}` : ''}`;
  byFrame.set(key, (byFrame.get(key) ?? 0) + us);
  const group = cf.url ? url.replace(/^node:.*/, 'node:internal') : cf.functionName;
  byFile.set(group, (byFile.get(group) ?? 0) + us);
}
// Inclusive time: walk each sampled node's stack once (parents from the children lists).
const parent = new Map();
const nodeById = new Map(profile.nodes.map((n) => [n.id, n]));
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map();
if (opts.inclusive === 'true') {
  for (const [id, us] of selfUs) {
    if (nodeById.get(id)?.callFrame.functionName === '(idle)') continue;
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const cf = nodeById.get(cur).callFrame;
      const where = cf.url ? `${shortUrl(cf.url)}:${cf.lineNumber + 1}` : '(native)';
      const key = `${cf.functionName || '(anonymous)'}  ${where}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
}
// Per line of the functions named by --lines: V8's position ticks (samples, not time) per node.
const lines = new Map();
let lineTicks = 0;
if (opts.lines) {
  for (const n of profile.nodes) {
    const cf = n.callFrame;
    if (cf.functionName !== opts.lines || !cf.url.startsWith('file:')) continue;
    const source = readFileSync(fileURLToPath(cf.url), 'utf8').split('\n');
    for (const t of n.positionTicks ?? []) {
      const key = `${shortUrl(cf.url)}:${t.line}  ${(source[t.line - 1] ?? '').trim().slice(0, 100)}`;
      lines.set(key, (lines.get(key) ?? 0) + t.ticks);
      lineTicks += t.ticks;
    }
  }
}
const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
const list = (m, n) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => `${pct(us)}  ${k}`)
    .join('\n');
process.stdout.write(
  `${(total / 1e6).toFixed(2)} s busy (idle left out)\nTop ${top} frames by self time:\n${list(byFrame, top)}\n\n` +
    `By file:\n${list(byFile, Number(opts.files ?? 15))}\n` +
    (inclusive.size > 0 ? `\nTop ${top} functions by total time:\n${list(inclusive, top)}\n` : '') +
    (opts.lines
      ? `\n${opts.lines}, samples per line (${lineTicks} in all):\n${[...lines]
          .sort((a, b) => b[1] - a[1])
          .slice(0, top)
          .map(([k, n]) => `${String(n).padStart(6)}  ${k}`)
          .join('\n')}\n`
      : ''),
);
