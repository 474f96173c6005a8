/**
 * What is measured: the processes to start, the lanes (a way of sending the same logical request
 * to an upstream) and the targets. To add a lane (e.g. a gateway with budgets/guardrails
 * configured), add a process if it needs its own (gateway-child.mjs takes `--extra <base64 YAML>`),
 * then a lane with its request shapes and validators; the runner and the report pick it up.
 *
 * Lanes come in three families, by the format of the upstream leg (the one upstream process serves
 * all three): OpenAI chat upstream (`direct`, `bare`, `floor`, `gateway*`, `tr-a2o`, `limits*`,
 * `guardrails`, `prod`), Anthropic-format upstream (`direct-anth`, `anth-pass`, `tr-o2a`,
 * `tr-r2a`) and OpenAI Responses upstream (`direct-resp`, `resp-pass`). A lane's added latency is
 * measured against the direct lane of its family (`direct:`), so it is what the proxy adds to
 * that upstream's own time.
 *
 * Issue 13's targets (FLOOR_TARGET_GROUPS, at the end) divide every lane by the `floor` lane of
 * the same run: pass-through (`gateway`), translation (`tr-a2o`, `tr-o2a`), production (`prod`),
 * the Responses callers (`resp-pass`, `tr-r2a`: the translation targets, their own verdict),
 * every lane (peak RSS, no errors, every request forwarded once), and `anth-pass` as information
 * (its upstream leg is Anthropic-format, the floor's is not). The lanes in the wrk phase are
 * marked `wrk:`. The older targets (TARGETS) are kept; those against `bare` are information.
 */

import {
  GATEWAY_ANTHROPIC_MODEL,
  GATEWAY_KEY,
  GATEWAY_MODEL,
  GATEWAY_RESPONSES_MODEL,
  guardrailsYaml,
  LIMITS,
  limitsYaml,
  MEMORY_STATE,
  METRICS_ADMIN_KEY,
  productionYaml,
  redisState,
} from './gateway-config.mjs';

const b64 = (text) => Buffer.from(text, 'utf8').toString('base64');

/** Tests a lane can take part in. */
export const TESTS = ['latency', 'stream', 'throughput', 'memory'];

/**
 * Child processes. `args` gets { upstreamUrl, opts }. The upstream is always started first.
 * `needs: 'redis'`: the runner starts a redis-server first (opts.redisUrl), or skips the lanes of
 * this process when `redis-server` is not on PATH.
 */
export const PROCS = {
  upstream: { file: './upstream.mjs', args: ({ opts }) => ['--chunks', String(opts.chunks), '--pacing', opts.pacing] },
  bare: { file: './bare-proxy.mjs', args: ({ upstreamUrl }) => ['--upstream', upstreamUrl] },
  floor: { file: './floor-proxy.mjs', args: ({ upstreamUrl }) => ['--upstream', upstreamUrl] },
  'floor-json': { file: './floor-json-proxy.mjs', args: ({ upstreamUrl }) => ['--upstream', upstreamUrl] },
  gateway: {
    file: './gateway-child.mjs',
    args: ({ upstreamUrl, opts }) => ['--upstream', upstreamUrl, '--log', 'error', '--dist', opts.dist],
  },
  'gateway-info': {
    file: './gateway-child.mjs',
    args: ({ upstreamUrl, opts }) => ['--upstream', upstreamUrl, '--log', 'info', '--dist', opts.dist],
  },
  // Info logging to a file: the build's own file writer, and pino with an async destination.
  'gateway-logfile': {
    file: './gateway-child.mjs',
    args: ({ upstreamUrl, opts }) => ['--upstream', upstreamUrl, '--log', 'info', '--log-file', '--dist', opts.dist],
  },
  'gateway-logfile-pino': {
    file: './gateway-child.mjs',
    args: ({ upstreamUrl, opts }) => [
      '--upstream',
      upstreamUrl,
      '--log',
      'info',
      '--log-file',
      '--logger',
      'pino',
      '--dist',
      opts.dist,
    ],
  },
  // The gateway with a budget and a rate limit (gateway-config.mjs limitsYaml), embedded store.
  'gateway-limits': {
    file: './gateway-child.mjs',
    args: ({ upstreamUrl, opts }) => [
      '--upstream',
      upstreamUrl,
      '--log',
      'error',
      '--dist',
      opts.dist,
      '--extra',
      b64(limitsYaml(MEMORY_STATE, opts.budgetPeriod)),
    ],
  },
  // The same limits kept in the benchmark's redis-server on loopback.
  'gateway-redis': {
    file: './gateway-child.mjs',
    needs: 'redis',
    args: ({ upstreamUrl, opts }) => [
      '--upstream',
      upstreamUrl,
      '--log',
      'error',
      '--dist',
      opts.dist,
      '--extra',
      b64(limitsYaml(redisState(opts.redisUrl), opts.budgetPeriod)),
    ],
  },
  // The gateway with the 7 built-in detectors (redact, input and output; gateway-config.mjs
  // guardrailsYaml) and info-level request logging (each line formatted, then discarded).
  'gateway-guardrails': {
    file: './gateway-child.mjs',
    args: ({ upstreamUrl, opts }) => [
      '--upstream',
      upstreamUrl,
      '--log',
      'info',
      '--dist',
      opts.dist,
      '--extra',
      b64(guardrailsYaml()),
    ],
  },
  // The production config (gateway-config.mjs productionYaml): the config's own JSON request log
  // to a file at info, metrics, a budget + a rate limit (embedded store), credential block both
  // ways + PII redaction on output. No --log: the config's observability.log decides.
  prod: {
    file: './gateway-child.mjs',
    args: ({ upstreamUrl, opts }) => [
      '--upstream',
      upstreamUrl,
      '--dist',
      opts.dist,
      '--extra',
      b64(productionYaml(MEMORY_STATE, opts.budgetPeriod)),
    ],
  },
};

const SYSTEM = 'You are a concise assistant used for load testing.';
const USER =
  'Say hello in one short sentence, then stop. This prompt is padded a little so that the body is realistic.';
const PROMPT = [
  { role: 'system', content: SYSTEM },
  { role: 'user', content: USER },
];

/** What the upstream answers (upstream.mjs), in either format. */
const REPLY = 'Hello! This is a canned benchmark reply.';
/** The text of a stream of `n` content deltas: " tok1 tok2 … tokn". */
const streamText = (n) => Array.from({ length: n }, (_, i) => ` tok${i + 1}`).join('');
/**
 * Content deltas per upstream stream of --chunks events. The OpenAI upstream's first chunk is the
 * role (content "") and its last the finish_reason, so it carries chunks-2 text deltas; the
 * Anthropic upstream sends --chunks content_block_delta events.
 */
