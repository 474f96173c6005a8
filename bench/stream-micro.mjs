/**
 * In-process cost of one translated stream, without sockets: an upstream's 100-delta SSE body (in
 * 11 reads, as bench/upstream.mjs paces it) through the build's translator for the pair of
 * formats, and the caller's encoder driven as the render stage drives it. Prints the CPU per
 * stream (median and min of rounds) and a digest of one stream's output, so two builds can be
 * compared for speed and for identical bytes. Far steadier on a noisy machine than the stream
 * phase of run.mjs, and it says nothing about syscalls or the event loop under load.
 *
 *   node bench/stream-micro.mjs [--dist dir] [--caller openai-chat|anthropic-messages|openai-responses]
 *                               [--upstream anthropic-messages|openai-chat|openai-responses] [--streams 3000]
 *                               [--rounds 10]
 */

import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { args } from './child-common.mjs';

const opts = args();
const dist = resolve(opts.dist ?? fileURLToPath(new URL('../dist', import.meta.url)));
const callerId = opts.caller ?? 'openai-chat';
const upstreamId = opts.upstream ?? 'anthropic-messages';
const streams = Number(opts.streams ?? 3000);
const rounds = Number(opts.rounds ?? 10);
const load = (file) => import(pathToFileURL(resolve(dist, file)).href);
const { WIRE_FORMATS, UPSTREAM_FORMATS } = await load('formats/registry.js');
const { translatorFor } = await load('formats/translator.js');

const DELTAS = 100;
const GROUP = 10;

/** The upstream body as its reads: the opening events alone, then groups of GROUP deltas, the end with the last. */
function upstreamReads(format) {
  const reads = [];
  if (format === 'anthropic-messages') {
    const ev = (type, json) => `event: ${type}\ndata: ${json}\n\n`;
    const usage = '"usage":{"input_tokens":24,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,';
    reads.push(
      ev(
        'message_start',
        '{"type":"message_start","message":{"id":"msg_bench_stream","type":"message","role":"assistant",' +
          `"model":"claude-bench","content":[],"stop_reason":null,"stop_sequence":null,${usage}"output_tokens":1}}}`,
      ) +
        ev('ping', '{"type": "ping"}') +
        ev('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'),
    );
    const delta = (i) =>
      ev(
        'content_block_delta',
        `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" tok${i}"}}`,
      );
    const end =
      ev('content_block_stop', '{"type":"content_block_stop","index":0}') +
      ev(
        'message_delta',
        '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},' +
          `"usage":{"output_tokens":${DELTAS}}}`,
      ) +
      ev('message_stop', '{"type":"message_stop"}');
    return [...reads, ...groups(delta, end)];
  }
  if (format === 'openai-chat') {
    const head =
      '{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"gpt-bench",' +
      '"system_fingerprint":null,"choices":[{"index":0,';
    const chunk = (rest) => `data: ${head}${rest}}]}\n\n`;
    reads.push(chunk('"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null'));
    const delta = (i) => chunk(`"delta":{"content":" tok${i}"},"logprobs":null,"finish_reason":null`);
    const end = `${chunk('"delta":{},"logprobs":null,"finish_reason":"stop"')}data: [DONE]\n\n`;
    return [...reads, ...groups(delta, end)];
  }
  if (format === 'openai-responses') {
    let seq = 0;
    const ev = (type, fields) => `event: ${type}\ndata: {"type":"${type}","sequence_number":${seq++},${fields}}\n\n`;
    const at = '"item_id":"msg_bench","output_index":0,"content_index":0';
    const part = (text) => `{"type":"output_text","annotations":[],"logprobs":[],"text":"${text}"}`;
    const item = (status, content) =>
      `{"id":"msg_bench","type":"message","status":"${status}","content":[${content}],"role":"assistant"}`;
    const response = (status, output, usage) =>
      `{"id":"resp_bench","object":"response","created_at":1700000000,"status":"${status}","model":"gpt-bench",` +
      `"output":[${output}],"usage":${usage}}`;
    const text = Array.from({ length: DELTAS }, (_, i) => ` tok${i + 1}`).join('');
    reads.push(
      ev('response.created', `"response":${response('in_progress', '', 'null')}`) +
        ev('response.in_progress', `"response":${response('in_progress', '', 'null')}`) +
        ev('response.output_item.added', `"output_index":0,"item":${item('in_progress', '')}`) +
        ev('response.content_part.added', `${at},"part":${part('')}`),
    );
    // Built in order, so the sequence numbers run on.
    const deltas = Array.from({ length: DELTAS }, (_, i) =>
      ev('response.output_text.delta', `${at},"delta":" tok${i + 1}","logprobs":[]`),
    );
    const usage = `{"input_tokens":24,"output_tokens":${DELTAS},"total_tokens":${24 + DELTAS}}`;
    const end =
      ev('response.output_text.done', `${at},"text":"${text}","logprobs":[]`) +
      ev('response.content_part.done', `${at},"part":${part(text)}`) +
      ev('response.output_item.done', `"output_index":0,"item":${item('completed', part(text))}`) +
      ev('response.completed', `"response":${response('completed', item('completed', part(text)), usage)}`);
    return [...reads, ...groups((i) => deltas[i - 1], end)];
  }
  throw new Error(`--upstream ${format}: anthropic-messages, openai-chat or openai-responses`);
}

