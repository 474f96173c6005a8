/**
 * Showing that a cost is linear without trusting absolute timings (a slow, noisy 2-core box):
 * time the same work at n and 2n and compare, and probe the server's event loop while it works.
 */
import { Worker } from 'node:worker_threads';
import { expect } from 'vitest';

/** Wall time of `fn` in ms, and its result. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/**
 * Doubling the input must not quadruple the time: a quadratic cost gives about 4×, a linear one
 * 2×. `slackMs` absorbs fixed costs and scheduling noise when both times are small.
 */
export function expectLinearDoubling(msAtN: number, msAt2N: number, slackMs = 250): void {
  expect(msAt2N, `time at 2n (${msAt2N.toFixed(0)} ms) vs at n (${msAtN.toFixed(0)} ms)`).toBeLessThan(
    3 * msAtN + slackMs,
  );
}

// The probe runs on a thread of its own: the gateway under test shares this thread's event loop,
// so a probe started here could only fire once the work had let go of it.
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
setTimeout(async () => {
  const start = performance.now();
  try {
    const res = await fetch(workerData.url, { signal: AbortSignal.timeout(120000) });
    await res.arrayBuffer();
    parentPort.postMessage({ ms: performance.now() - start, status: res.status });
  } catch (e) {
    parentPort.postMessage({ ms: performance.now() - start, status: 0, error: String(e) });
  }
}, workerData.afterMs);
`;

/**
 * Starts `work` and, from another thread, asks `GET /health` `afterMs` later and times the answer:
 * while the gateway's event loop is frozen the answer waits for the work to end. Resolves once both
 * are done.
 */
export async function healthLatencyDuring<T>(
  baseUrl: string,
  work: () => Promise<T>,
  afterMs = 200,
): Promise<{ healthMs: number; workMs: number; value: T }> {
  const probe = new Worker(PROBE, { eval: true, workerData: { url: `${baseUrl}/health`, afterMs } });
  const answer = new Promise<{ ms: number; status: number; error?: string }>((resolve, reject) => {
    probe.once('message', resolve);
    probe.once('error', reject);
  });
  try {
    const done = await timed(work);
    const health = await answer;
    expect(health.status, health.error).toBe(200);
    return { healthMs: health.ms, workMs: done.ms, value: done.value };
  } finally {
    await probe.terminate();
  }
}