const OPENAI_UPSTREAM_DELTAS = (chunks) => chunks - 2;
const ANTHROPIC_UPSTREAM_DELTAS = (chunks) => chunks;
/** The Responses upstream sends --chunks response.output_text.delta events. */
const RESPONSES_UPSTREAM_DELTAS = (chunks) => chunks;

/** An OpenAI chat-completions caller. */
function openaiRequest({ model, key, streamOptions }) {
  const base = { model, messages: PROMPT, max_tokens: 64, temperature: 0.2 };
  return {
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    json: Buffer.from(JSON.stringify(base)),
    stream: Buffer.from(
      JSON.stringify({ ...base, stream: true, ...(streamOptions ? { stream_options: streamOptions } : {}) }),
    ),
  };
}

/** An Anthropic messages caller (`x-api-key` and `anthropic-version`, as the SDK sends them). */
function anthropicRequest({ model, key }) {
  const base = { model, max_tokens: 64, temperature: 0.2, system: SYSTEM, messages: [{ role: 'user', content: USER }] };
  return {
    path: '/v1/messages',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': key },
    json: Buffer.from(JSON.stringify(base)),
    stream: Buffer.from(JSON.stringify({ ...base, stream: true })),
    streamEnd: 'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  };
}

/**
 * An OpenAI Responses caller (Bearer key), as Codex sends it: instructions, one user message item,
 * `store: false` (nothing kept for a next turn, so the lanes measure relaying or translating, not
 * the conversation store). A stream has no `[DONE]`: it ends with the response.completed event.
 */
function responsesRequest({ model, key }) {
  const base = {
    model,
    instructions: SYSTEM,
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: USER }] }],
    max_output_tokens: 64,
    temperature: 0.2,
    store: false,
  };
  return {
    path: '/v1/responses',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    json: Buffer.from(JSON.stringify(base)),
    stream: Buffer.from(JSON.stringify({ ...base, stream: true })),
    streamEnd: /event: response\.completed\ndata: [^\n]*\n\n$/,
  };
}

/**
 * Validators return an error message, or undefined when the response is what the caller expects.
 * `choiceChunks(chunks)`: how many chunks with choices the stream must have (default: --chunks,
 * what the OpenAI upstream sends). With `strict`, also the role on the first chunk, the content
 * text (`deltas(chunks)` deltas of " tokN"), finish_reason "stop" on the last, and the JSON reply's
 * text, finish_reason and usage: for translated lanes, where the gateway writes every byte.
 */
function openaiValidators({ expectUsageChunk, choiceChunks = (c) => c, strict = false, deltas }) {
  return {
    json(text) {
      const body = JSON.parse(text);
      if (body.object !== 'chat.completion' || typeof body.choices?.[0]?.message?.content !== 'string')
        return `unexpected body: ${text.slice(0, 200)}`;
      if (strict) {
        const c = body.choices[0];
        if (
          body.choices.length !== 1 ||
          c.message.role !== 'assistant' ||
          c.message.content !== REPLY ||
          c.finish_reason !== 'stop'
        )
          return `unexpected choice: ${JSON.stringify(c).slice(0, 200)}`;
        if (
          !(
            body.usage?.prompt_tokens > 0 &&
            body.usage?.completion_tokens > 0 &&
            body.usage?.total_tokens === body.usage.prompt_tokens + body.usage.completion_tokens
          )
        )
          return `bad usage: ${JSON.stringify(body.usage)}`;
        if (typeof body.id !== 'string' || typeof body.created !== 'number' || typeof body.model !== 'string')
          return `missing id/created/model: ${text.slice(0, 200)}`;
      }
      return undefined;
    },
    stream(text, { chunks }) {
      const events = text.split('\n\n').filter((e) => e.length > 0);
      if (events.at(-1) !== 'data: [DONE]') return `stream does not end with [DONE]: …${text.slice(-80)}`;
      const parsed = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')));
      const withChoices = parsed.filter((c) => c.choices?.length > 0);
      const content = withChoices.length;
      const usage = parsed.filter((c) => c.choices?.length === 0 && c.usage).length;
      if (content !== choiceChunks(chunks)) return `expected ${choiceChunks(chunks)} content chunks, got ${content}`;
      if (usage !== (expectUsageChunk ? 1 : 0))
        return `expected ${expectUsageChunk ? 1 : 0} usage chunk(s), got ${usage}`;
      if (strict) {
        if (
          parsed.some(
            (c) => c.object !== 'chat.completion.chunk' || c.id !== parsed[0].id || c.created !== parsed[0].created,
          )
        )
          return 'chunks differ in object/id/created';
        if (withChoices[0].choices[0].delta?.role !== 'assistant')
          return `first chunk has no role: ${JSON.stringify(withChoices[0])}`;
        if (withChoices.at(-1).choices[0].finish_reason !== 'stop')
          return `last chunk has no finish_reason "stop": ${JSON.stringify(withChoices.at(-1))}`;
        const got = withChoices.map((c) => c.choices[0].delta?.content ?? '').join('');
        if (got !== streamText(deltas(chunks))) return `streamed text differs: ${got.slice(0, 60)}…${got.slice(-40)}`;
      }
      return undefined;
    },
  };
}

/**
 * What an Anthropic SDK needs (it accumulates by position): JSON — a `message` with one text block,
 * stop_reason and usage; stream — every event as `event: X` + `data: {"type":"X",…}`, in the
 * documented order: message_start, content_block_start (index 0, text), `deltas(chunks)`
 * text_delta events for index 0 whose text is " tok1 … tokN", content_block_stop, message_delta
 * (stop_reason end_turn, output usage), message_stop, nothing after it. `ping` may appear anywhere.
 */