function groups(delta, end) {
  const out = [];
  for (let g = 0; g < DELTAS / GROUP; g++) {
    let s = '';
    for (let i = 1; i <= GROUP; i++) s += delta(g * GROUP + i);
    out.push(g === DELTAS / GROUP - 1 ? s + end : s);
  }
  return out;
}

const reads = upstreamReads(upstreamId).map((s) => Buffer.from(s));
const caller = WIRE_FORMATS[callerId];
if (!caller) throw new Error(`--caller ${callerId}: not a caller format`);
const chat = caller.decodeRequest(
  callerId === 'openai-responses'
    ? { model: 'm', input: 'hi', stream: true, max_output_tokens: 64, store: false }
    : { model: 'm', stream: true, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
);
const translator = translatorFor(caller, UPSTREAM_FORMATS[upstreamId], false);

async function* body() {
  yield* reads;
}

/** One stream's output text, the caller's encoder driven as render drives it (builds before it: encodeStream). */
async function oneStream() {
  const o = {
    modelName: 'alias/m',
    redact: (e) => e,
    sink: {},
    chat,
    providerId: 'bench',
    transportError: (e) => e,
  };
  const reply = await translator.stream(body(), o);
  let out = '';
  if (!caller.streamEncoder) {
    for await (const s of caller.encodeStream(reply.events, chat)) out += s;
    return out;
  }
  const enc = caller.streamEncoder(chat);
  const it = reply.events[Symbol.asyncIterator]();
  for (;;) {
    const r = await it.next();
    if (r.done) return out + enc.endedEarly();
    out += enc.push(r.value);
    if (enc.done) {
      await it.return?.();
      return out;
    }
  }
}

const sample = await oneStream();
const perStream = [];
for (let r = 0; r < rounds; r++) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < streams; i++) await oneStream();
  const c = process.cpuUsage(c0);
  if (r >= 2) perStream.push((c.user + c.system) / streams); // the first rounds warm the JIT up
}
perStream.sort((a, b) => a - b);
// The translated answer's creation time is the clock's: left out of the digest.
const digest = createHash('sha256')
  .update(sample.replace(/"created(_at)?":\d+/g, '"created$1":0'))
  .digest('hex')
  .slice(0, 16);
console.log(
  `${upstreamId} → ${callerId}: CPU per stream median ${perStream[perStream.length >> 1].toFixed(1)} µs, ` +
    `min ${perStream[0].toFixed(1)} µs (${perStream.length} rounds of ${streams}); ` +
    `output ${sample.length} chars, sha256 ${digest}`,
);
