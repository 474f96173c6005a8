/**
 * The benchmark's stand-in for an OpenAI-compatible provider, in its own process so its CPU does
 * not share an event loop with the proxies under test. POST …/chat/completions answers:
 *   - non-stream: one ~300-byte `chat.completion` JSON;
 *   - stream: `--chunks` (default 100) `chat.completion.chunk` events, then a usage-only chunk
 *     when the request asked for `stream_options.include_usage`, then `data: [DONE]`.
 * Pacing of the events:
 *   interval (default)  the first event with the headers, then `--group` (10) events every
 *                       `--interval-ms` (1) ms: like a model, the upstream is idle between
 *                       tokens, so a proxy does not compete with it for CPU on a small machine
 *   tick                one event per event-loop turn, as fast as possible (upstream CPU-bound)
 *   burst               everything in one write
 * Anything else is a 404. Listens on 127.0.0.1 only.
 */

import { createServer } from 'node:http';
import { args, ready, serveIpc } from './child-common.mjs';

const opts = args();
const CHUNKS = Number(opts.chunks ?? 100);
if (!(CHUNKS >= 2)) throw new Error('--chunks must be at least 2');
const PACING = opts.pacing ?? 'interval';
const GROUP = Number(opts.group ?? 10);
const INTERVAL_MS = Number(opts['interval-ms'] ?? 1);
const MODEL = 'gpt-bench-upstream';
const CREATED = 1_700_000_000;

const completionJson = (id) =>
  `{"id":"chatcmpl-${id}","object":"chat.completion","created":${CREATED},"model":"${MODEL}",` +
  `"choices":[{"index":0,"message":{"role":"assistant","content":"Hello! This is a canned benchmark reply.","refusal":null},` +
  `"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":24,"completion_tokens":9,"total_tokens":33},` +
  `"system_fingerprint":"fp_bench"}`;

const chunkHead = `{"id":"chatcmpl-bench-stream","object":"chat.completion.chunk","created":${CREATED},"model":"${MODEL}","system_fingerprint":"fp_bench","choices":[{"index":0,`;
const event = (json) => Buffer.from(`data: ${json}\n\n`);

/** The stream's events, built once: role, CHUNKS-2 content deltas, finish (CHUNKS in all). */
const STREAM = [];
STREAM.push(event(`${chunkHead}"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`));
for (let i = 1; i < CHUNKS - 1; i++) STREAM.push(event(`${chunkHead}"delta":{"content":" tok${i}"},"logprobs":null,"finish_reason":null}]}`));
STREAM.push(event(`${chunkHead}"delta":{},"logprobs":null,"finish_reason":"stop"}]}`));
const USAGE = event(
  `{"id":"chatcmpl-bench-stream","object":"chat.completion.chunk","created":${CREATED},"model":"${MODEL}","system_fingerprint":"fp_bench","choices":[],` +
    `"usage":{"prompt_tokens":24,"completion_tokens":${CHUNKS - 2},"total_tokens":${24 + CHUNKS - 2}}}`,
);
const DONE = Buffer.from('data: [DONE]\n\n');

/**
 * Interval pacing, built once: the first event alone, then groups of GROUP content events; the
 * usage chunk (when asked for) and [DONE] go with the last group, so asking for usage does not
 * cost an extra interval.
 */
function paced(tail) {
  const groups = [[STREAM[0]]];
  for (let i = 1; i < STREAM.length; i += GROUP) groups.push(STREAM.slice(i, i + GROUP));
  groups.at(-1).push(...tail);
  return groups.map((g) => Buffer.concat(g));
}
const GROUPS = paced([DONE]);
const GROUPS_WITH_USAGE = paced([USAGE, DONE]);

let seq = 0;

function notFound(res) {
  const body = '{"error":{"message":"not found","type":"invalid_request_error"}}';
  res.writeHead(404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function answer(req, res, raw) {
  let parsed;
  try {
    parsed = JSON.parse(raw);
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"invalid json","type":"invalid_request_error"}}');
    return;
  }
  const id = `req_bench_${++seq}`;
  if (parsed.stream !== true) {
    const body = completionJson(seq);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-request-id': id });
    res.end(body);
    return;
  }
  const events = parsed.stream_options?.include_usage === true ? [...STREAM, USAGE, DONE] : [...STREAM, DONE];
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': id });
  if (PACING === 'burst') {
    res.cork();
    for (const e of events) res.write(e);
    res.end();
    return;
  }
  if (PACING === 'interval') {
    const groups = parsed.stream_options?.include_usage === true ? GROUPS_WITH_USAGE : GROUPS;
    res.write(groups[0]);
    let g = 1;
    const timer = setInterval(() => {
      if (res.destroyed) {
        clearInterval(timer);
        return;
      }
      const last = g === groups.length - 1;
      res.write(groups[g++]);
      if (last) {
        clearInterval(timer);
        res.end();
      }
    }, INTERVAL_MS);
    return;
  }
  let i = 0;
  const next = () => {
    if (res.destroyed) return;
    if (i === events.length) {
      res.end();
      return;
    }
    res.write(events[i++]);
    setImmediate(next);
  };
  next();
}

const server = createServer({ keepAlive: true, noDelay: true, keepAliveTimeout: 65_000 }, (req, res) => {
  if (req.method !== 'POST' || !(req.url ?? '').split('?', 1)[0].endsWith('/chat/completions')) {
    req.resume();
    notFound(res);
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('utf8')));
});

serveIpc(
  () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
);
server.listen(0, '127.0.0.1', () => ready(`http://127.0.0.1:${server.address().port}`));