function anthropicValidators({ deltas }) {
  return {
    json(text) {
      const b = JSON.parse(text);
      if (
        b.type !== 'message' ||
        b.role !== 'assistant' ||
        typeof b.id !== 'string' ||
        !b.id.startsWith('msg_') ||
        typeof b.model !== 'string'
      )
        return `not an Anthropic message: ${text.slice(0, 200)}`;
      if (
        !Array.isArray(b.content) ||
        b.content.length !== 1 ||
        b.content[0].type !== 'text' ||
        b.content[0].text !== REPLY
      )
        return `unexpected content: ${JSON.stringify(b.content).slice(0, 200)}`;
      if (b.stop_reason !== 'end_turn' || b.stop_sequence !== null)
        return `unexpected stop_reason/stop_sequence: ${b.stop_reason}/${b.stop_sequence}`;
      if (!(b.usage?.input_tokens > 0 && b.usage?.output_tokens > 0)) return `bad usage: ${JSON.stringify(b.usage)}`;
      return undefined;
    },
    stream(text, { chunks }) {
      if (!text.endsWith('\n\n')) return `stream does not end with a blank line: …${JSON.stringify(text.slice(-60))}`;
      const events = [];
      for (const block of text.slice(0, -2).split('\n\n')) {
        const m = /^event: ([a-z_]+)\ndata: (.*)$/.exec(block);
        if (!m) return `malformed event: ${JSON.stringify(block.slice(0, 120))}`;
        const data = JSON.parse(m[2]);
        if (data.type !== m[1]) return `event ${m[1]} carries type ${data.type}`;
        if (m[1] !== 'ping') events.push(data);
      }
      const want = deltas(chunks);
      let i = 0;
      const next = () => events[i++] ?? { type: '(end of stream)' };
      let e = next();
      if (
        e.type !== 'message_start' ||
        e.message?.type !== 'message' ||
        e.message.role !== 'assistant' ||
        !String(e.message.id).startsWith('msg_') ||
        !Array.isArray(e.message.content) ||
        e.message.content.length !== 0 ||
        !(e.message.usage?.input_tokens >= 0)
      )
        return `bad message_start: ${JSON.stringify(e).slice(0, 200)}`;
      e = next();
      if (
        e.type !== 'content_block_start' ||
        e.index !== 0 ||
        e.content_block?.type !== 'text' ||
        e.content_block.text !== ''
      )
        return `bad content_block_start: ${JSON.stringify(e).slice(0, 200)}`;
      let got = '';
      let n = 0;
      for (e = next(); e.type === 'content_block_delta'; e = next()) {
        if (e.index !== 0 || e.delta?.type !== 'text_delta' || typeof e.delta.text !== 'string')
          return `bad content_block_delta: ${JSON.stringify(e).slice(0, 200)}`;
        got += e.delta.text;
        n++;
      }
      if (n !== want) return `expected ${want} text deltas, got ${n}`;
      if (got !== streamText(want)) return `streamed text differs: ${got.slice(0, 60)}…${got.slice(-40)}`;
      if (e.type !== 'content_block_stop' || e.index !== 0)
        return `expected content_block_stop, got ${JSON.stringify(e).slice(0, 200)}`;
      e = next();
      if (e.type !== 'message_delta' || e.delta?.stop_reason !== 'end_turn' || !(e.usage?.output_tokens > 0))
        return `bad message_delta: ${JSON.stringify(e).slice(0, 200)}`;
      e = next();
      if (e.type !== 'message_stop') return `expected message_stop, got ${JSON.stringify(e).slice(0, 200)}`;
      if (i !== events.length) return `${events.length - i} event(s) after message_stop`;
      return undefined;
    },
  };
}

/**
 * What an OpenAI SDK's Responses client needs. JSON: a `response` (id resp_…, status completed)
 * whose output is one assistant message with one output_text part holding the reply, and usage
 * with total = input + output. Stream: every event as `event: X` + `data: {"type":"X",…}` with
 * sequence_number 0, 1, 2… in order, in the documented order: response.created and
 * response.in_progress (one response id, status in_progress, no output yet), output_item.added
 * (an in-progress assistant message, index 0), content_part.added (empty output_text of that item),
 * `deltas(chunks)` output_text.delta events of that part whose text is " tok1 … tokN",
 * output_text.done, content_part.done and output_item.done carrying that text, then
 * response.completed (the same id, status completed, that message as its whole output, usage);
 * nothing after it.
 */
function responsesValidators({ deltas }) {
  const badUsage = (u) =>
    !(u?.input_tokens > 0 && u?.output_tokens > 0 && u?.total_tokens === u.input_tokens + u.output_tokens);
  /** Why `item` is not a completed assistant message holding exactly `text`, or undefined. */
  const badMessage = (item, text) => {
    const c = item?.content;
    if (item?.type !== 'message' || item.role !== 'assistant' || item.status !== 'completed')
      return `not a completed assistant message: ${JSON.stringify(item).slice(0, 200)}`;
    if (!Array.isArray(c) || c.length !== 1 || c[0].type !== 'output_text' || c[0].text !== text)
      return `unexpected content: ${JSON.stringify(c).slice(0, 120)}…`;
    return undefined;
  };
  return {
    json(text) {
      const b = JSON.parse(text);
      if (b.object !== 'response' || !String(b.id).startsWith('resp_') || typeof b.model !== 'string')
        return `not a Responses response: ${text.slice(0, 200)}`;
      if (b.status !== 'completed' || b.error !== null) return `status ${b.status}, error ${JSON.stringify(b.error)}`;
      if (!Array.isArray(b.output) || b.output.length !== 1)
        return `expected one output item: ${JSON.stringify(b.output).slice(0, 200)}`;
      const bad = badMessage(b.output[0], REPLY);
      if (bad) return bad;
      if (badUsage(b.usage)) return `bad usage: ${JSON.stringify(b.usage)}`;
      return undefined;
    },
    stream(text, { chunks }) {
      if (!text.endsWith('\n\n')) return `stream does not end with a blank line: …${JSON.stringify(text.slice(-60))}`;
      const events = [];
      for (const block of text.slice(0, -2).split('\n\n')) {
        const m = /^event: ([a-z_.]+)\ndata: (.*)$/.exec(block);
        if (!m) return `malformed event: ${JSON.stringify(block.slice(0, 120))}`;
        const data = JSON.parse(m[2]);
        if (data.type !== m[1]) return `event ${m[1]} carries type ${data.type}`;
        if (data.sequence_number !== events.length)
          return `event ${events.length} (${m[1]}) has sequence_number ${data.sequence_number}`;
        events.push(data);
      }
      const want = streamText(deltas(chunks));
      let i = 0;
      const next = (type) => {
        const e = events[i++] ?? { type: '(end of stream)' };
        return e.type === type ? e : undefined;
      };
      const show = () => JSON.stringify(events[i - 1] ?? '(end of stream)').slice(0, 200);
      const created = next('response.created');
      const r = created?.response;
      if (r?.object !== 'response' || !String(r.id).startsWith('resp_') || r.status !== 'in_progress')
        return `bad response.created: ${show()}`;
      if (r.output?.length !== 0) return `response.created with output: ${show()}`;
      const progress = next('response.in_progress');
      if (progress?.response?.id !== r.id || progress.response.status !== 'in_progress')
        return `bad response.in_progress: ${show()}`;
      const added = next('response.output_item.added');
      const item = added?.item;
      if (added?.output_index !== 0 || item?.type !== 'message' || item.role !== 'assistant' || !item.id)
        return `bad output_item.added: ${show()}`;
      const at = (e) => e.item_id === item.id && e.output_index === 0 && e.content_index === 0;
      const part = next('response.content_part.added');
      if (!part || !at(part) || part.part?.type !== 'output_text' || part.part.text !== '')
        return `bad content_part.added: ${show()}`;
      let got = '';
      let n = 0;
      while (events[i]?.type === 'response.output_text.delta') {
        const e = events[i++];
        if (!at(e) || typeof e.delta !== 'string') return `bad output_text.delta: ${show()}`;
        got += e.delta;
        n++;
      }
      if (n !== deltas(chunks)) return `expected ${deltas(chunks)} text deltas, got ${n}`;
      if (got !== want) return `streamed text differs: ${got.slice(0, 60)}…${got.slice(-40)}`;
      const textDone = next('response.output_text.done');
      if (!textDone || !at(textDone) || textDone.text !== want) return `bad output_text.done: ${show()}`;
      const partDone = next('response.content_part.done');
      if (!partDone || !at(partDone) || partDone.part?.type !== 'output_text' || partDone.part.text !== want)
        return `bad content_part.done: ${show()}`;
      const itemDone = next('response.output_item.done');
      if (itemDone?.output_index !== 0 || itemDone.item?.id !== item.id) return `bad output_item.done: ${show()}`;
      const badItem = badMessage(itemDone.item, want);
      if (badItem) return `output_item.done: ${badItem}`;
      const completed = next('response.completed')?.response;
      if (completed?.id !== r.id || completed.status !== 'completed') return `bad response.completed: ${show()}`;
      if (completed.output?.length !== 1 || badMessage(completed.output[0], want))
        return `response.completed output differs from the streamed item: ${show()}`;
      if (badUsage(completed.usage)) return `bad usage in response.completed: ${JSON.stringify(completed.usage)}`;
      if (i !== events.length) return `${events.length - i} event(s) after response.completed`;
      return undefined;
    },
  };
}

