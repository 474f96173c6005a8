/**
 * V8 lets the old generation grow to as much as 4× what survived the last full collection before
 * it collects again. A gateway's live heap is small (config, pools, counters: ~20 MB) and what it
 * promotes under load is request state that is already garbage, so that headroom is mostly waiting
 * garbage: at 128 concurrent requests, half of them streams, peak RSS was ~165-190 MB. Capping
 * the growth at 1.6× brought it to ~130 MB, with no CPU cost bench/ab.mjs could see. Set by
 * `gateway serve` only (never by importing the library), and never over the operator's own
 * `--heap-growing-percent` (node flag or NODE_OPTIONS).
 */

import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 60;

/** The V8 flag serve sets, or undefined when the operator chose the heap's growth themselves. */
export function heapGrowthFlag(execArgv: readonly string[], nodeOptions: string | undefined): string | undefined {
  const chosen = [...execArgv, nodeOptions ?? ''].some((a) => /heap[-_]growing[-_]percent/.test(a));
  return chosen ? undefined : `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Applies heapGrowthFlag to this process, before the config is loaded; returns the flag set, if any. */
export function tuneHeapForServing(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): string | undefined {
  const flag = heapGrowthFlag(execArgv, nodeOptions);
  if (flag) setFlagsFromString(flag);
  return flag;
}
