/**
 * The load generator (runs in the parent): undici Pools with keep-alive, closed-loop workers,
 * hrtime timing, bounded by request count AND wall time.
 */

import { Pool } from 'undici';

const now = () => process.hrtime.bigint();
const NS_PER_MS = 1e6;

/** One keep-alive pool per lane; `connections` must cover the highest concurrency used. */
export function createClient(baseUrl, connections) {
  return new Pool(baseUrl, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
    connect: { noDelay: true },
  });
}

/**
 * One non-stream request. `keepBody` returns the body text and the headers (for validation);
 * otherwise bytes are only counted.
 */
export async function jsonCall(client, req, keepBody = false) {
  const t0 = now();
  const { statusCode, headers, body } = await client.request({
    path: req.path,
    method: 'POST',
    headers: req.headers,
    body: req.json,
  });
  let bytes = 0;
  const parts = keepBody ? [] : undefined;
  for await (const c of body) {
    bytes += c.length;
    parts?.push(c);
  }
  const ms = Number(now() - t0) / NS_PER_MS;
  return {
    ok: statusCode === 200 && bytes > 0,
    status: statusCode,
    ms,
    text: parts && Buffer.concat(parts).toString('utf8'),
    headers: keepBody ? headers : undefined,
  };
}

const DONE_TAIL = 'data: [DONE]\n\n';

/**
 * One stream request: time to the first body byte and to the end; ok when the body ends with
 * `req.streamEnd` (default `data: [DONE]`, the OpenAI end; Anthropic streams end in message_stop),
 * or, when it is a RegExp, when the last two reads match it (a Responses stream ends with a
 * response.completed event whose data varies).
 */
export async function streamCall(client, req, keepBody = false) {
  const t0 = now();
  const { statusCode, body } = await client.request({
    path: req.path,
    method: 'POST',
    headers: req.headers,
    body: req.stream,
  });
  let first = 0n;
  let prev;
  let last;
  let reads = 0;
  const parts = keepBody ? [] : undefined;
  for await (const c of body) {
    if (reads++ === 0) first = now();
    prev = last;
    last = c;
    parts?.push(c);
  }
  const end = now();
  const tail = last ? Buffer.concat(prev ? [prev, last] : [last]).toString('utf8') : '';
  return {
    ok:
      statusCode === 200 &&
      (req.streamEnd instanceof RegExp ? req.streamEnd.test(tail) : tail.endsWith(req.streamEnd ?? DONE_TAIL)),
    status: statusCode,
    ttfbMs: first ? Number(first - t0) / NS_PER_MS : NaN,
    totalMs: Number(end - t0) / NS_PER_MS,
    reads,
    text: parts && Buffer.concat(parts).toString('utf8'),
  };
}

/**
 * Closed loop: `concurrency` workers each issue `call(i)` back to back until `maxRequests`
 * have been issued or `maxMs` has passed. `onResult` sees every successful result.
 */
export async function closedLoop({ concurrency, maxRequests, maxMs, call, onResult }) {
  let issued = 0;
  let completed = 0;
  let errors = 0;
  let firstError;
  const t0 = now();
  const deadline = t0 + BigInt(Math.round(maxMs * NS_PER_MS));
  const worker = async () => {
    while (issued < maxRequests && now() < deadline) {
      const i = issued++;
      try {
        const r = await call(i);
        if (r.ok) {
          completed++;
          onResult?.(r);
        } else {
          errors++;
          firstError ??= `HTTP ${r.status}${r.text ? `: ${r.text.slice(0, 200)}` : ''}`;
        }
      } catch (err) {
        errors++;
        firstError ??= String(err?.code ?? err?.message ?? err);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedMs = Number(now() - t0) / NS_PER_MS;
  return { completed, errors, firstError, elapsedMs, rps: completed / (elapsedMs / 1000) };
}

/** Nearest-rank percentile of an unsorted array of numbers (NaN when empty). */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}