/**
 * The limits lanes: the reply must show that the rate limit was checked (x-ratelimit-* headers
 * from the reservation) and carry the request's cost, or the lane would measure nothing.
 */
function limitsValidators() {
  return {
    ...openaiValidators({ expectUsageChunk: false }),
    headers(h) {
      if (h['x-ratelimit-limit-requests'] !== String(LIMITS.requestsPerMinute))
        return (
          `no x-ratelimit-limit-requests: ${LIMITS.requestsPerMinute} header (limits not applied?): ` +
          `${JSON.stringify(h).slice(0, 300)}`
        );
      if (!(Number(h['x-gateway-cost-usd']) > 0))
        return `no x-gateway-cost-usd header with a cost: ${h['x-gateway-cost-usd']}`;
      return undefined;
    },
  };
}

/**
 * A guarded OpenAI stream: [DONE] last, role first, finish_reason "stop" last, no usage chunk,
 * the exact text in more than one chunk. `rechunked`:
 * - 'required' (the `guardrails` lane): fewer content chunks than the upstream sent. The output
 *   guard holds back the last (longest detector span − 1) characters of each block and merges the
 *   held-back deltas, so a re-chunked stream shows the guard was on (a pass-through relays every
 *   chunk);
 * - 'either' (the `prod` lane): a relayed stream (every upstream delta, as a guard that scans the
 *   bytes it relays sends them) or a re-chunked one (a guard that re-encodes) are both right.
 * `describe(text)` says which the gateway sent (printed once at validation).
 */
function guardedStreamValidator({ deltas, rechunked }) {
  const contentOf = (text) => {
    const events = text.split('\n\n').filter((e) => e.length > 0);
    const parsed = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')));
    return parsed.filter(
      (c) => typeof c.choices?.[0]?.delta?.content === 'string' && c.choices[0].delta.content !== '',
    );
  };
  return {
    stream(text, { chunks }) {
      const events = text.split('\n\n').filter((e) => e.length > 0);
      if (events.at(-1) !== 'data: [DONE]') return `stream does not end with [DONE]: …${text.slice(-80)}`;
      const parsed = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')));
      if (parsed.some((c) => c.choices?.length === 0)) return 'unexpected usage chunk';
      const withChoices = parsed.filter((c) => c.choices?.length > 0);
      if (withChoices[0]?.choices[0].delta?.role !== 'assistant')
        return `first chunk has no role: ${JSON.stringify(withChoices[0])}`;
      if (withChoices.at(-1).choices[0].finish_reason !== 'stop')
        return `last chunk has no finish_reason "stop": ${JSON.stringify(withChoices.at(-1))}`;
      if (parsed.some((c) => c.object !== 'chat.completion.chunk' || c.id !== parsed[0].id))
        return 'chunks differ in object/id';
      const content = contentOf(text);
      const got = content.map((c) => c.choices[0].delta.content).join('');
      if (got !== streamText(deltas(chunks))) return `streamed text differs: ${got.slice(0, 60)}…${got.slice(-40)}`;
      if (content.length > deltas(chunks))
        return `${content.length} content chunks for ${deltas(chunks)} upstream deltas: split further?`;
      if (rechunked === 'required' && content.length === deltas(chunks))
        return (
          `${content.length} content chunks for ${deltas(chunks)} upstream deltas: ` +
          'not re-chunked, is the output guard on?'
        );
      if (content.length < 2) return 'the text came in one chunk: not streamed';
      return undefined;
    },
    describe(text, { chunks }) {
      const n = contentOf(text).length;
      return n === deltas(chunks)
        ? `relayed (${n} content chunks, one per upstream delta)`
        : `re-chunked (${n} content chunks for ${deltas(chunks)} upstream deltas)`;
    },
  };
}

/** The guardrails lane: the JSON reply as strict as a translated lane's; the stream re-chunked. */
function guardedOpenaiValidators({ deltas }) {
  const stream = guardedStreamValidator({ deltas, rechunked: 'required' });
  return { json: openaiValidators({ expectUsageChunk: false, strict: true }).json, stream: stream.stream };
}

/**
 * The production lane: JSON as strict as a translated lane's (the output guard re-encodes it),
 * the limits headers (budget and rate limit applied), the stream's exact text relayed or
 * re-chunked; `describeStream` logs which.
 */
