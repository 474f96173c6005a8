/**
 * The benchmark's stand-in for the three provider formats, in its own process so its CPU does not
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
 * POST …/responses (OpenAI Responses API) answers as OpenAI does:
 *   - non-stream: one `response` object (status completed, one message item with one output_text
 *     part, usage; `x-request-id` header);
 *   - stream: `event:` + `data:` lines, each data with its `type` and `sequence_number` (0, 1, …):
 *     response.created, response.in_progress, response.output_item.added (the message),
 *     response.content_part.added, `--chunks` response.output_text.delta events,
 *     response.output_text.done, response.content_part.done, response.output_item.done,
 *     response.completed (the whole output and usage); no `[DONE]`, as OpenAI.
 *   The response object's settings are fixed defaults, not echoed from the request (precomputed).
 *   It refuses what OpenAI would: no Bearer key → 401, no model, or no input (nor
 *   previous_response_id, conversation or prompt to stand for it) → 400.
 * Pacing of the events (every format alike: 11 writes, 10 intervals for 100 chunks):
 *   interval (default)  the opening event(s) with the headers (OpenAI: the role chunk; Anthropic:
 *                       message_start, ping, content_block_start; Responses: up to
 *                       content_part.added), then `--group` (10) content
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
// OpenAI Responses

const responsesUsage = (output) =>
  '{"input_tokens":24,"input_tokens_details":{"cached_tokens":0},' +
  `"output_tokens":${output},"output_tokens_details":{"reasoning_tokens":0},"total_tokens":${24 + output}}`;
const outputText = (text) => `{"type":"output_text","annotations":[],"logprobs":[],"text":"${text}"}`;
const messageItem = (id, status, content) =>
  `{"id":"${id}","type":"message","status":"${status}","content":[${content}],"role":"assistant"}`;
/** A `response` object: `output` and `usage` are JSON texts; the settings are fixed defaults. */
const responseObject = (id, status, output, usage) =>
  `{"id":"${id}","object":"response","created_at":${CREATED},"status":"${status}","background":false,` +
  `"error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"${MODEL}",` +
  `"output":[${output}],"parallel_tool_calls":true,"previous_response_id":null,` +
  '"reasoning":{"effort":null,"summary":null},"service_tier":"default","store":true,"temperature":1.0,' +
  '"text":{"format":{"type":"text"},"verbosity":"medium"},"tool_choice":"auto","tools":[],"top_p":1.0,' +
  `"truncation":"disabled","usage":${usage},"user":null,"metadata":{}}`;
const responseJson = (n) =>
  responseObject(
    `resp_bench_${n}`,
    'completed',
    messageItem(`msg_bench_${n}`, 'completed', outputText(REPLY)),
    responsesUsage(9),
  );

/** The stream's events in order, numbered as OpenAI numbers them (sequence_number from 0). */
function responsesStreamEvents() {
  const events = [];
  const send = (type, fields) =>
    events.push(
      Buffer.from(`event: ${type}\ndata: {"type":"${type}","sequence_number":${events.length},${fields}}\n\n`),
    );
  const respId = 'resp_bench_stream';
  const itemId = 'msg_bench_stream';
  const at = `"item_id":"${itemId}","output_index":0,"content_index":0`;
  const text = Array.from({ length: CHUNKS }, (_, i) => ` tok${i + 1}`).join('');
  const started = responseObject(respId, 'in_progress', '', 'null');
  send('response.created', `"response":${started}`);
  send('response.in_progress', `"response":${started}`);
  send('response.output_item.added', `"output_index":0,"item":${messageItem(itemId, 'in_progress', '')}`);
  send('response.content_part.added', `${at},"part":${outputText('')}`);
  const head = events.length;
  for (let i = 1; i <= CHUNKS; i++) send('response.output_text.delta', `${at},"delta":" tok${i}","logprobs":[]`);
  const tail = events.length;
  send('response.output_text.done', `${at},"text":"${text}","logprobs":[]`);
  send('response.content_part.done', `${at},"part":${outputText(text)}`);
  const item = messageItem(itemId, 'completed', outputText(text));
  send('response.output_item.done', `"output_index":0,"item":${item}`);
  send('response.completed', `"response":${responseObject(respId, 'completed', item, responsesUsage(CHUNKS))}`);
  return { head: events.slice(0, head), body: events.slice(head, tail), tail: events.slice(tail) };
}

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
const R = responsesStreamEvents();
const RESPONSES_STREAM = plan(R.head, R.body, R.tail);

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

/** OpenAI's error body, with its `param` and `code`. */
const openaiRefusal = (message, param, code) =>
  `{"error":{"message":"${message}","type":"invalid_request_error","param":${param},"code":${code}}}`;

function answerResponses(req, res, raw) {
  if (!/^Bearer \S/.test(req.headers.authorization ?? '')) {
    sendJson(res, 401, openaiRefusal("You didn't provide an API key.", 'null', 'null'));
    return;
  }
  const parsed = parseOr400(res, raw, (message) => openaiRefusal(message, 'null', 'null'));
  if (parsed === undefined) return;
  if (typeof parsed.model !== 'string' || parsed.model === '') {
    sendJson(
      res,
      400,
      openaiRefusal("Missing required parameter: 'model'.", '"model"', '"missing_required_parameter"'),
    );
    return;
  }
  const context = parsed.input ?? parsed.previous_response_id ?? parsed.conversation ?? parsed.prompt;
  if (context === undefined || context === null) {
    sendJson(
      res,
      400,
      openaiRefusal("Missing required parameter: 'input'.", '"input"', '"missing_required_parameter"'),
    );
    return;
  }
  const id = `req_bench_${++seq}`;
  if (parsed.stream !== true) {
    sendJson(res, 200, responseJson(seq), { 'x-request-id': id });
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': id,
  });
  sendStream(res, RESPONSES_STREAM);
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
          : path.endsWith('/responses')
            ? answerResponses
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
