/**
 * The benchmark's stand-in for both provider formats, in its own process so its CPU does not
 * share an event loop with the proxies under test.
 *
 * POST …/chat/completions (OpenAI-compatible) answers:
 *   - non-stream: one ~300-byte `chat.completion` JSON;
 *   - stream: `--chunks` (default 100) `chat.completion.chunk` events (role, chunks-2 content
 *     deltas, finish), then a usage-only chunk when the request asked for
 *     `stream_options.include_usage`, then `data: [DONE]`.
 * POST …/v1/messages (Anthropic Messages) answers in Anthropic's wire format:
 *   - non-stream: one ~330-byte `message` JSON with usage (`request-id` header, as Anthropic);
 *   - stream: `event:` + `data:` lines as Anthropic sends them: message_start, ping,
 *     content_block_start, `--chunks` content_block_delta (text_delta) events, content_block_stop,
 *     message_delta (stop_reason + usage), message_stop.
 *   It checks what Anthropic would refuse (no x-api-key → 401, no anthropic-version or no
 *   model/messages/max_tokens → 400), so a translated request that would fail for real fails here.
 * Pacing of the events (both formats alike: 11 writes, 10 intervals for 100 chunks):
 *   interval (default)  the opening event(s) with the headers (OpenAI: the role chunk; Anthropic:
 *                       message_start, ping, content_block_start), then `--group` (10) content
 *                       events every `--interval-ms` (1) ms, the closing events with the last
 *                       group: like a model, the upstream is idle between tokens, so a proxy
 *                       does not compete with it for CPU on a small machine
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
const ANTHROPIC_MODEL = 'claude-bench-upstream';
const CREATED = 1_700_000_000;
/** The non-stream reply text, the same in both formats. */
const REPLY = 'Hello! This is a canned benchmark reply.';

// ---------------------------------------------------------------------------------------------
// OpenAI chat completions

const completionJson = (id) =>
  `{"id":"chatcmpl-${id}","object":"chat.completion","created":${CREATED},"model":"${MODEL}",` +
  `"choices":[{"index":0,"message":{"role":"assistant","content":"${REPLY}","refusal":null},` +
  `"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":24,"completion_tokens":9,"total_tokens":33},` +
  `"system_fingerprint":"fp_bench"}`;

const chunkHead =
  `{"id":"chatcmpl-bench-stream","object":"chat.completion.chunk","created":${CREATED},"model":"${MODEL}",` +
  '"system_fingerprint":"fp_bench","choices":[{"index":0,';
const event = (json) => Buffer.from(`data: ${json}\n\n`);

/** The stream's events, built once: role, CHUNKS-2 content deltas, finish (CHUNKS in all). */
const STREAM = [];
STREAM.push(event(`${chunkHead}"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`));
for (let i = 1; i < CHUNKS - 1; i++)
  STREAM.push(event(`${chunkHead}"delta":{"content":" tok${i}"},"logprobs":null,"finish_reason":null}]}`));
STREAM.push(event(`${chunkHead}"delta":{},"logprobs":null,"finish_reason":"stop"}]}`));
const USAGE = event(
  `{"id":"chatcmpl-bench-stream","object":"chat.completion.chunk","created":${CREATED},"model":"${MODEL}",` +
    '"system_fingerprint":"fp_bench","choices":[],' +
    `"usage":{"prompt_tokens":24,"completion_tokens":${CHUNKS - 2},"total_tokens":${24 + CHUNKS - 2}}}`,
);
const DONE = Buffer.from('data: [DONE]\n\n');

// ---------------------------------------------------------------------------------------------
// Anthropic messages

const anthropicUsage = (output) =>
  '{"input_tokens":24,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,' +
  `"output_tokens":${output},"service_tier":"standard"}`;
const messageJson = (id) =>
  `{"id":"msg_bench_${id}","type":"message","role":"assistant","model":"${ANTHROPIC_MODEL}",` +
  `"content":[{"type":"text","text":"${REPLY}"}],"stop_reason":"end_turn","stop_sequence":null,` +
  `"usage":${anthropicUsage(9)}}`;
/** Anthropic names every event twice: on the `event:` line and as `type` in the data. */
const aEvent = (type, json) => Buffer.from(`event: ${type}\ndata: ${json}\n\n`);

/** Opening events: message_start, ping, content_block_start (sent with the headers). */
const A_HEAD = [
  aEvent(
    'message_start',
    '{"type":"message_start","message":{"id":"msg_bench_stream","type":"message","role":"assistant",' +
      `"model":"${ANTHROPIC_MODEL}",` +
      `"content":[],"stop_reason":null,"stop_sequence":null,"usage":${anthropicUsage(1)}}}`,
  ),
  aEvent('ping', '{"type": "ping"}'),
  aEvent('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'),
];
/** CHUNKS text deltas. */
const A_DELTAS = [];
for (let i = 1; i <= CHUNKS; i++)
  A_DELTAS.push(
    aEvent(
      'content_block_delta',
      `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" tok${i}"}}`,
    ),
  );