function productionValidators({ deltas }) {
  const stream = guardedStreamValidator({ deltas, rechunked: 'either' });
  return {
    json: openaiValidators({ expectUsageChunk: false, strict: true }).json,
    headers: limitsValidators().headers,
    stream: stream.stream,
    describeStream: stream.describe,
  };
}

/**
 * After validation, that the production lane really records: GET /metrics (admin key) counts
 * requests with status 200, and the config's log file holds JSON request lines at info.
 * Returns an error message or undefined.
 */
async function productionProbe({ client, proc }) {
  const r = await client.request({
    path: '/metrics',
    method: 'GET',
    headers: { authorization: `Bearer ${METRICS_ADMIN_KEY}` },
  });
  const text = await r.body.text();
  if (r.statusCode !== 200) return `GET /metrics: HTTP ${r.statusCode}: ${text.slice(0, 120)}`;
  const served = [...text.matchAll(/^gateway_requests_total\{[^}]*status="200"[^}]*\} (\S+)$/gm)];
  if (served.reduce((n, m) => n + Number(m[1]), 0) < 1) return 'metrics: no gateway_requests_total{status="200"}';
  // The writer batches per event-loop turn and writes in the background: give it a moment.
  let stats;
  for (let i = 0; i < 20; i++) {
    stats = await proc.stats();
    if (stats.logBytes > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!stats.logFile) return 'no request log file (observability.log.file not applied?)';
  if (!(stats.logBytes > 0)) return `request log ${stats.logFile} is empty`;
  const { readFileSync } = await import('node:fs');
  const lines = readFileSync(stats.logFile, 'utf8').split('\n').filter(Boolean);
  const last = JSON.parse(lines.at(-1));
  if (last.level !== 'info' || last.msg !== 'request' || last.status !== 200 || last.key_id !== 'bench')
    return `unexpected request log line: ${lines.at(-1).slice(0, 200)}`;
  return undefined;
}

const ALL = ['latency', 'stream', 'throughput'];

/** The baseline lanes default to (`direct:`); the runner always includes it. */
export const DEFAULT_BASELINE = 'direct';

/**
 * `baseline: true` marks a direct lane (to the upstream, no proxy): added latency and added stream
 * time are measured against one. `direct: <lane>` names the baseline a lane is measured against
 * (default DEFAULT_BASELINE); selecting a lane with --lanes brings its baseline along.
 * `proxy: true` means the lane's process is a proxy whose CPU per request is reported.
 * `wrk: 'reps'`: the lane is in every repetition of the wrk phase (wrk.mjs); `'once'`: rep 1 only,
 * for reference. Other lanes with a throughput test join the wrk phase when named with --lanes.
 */
export const LANES = [
  {
    id: 'direct',
    label: 'direct to upstream',
    wrk: 'once',
    proc: 'upstream',
    baseline: true,
    request: openaiRequest({ model: 'gpt-bench-upstream' }),
    validate: openaiValidators({ expectUsageChunk: false }),
    tests: ALL,
  },
  {
    id: 'bare',
    label: 'bare node:http + undici proxy',
    proc: 'bare',
    proxy: true,
    request: openaiRequest({ model: 'gpt-bench-upstream' }),
    validate: openaiValidators({ expectUsageChunk: false }),
    tests: [...ALL, 'memory'],
  },
  {
    // The thinnest Node proxy (Pool.stream, body piped both ways): what issue 13's targets divide by.
    id: 'floor',
    label: 'floor: node:http + undici Pool.stream, bodies piped',
    wrk: 'reps',
    proc: 'floor',
    proxy: true,
    request: openaiRequest({ model: 'gpt-bench-upstream' }),
    validate: openaiValidators({ expectUsageChunk: false }),
    tests: [...ALL, 'memory'],
  },
  {
    // For reading the targets, only when named (`--lanes floor,floor-json,gateway --tests throughput,wrk`):
    // the floor plus JSON parsing and serialising of both bodies, nothing else.
    id: 'floor-json',
    label: 'floor + JSON: both bodies parsed and serialised (a reference)',
    optIn: true,
    wrk: 'reps',
    proc: 'floor-json',
    proxy: true,
    request: openaiRequest({ model: 'gpt-bench-upstream' }),
    validate: openaiValidators({ expectUsageChunk: false }),
    tests: ['throughput'],
  },
  {
    id: 'gateway',
    label: 'gateway (log level error)',
    wrk: 'reps',
    proc: 'gateway',
    proxy: true,
    request: openaiRequest({ model: GATEWAY_MODEL, key: GATEWAY_KEY }),
    // The gateway asks the upstream for usage and hides the usage chunk the caller did not ask for.
    validate: openaiValidators({ expectUsageChunk: false }),
    tests: [...ALL, 'memory'],
  },
  {
    id: 'gateway-info',
    label: 'gateway (info log, no-op write)',
    proc: 'gateway-info',
    proxy: true,
    request: openaiRequest({ model: GATEWAY_MODEL, key: GATEWAY_KEY }),
    validate: openaiValidators({ expectUsageChunk: false }),
    tests: ALL,
  },
  // Only when named (--lanes log-file,log-file-pino): the request log written to a file by the
  // gateway's logger and by pino (async destination); compare with `gateway-info` (no-op write).
  {
    id: 'log-file',
    label: 'gateway (info log to a file)',
    proc: 'gateway-logfile',
    optIn: true,
    proxy: true,
    request: openaiRequest({ model: GATEWAY_MODEL, key: GATEWAY_KEY }),
    validate: openaiValidators({ expectUsageChunk: false }),
    tests: ['latency', 'throughput'],
  },
  {
    id: 'log-file-pino',
    label: 'gateway (info log to a file, pino async)',
    proc: 'gateway-logfile-pino',
    optIn: true,
    proxy: true,
    request: openaiRequest({ model: GATEWAY_MODEL, key: GATEWAY_KEY }),
    validate: openaiValidators({ expectUsageChunk: false }),
    tests: ['latency', 'throughput'],
  },
  {
    // Same process as `gateway`; the caller asks for usage, so the relay passes bytes through
    // untouched instead of re-encoding every event.
    id: 'gateway-usage',
    label: 'gateway, stream w/ include_usage',
    proc: 'gateway',
    proxy: true,
    request: openaiRequest({ model: GATEWAY_MODEL, key: GATEWAY_KEY, streamOptions: { include_usage: true } }),
    validate: openaiValidators({ expectUsageChunk: true }),
    tests: ['stream'],
  },
  // Translation, Anthropic caller → OpenAI upstream: same gateway process and provider as
  // `gateway`, but the request is decoded and re-encoded, and the upstream's JSON or chunks are
  // decoded into canonical events and re-encoded as an Anthropic message or Anthropic events.
  // Measured against `direct` (the OpenAI upstream leg), like `gateway`.
  {
    id: 'tr-a2o',
    label: 'translate a→o: Anthropic caller → gateway → OpenAI upstream',
    wrk: 'reps',
    proc: 'gateway',
    proxy: true,
    request: anthropicRequest({ model: GATEWAY_MODEL, key: GATEWAY_KEY }),
    validate: anthropicValidators({ deltas: OPENAI_UPSTREAM_DELTAS }),
    tests: [...ALL, 'memory'],
  },
  // Budgets + rate limits: the `gateway` lane's request through a gateway that reserves and
  // settles a budget and a requests-per-minute limit on every request (limits high enough never
  // to refuse). Measured against `direct` like `gateway`; their +p50 minus `gateway`'s is what
  // the limits (and their store) add per request.
  {
    id: 'limits',
    label: 'gateway + budget + rate limit, embedded store',
    proc: 'gateway-limits',
    proxy: true,
    request: openaiRequest({ model: GATEWAY_MODEL, key: GATEWAY_KEY }),
    validate: limitsValidators(),
    tests: ['latency', 'throughput'],
  },
  {
    id: 'limits-redis',
    label: 'gateway + budget + rate limit, Redis on loopback',
    proc: 'gateway-redis',
    proxy: true,
    // Its CPU is the benchmark's own (not noise), and is reported per request (throughput).
    uses: ['redis'],
    request: openaiRequest({ model: GATEWAY_MODEL, key: GATEWAY_KEY }),
    validate: limitsValidators(),
    tests: ['latency', 'throughput'],
  },
  // Guardrails: the `gateway` lane's request through a gateway with the 7 built-in detectors
  // (redact, applies_to both) and info-level logging. Measured against `direct` like `gateway`;
  // its targets compare it with `gateway` (log level error, no guardrails) of the same run.
  {
    id: 'guardrails',
    label: 'gateway + 7 detectors (redact, both directions) + info log',
    proc: 'gateway-guardrails',
    proxy: true,
    request: openaiRequest({ model: GATEWAY_MODEL, key: GATEWAY_KEY }),
    validate: guardedOpenaiValidators({ deltas: OPENAI_UPSTREAM_DELTAS }),
    // No throughput (its targets do not use it; keeps the full run near 100 s): the stream phase
    // still reports the proxy's CPU per stream.
    tests: ['latency', 'stream'],
  },
  // The Anthropic-format upstream leg on its own: the baseline of the lanes below.
  {
    id: 'direct-anth',
    label: 'direct to upstream, Anthropic format (/v1/messages)',
    proc: 'upstream',
    baseline: true,
    request: anthropicRequest({ model: 'claude-bench-upstream', key: 'sk-ant-bench-upstream-secret-0001' }),
    validate: anthropicValidators({ deltas: ANTHROPIC_UPSTREAM_DELTAS }),
    // No throughput: no target uses the upstream's own req/s in this format.
    tests: ['latency', 'stream'],
  },
  // Pass-through in the messages format: Anthropic caller → gateway → Anthropic upstream (bytes
  // relayed, `model` rewritten, usage tapped). The reference for tr-o2a.
  {
    id: 'anth-pass',
    label: 'gateway pass-through, Anthropic caller → Anthropic upstream',
    wrk: 'reps',
    proc: 'gateway',
    proxy: true,
    direct: 'direct-anth',
    request: anthropicRequest({ model: GATEWAY_ANTHROPIC_MODEL, key: GATEWAY_KEY }),
    validate: anthropicValidators({ deltas: ANTHROPIC_UPSTREAM_DELTAS }),
    tests: [...ALL, 'memory'],
  },
  // Translation, OpenAI caller → Anthropic upstream; measured against `direct-anth`.
  {
    id: 'tr-o2a',
    label: 'translate o→a: OpenAI caller → gateway → Anthropic upstream',
    wrk: 'reps',
    proc: 'gateway',
    proxy: true,
    direct: 'direct-anth',
    request: openaiRequest({ model: GATEWAY_ANTHROPIC_MODEL, key: GATEWAY_KEY }),
    // Role chunk + one chunk per upstream text delta + finish chunk; no usage chunk (not asked for).
    validate: openaiValidators({
      expectUsageChunk: false,
      choiceChunks: (c) => ANTHROPIC_UPSTREAM_DELTAS(c) + 2,
      strict: true,
      deltas: ANTHROPIC_UPSTREAM_DELTAS,
    }),
    tests: [...ALL, 'memory'],
  },
  // The OpenAI Responses upstream leg on its own: the baseline of the lanes below.
  {
    id: 'direct-resp',
    label: 'direct to upstream, OpenAI Responses format (/v1/responses)',
    proc: 'upstream',
    baseline: true,
    request: responsesRequest({ model: 'gpt-bench-upstream', key: 'sk-bench-upstream-secret-0001' }),
    validate: responsesValidators({ deltas: RESPONSES_UPSTREAM_DELTAS }),
    // No throughput: no target uses the upstream's own req/s in this format.
    tests: ['latency', 'stream'],
  },
  // Pass-through in the Responses format: Responses caller → gateway → Responses upstream (bytes
  // relayed, `model` rewritten, usage tapped). Measured against `direct-resp`.
  {
    id: 'resp-pass',
    label: 'gateway pass-through, Responses caller → Responses upstream',
    wrk: 'reps',
    proc: 'gateway',
    proxy: true,
    direct: 'direct-resp',
    request: responsesRequest({ model: GATEWAY_RESPONSES_MODEL, key: GATEWAY_KEY }),
    validate: responsesValidators({ deltas: RESPONSES_UPSTREAM_DELTAS }),
    tests: [...ALL, 'memory'],
  },
  // Translation, Responses caller → Anthropic upstream; measured against `direct-anth`. One
  // output_text.delta per upstream text delta.
  {
    id: 'tr-r2a',
    label: 'translate r→a: Responses caller → gateway → Anthropic upstream',
    wrk: 'reps',
    proc: 'gateway',
    proxy: true,
    direct: 'direct-anth',
    request: responsesRequest({ model: GATEWAY_ANTHROPIC_MODEL, key: GATEWAY_KEY }),
    validate: responsesValidators({ deltas: ANTHROPIC_UPSTREAM_DELTAS }),
    tests: [...ALL, 'memory'],
  },
  // The production config (PROCS.prod): what teams run. Its validators: the strict JSON reply,
  // the limits headers, the stream's exact text (relayed or re-chunked); its probe: the metrics
  // and the request log file are recorded.
  {
    id: 'prod',
    label: 'gateway production config: JSON log file, metrics, budget + rate limit, credential + PII guardrails',
    wrk: 'reps',
    proc: 'prod',
    proxy: true,
    request: openaiRequest({ model: GATEWAY_MODEL, key: GATEWAY_KEY }),
    validate: productionValidators({ deltas: OPENAI_UPSTREAM_DELTAS }),
    probe: productionProbe,
    tests: [...ALL, 'memory'],
  },
];