/** Closing events, sent with the last group of deltas. */
const A_TAIL = [
  aEvent('content_block_stop', '{"type":"content_block_stop","index":0}'),
  aEvent(
    'message_delta',
    '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},' +
      `"usage":{"output_tokens":${CHUNKS}}}`,
  ),
  aEvent('message_stop', '{"type":"message_stop"}'),
];

// ---------------------------------------------------------------------------------------------
// Pacing

/**
 * Interval pacing, built once: the opening events alone, then groups of GROUP content events;
 * the closing events (OpenAI: usage chunk when asked for and [DONE]) go with the last group, so
 * they do not cost an extra interval.
 */
function paced(head, body, tail) {
  const groups = [head];
  for (let i = 0; i < body.length; i += GROUP) groups.push(body.slice(i, i + GROUP));
  groups.at(-1).push(...tail);
  return groups.map((g) => Buffer.concat(g));
}

/** A stream's events in order and its interval groups, built once. */
const plan = (head, body, tail) => ({ events: [...head, ...body, ...tail], groups: paced(head, body, tail) });
const OPENAI_PLAIN = plan([STREAM[0]], STREAM.slice(1), [DONE]);
const OPENAI_WITH_USAGE = plan([STREAM[0]], STREAM.slice(1), [USAGE, DONE]);
const ANTHROPIC_STREAM = plan(A_HEAD, A_DELTAS, A_TAIL);

/** Writes a planned stream with the configured pacing (headers already written). */
function sendStream(res, { events, groups }) {
  if (PACING === 'burst') {
    res.cork();
    for (const e of events) res.write(e);
    res.end();
    return;
  }
  if (PACING === 'interval') {
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

// ---------------------------------------------------------------------------------------------
// Handlers

let seq = 0;

function sendJson(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function notFound(res) {
  sendJson(res, 404, '{"error":{"message":"not found","type":"invalid_request_error"}}');
}

function parseOr400(res, raw, errorBody) {
  try {
    return JSON.parse(raw);
  } catch {
    sendJson(res, 400, errorBody('invalid json'));
    return undefined;
  }
}

const openaiError = (message) => `{"error":{"message":"${message}","type":"invalid_request_error"}}`;

function answerOpenai(_req, res, raw) {
  const parsed = parseOr400(res, raw, openaiError);
  if (parsed === undefined) return;
  const id = `req_bench_${++seq}`;
  if (parsed.stream !== true) {
    sendJson(res, 200, completionJson(seq), { 'x-request-id': id });
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': id,
  });
  sendStream(res, parsed.stream_options?.include_usage === true ? OPENAI_WITH_USAGE : OPENAI_PLAIN);
}

const anthropicError = (type) => (message) => `{"type":"error","error":{"type":"${type}","message":"${message}"}}`;

function answerAnthropic(req, res, raw) {
  if (!req.headers['x-api-key']) {
    sendJson(res, 401, anthropicError('authentication_error')('x-api-key header is required'));
    return;
  }
  if (!req.headers['anthropic-version']) {
    sendJson(res, 400, anthropicError('invalid_request_error')('anthropic-version: header is required'));
    return;
  }
  const parsed = parseOr400(res, raw, anthropicError('invalid_request_error'));
  if (parsed === undefined) return;
  if (typeof parsed.model !== 'string' || !Array.isArray(parsed.messages) || typeof parsed.max_tokens !== 'number') {
    sendJson(res, 400, anthropicError('invalid_request_error')('model, messages and max_tokens are required'));
    return;
  }
  const id = `req_bench_${++seq}`;
  if (parsed.stream !== true) {
    sendJson(res, 200, messageJson(seq), { 'request-id': id });
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': id,
  });
  sendStream(res, ANTHROPIC_STREAM);
}

globalThis.benchRequestCount = 0;
const server = createServer({ keepAlive: true, noDelay: true, keepAliveTimeout: 65_000 }, (req, res) => {
  globalThis.benchRequestCount++;
  const path = (req.url ?? '').split('?', 1)[0];
  const handler =
    req.method !== 'POST'
      ? undefined
      : path.endsWith('/chat/completions')
        ? answerOpenai
        : path.endsWith('/v1/messages')
          ? answerAnthropic
          : undefined;
  if (!handler) {
    req.resume();
    notFound(res);
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
});

serveIpc(
  () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
);
server.listen(0, '127.0.0.1', () => ready(`http://127.0.0.1:${server.address().port}`));