/**
 * Earlier targets (before issue 13), printed after the floor targets. The ones against `bare`
 * are information now: issue 13's targets (FLOOR_TARGETS) divide by the thinner `floor`.
 * Targets, checked for each lane in the target's `lanes` (default TARGET_LANES) against the lane
 * `vs` (ratio = lane / vs), or against an absolute `limit` when `vs` is absent. `metric` reads a
 * lane's results.
 *
 * Translation targets (the issue: "translation costs at most 1.5× the pass-through's added
 * latency, and a 100-chunk translated stream adds under 2 ms end to end"):
 * - a→o is compared with `gateway`: the same gateway, the same OpenAI upstream leg, the same
 *   `direct` subtracted, so the ratio is translation vs relaying bytes for that upstream.
 * - o→a is compared with `anth-pass`, for the same reason: it is the pass-through the gateway
 *   would do for that (Anthropic) upstream, and both subtract `direct-anth`, so what the
 *   Anthropic upstream costs in itself (bigger bodies, its stream) is not counted as translation.
 *   Against `gateway` instead, the ratio would also carry the difference between the two
 *   pass-through paths; it is shown as information, so a slow anth-pass cannot flatter o→a.
 * - stream: the lane's stream p50 minus its direct lane's (absolute, ms): each translated
 *   stream is compared with the same upstream stream fetched directly.
 */
export const TARGETS = [
  {
    id: 'throughput',
    text: 'throughput c=32 >= 60% of bare',
    metric: (r) => r.throughput?.rps,
    unit: 'req/s',
    vs: 'bare',
    cmp: '>=',
    limit: 0.6,
    informational: true,
  },
  {
    id: 'cpu',
    text: 'CPU per request <= 2x bare',
    metric: (r) => r.throughput?.proxyCpuMsPerReq,
    unit: 'ms',
    vs: 'bare',
    cmp: '<=',
    limit: 2,
    informational: true,
  },
  {
    id: 'latency',
    text: 'added latency p50 c=1 <= 1.5x bare',
    metric: (r) => r.latency?.addedP50,
    unit: 'ms',
    vs: 'bare',
    cmp: '<=',
    limit: 1.5,
    floor: 0.005,
    informational: true,
  },
  {
    id: 'latency-p99',
    text: 'added latency p99 c=1 <= 1.5x bare',
    metric: (r) => r.latency?.addedP99,
    unit: 'ms',
    vs: 'bare',
    cmp: '<=',
    limit: 1.5,
    floor: 0.005,
    informational: true,
  },
  {
    id: 'ttfb',
    text: 'stream TTFB p50 <= 1.3x bare',
    metric: (r) => r.stream?.ttfbP50,
    unit: 'ms',
    vs: 'bare',
    cmp: '<=',
    limit: 1.3,
    informational: true,
  },
  {
    id: 'stream-added',
    text: 'stream p50 - direct < 2 ms (pass-through)',
    metric: (r) => r.stream?.addedTotalP50,
    unit: 'ms',
    cmp: '<',
    limit: 2,
    lanes: ['gateway', 'anth-pass'],
    informational: true,
  },
  {
    id: 'tr-latency',
    text: 'translation added p50 c=1 <= 1.5x pass-through',
    metric: (r) => r.latency?.addedP50,
    unit: 'ms',
    vs: 'gateway',
    cmp: '<=',
    limit: 1.5,
    floor: 0.005,
    lanes: ['tr-a2o'],
  },
  {
    id: 'tr-latency',
    text: 'translation added p50 c=1 <= 1.5x pass-through',
    metric: (r) => r.latency?.addedP50,
    unit: 'ms',
    vs: 'anth-pass',
    cmp: '<=',
    limit: 1.5,
    floor: 0.005,
    lanes: ['tr-o2a'],
  },
  {
    id: 'tr-latency-gw',
    text: 'translation added p50 c=1 <= 1.5x OpenAI pass-through',
    metric: (r) => r.latency?.addedP50,
    unit: 'ms',
    vs: 'gateway',
    cmp: '<=',
    limit: 1.5,
    floor: 0.005,
    lanes: ['tr-o2a'],
    informational: true,
  },
  {
    id: 'tr-stream',
    text: 'translated stream p50 - direct < 2 ms',
    metric: (r) => r.stream?.addedTotalP50,
    unit: 'ms',
    cmp: '<',
    limit: 2,
    lanes: ['tr-a2o', 'tr-o2a'],
  },
  // Budgets + rate limits: the limits lane's added p50 over the plain gateway's, same run.
  {
    id: 'limits-latency',
    text: "embedded store adds < 5% to the gateway's added p50",
    metric: (r) => r.latency?.addedP50,
    unit: 'ms',
    vs: 'gateway',
    cmp: '<',
    limit: 1.05,
    floor: 0.005,
    lanes: ['limits'],
  },
  // Guardrails + info logging: "add under 10% to the gateway's added latency", read as two
  // figures, each the guardrails lane over the plain `gateway` lane (log level error, byte
  // pass-through) of the same run, both minus `direct`: (1) +p50 of 2,000 sequential non-stream
  // requests; (2) +stream, the added end-to-end time of a 100-chunk stream (stream p50 − direct's).
  // TTFB, and the comparison with `gateway-info` (same logging, no guardrails: the guardrails'
  // own share) when that lane ran, are information.
  {
    id: 'guardrails-latency',
    text: "guardrails + info log add < 10% to the gateway's +p50",
    metric: (r) => r.latency?.addedP50,
    unit: 'ms',
    vs: 'gateway',
    cmp: '<',
    limit: 1.1,
    floor: 0.005,
    lanes: ['guardrails'],
  },
  {
    id: 'guardrails-stream',
    text: "guardrails + info log add < 10% to the gateway's +stream",
    metric: (r) => r.stream?.addedTotalP50,
    unit: 'ms',
    vs: 'gateway',
    cmp: '<',
    limit: 1.1,
    floor: 0.005,
    lanes: ['guardrails'],
  },
  {
    id: 'guardrails-ttfb',
    text: 'stream TTFB p50 <= 1.1x gateway',
    metric: (r) => r.stream?.ttfbP50,
    unit: 'ms',
    vs: 'gateway',
    cmp: '<=',
    limit: 1.1,
    lanes: ['guardrails'],
    informational: true,
  },
  {
    id: 'guardrails-latency-info',
    text: "guardrails add < 10% to gateway-info's +p50",
    metric: (r) => r.latency?.addedP50,
    unit: 'ms',
    vs: 'gateway-info',
    cmp: '<',
    limit: 1.1,
    floor: 0.005,
    lanes: ['guardrails'],
    informational: true,
  },
];

/** Lanes the targets without `lanes` are evaluated for (the first is the one the verdict is about). */
export const TARGET_LANES = ['gateway', 'gateway-info', 'gateway-usage'];
/** The translation lanes: their targets get a verdict line of their own. */
export const TRANSLATION_LANES = ['tr-a2o', 'tr-o2a'];
/** The OpenAI Responses caller lanes: issue 13's translation targets, in a group of their own. */
export const RESPONSES_LANES = ['resp-pass', 'tr-r2a'];
/** The limits lanes (budgets + rate limits), compared with LIMITS_REFERENCE; `limits` has a target. */
export const LIMITS_LANES = ['limits', 'limits-redis'];
export const LIMITS_REFERENCE = 'gateway';

/**
 * Issue 13's targets: every lane against the `floor` lane of the same run (ratio = lane / floor),
 * or an absolute limit. A target reads a lane's results:
 *   value(r)  the lane's figure (for wrk: the median over the repetitions);
 *   ratio(r)  the ratio to the floor; for wrk figures the median of the per-repetition ratios
 *             (lane / floor of the same rep and concurrency), not value / floor value;
 *   range(r)  the spread of that ratio (min–max over reps, or over stream rounds);
 *   phase     which phase produces it: a lane that took part in that phase but has no figure
 *             (a skipped or failed phase) is printed as MISSING, which counts as not met;
 *   collapse  the lanes that pass share one printed row (every row is in the JSON).
 * Groups get one verdict line each; `info` groups are printed but not judged.
 */
const wrkAt = (c, key) => (r) => r.wrk?.byC?.[c]?.[key];
const wrkTargets = (spec) =>
  [32, 128].map((c) => ({
    id: `${spec.id}-c${c}`,
    text: `${spec.text} at c${c}`,
    phase: 'wrk',
    unit: spec.unit,
    value: wrkAt(c, spec.key),
    ratio: wrkAt(c, spec.ratioKey),
    range: wrkAt(c, `${spec.ratioKey}Range`),
    vs: 'floor',
    cmp: spec.cmp,
    limit: spec.limit,
  }));
const rps = (limit) =>
  wrkTargets({ id: 'rps', text: 'req/s', key: 'rps', ratioKey: 'rpsRatio', unit: 'req/s', cmp: '>=', limit });
const cpu = (limit) =>
  wrkTargets({
    id: 'cpu',
    text: 'CPU/request',
    key: 'cpuUsPerReq',
    ratioKey: 'cpuRatio',
    unit: 'µs',
    cmp: '<=',
    limit,
  });
const streamTarget = (id, text, key, ratioKey, unit, limit) => ({
  id,
  text,
  phase: 'stream',
  unit,
  value: (r) => r.stream?.[key],
  ratio: (r) => r.stream?.[ratioKey],
  range: (r) => r.stream?.[`${ratioKey}Range`],
  vs: 'floor',
  cmp: '<=',
  limit,
});
const ttfb = (limit) => streamTarget('ttfb', 'stream TTFB p50 (c=1)', 'ttfbP50', 'ttfbRatio', 'ms', limit);
const passThrough = [
  ...rps(0.8),
  ...cpu(1.4),
  ttfb(1.2),
  {
    id: 'p99-c128',
    text: 'p99 at c128',
    phase: 'wrk',
    unit: 'ms',
    value: wrkAt(128, 'p99Ms'),
    ratio: wrkAt(128, 'p99Ratio'),
    range: wrkAt(128, 'p99RatioRange'),
    vs: 'floor',
    cmp: '<=',
    limit: 2,
  },
];
const translation = [
  ...rps(0.7),
  ...cpu(1.6),
  streamTarget('stream-cpu', 'stream CPU per stream (c=1)', 'proxyCpuMsPerStream', 'cpuRatio', 'ms', 1.6),
];
export const FLOOR_TARGET_GROUPS = [
  { id: 'pass-through', lanes: ['gateway'], targets: passThrough },
  { id: 'translation', lanes: TRANSLATION_LANES, targets: translation },
  // The Responses lanes, pass-through and translated, held to the translation targets; a verdict
  // of their own, so the older lanes' verdicts read as before.
  { id: 'responses', lanes: RESPONSES_LANES, targets: translation },
  { id: 'production', lanes: ['prod'], targets: [...rps(0.6), ...cpu(1.8), ttfb(1.5)] },
  {
    id: 'every lane',
    lanes: () => true,
    targets: [
      {
        id: 'rss',
        text: 'peak RSS at c=128 < 150 MB',
        phase: 'memory',
        unit: 'MB',
        proxyOnly: true,
        value: (r) => r.memory?.peakRssMB,
        cmp: '<',
        limit: 150,
      },
      {
        id: 'errors',
        text: 'no errors (any phase, wrk included; invalid replies)',
        unit: 'errors',
        collapse: true,
        value: (r) =>
          ['latency', 'stream', 'throughput', 'memory'].reduce((n, t) => n + (r[t]?.errors ?? 0), 0) +
          (r.wrk?.reps ?? []).reduce((n, x) => n + x.errors, 0) +
          (r.invalid?.length ?? 0),
        cmp: '<=',
        limit: 0,
      },
      {
        id: 'forwarded',
        text: 'wrk runs where the upstream did not see each request once',
        phase: 'wrk',
        unit: 'runs',
        collapse: true,
        value: (r) => (r.wrk?.reps.length ? r.wrk.reps.filter((x) => !x.forwarded).length : undefined),
        cmp: '<=',
        limit: 0,
      },
    ],
  },
  // Its upstream leg is Anthropic-format (bigger bodies, another stream), the floor's is OpenAI:
  // the pass-through targets, as information.
  { id: 'anth-pass (info)', lanes: ['anth-pass'], info: true, targets: passThrough },
];
