#!/usr/bin/env node
/**
 * A recording OpenAI Responses-format upstream on 127.0.0.1, to capture what a client (Codex CLI,
 * the AI SDK, the openai SDK) really sends to `POST …/responses`. It answers
 *
 *   POST …/responses   SSE when `stream: true`, else JSON, with the documented event order
 *                      (response.created, response.in_progress, per output item output_item.added,
 *                      its deltas and done events, output_item.done, then response.completed with
 *                      usage; every event has a sequence_number from 0):
 *                      - the input ends with `compaction_trigger` → one compaction item
 *                      - the input holds a compaction item → a short text
 *                      - the input ends with a tool output → a text quoting it
 *                      - the last user text says "run `CMD`" and a shell tool is offered → one call
 *                        of it (function exec_command or shell_command; in Codex's code mode a
 *                        free-form `exec` call running `tools.exec_command`)
 *                      - it says "create the file NAME" and the custom (free-form) apply_patch tool
 *                        is offered → one call adding NAME (in code mode, through `exec`)
 *                      - it names a function tool offered ("call weather") → one call of it
 *                      - a json_schema text format → a JSON object of the schema's required keys
 *                      - otherwise a short text
 *                      a reasoning item with a summary comes first when the request has `reasoning`
 *                      or names a reasoning model (o*, gpt-5*, gpt-6*); it carries encrypted_content
 *                      when `include` asks for `reasoning.encrypted_content`
 *   GET …/models       OpenAI's list shape ({object: 'list', data: [{id, object, created, owned_by}]})
 *   anything else      404 in OpenAI's error shape
 *
 * A `fault(n, req)` hook (n = 0-based request count) replaces the answer: {status, headers, json}
 * for an HTTP error, or {cut: k} to send the first k events of the stream and destroy the socket.
 * Every request is kept as {at_ms, method, path, headers, body, answer}: authorization-like
 * headers and key-shaped strings scrubbed (see record-upstream.mjs), given path prefixes replaced.
 *
 * Library: startResponsesRecorder({ secrets, replacements, fault, log }) → { url, requests, reset(), close() }
 * CLI:     node test/tools/responses-recorder.mjs [--port 0]   (prints the URL, logs each call)
 */

import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { SCRUBBED, scrubText } from './record-upstream.mjs';

const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'api-key', 'cookie', 'openai-organization']);

function scrubHeaders(headers, subs, secrets) {
  const out = {};
  for (const k of Object.keys(headers).sort())
    out[k] = SECRET_HEADERS.has(k) ? SCRUBBED : scrubText(String(headers[k]), subs, secrets);
  return out;
}

// ---------------------------------------------------------------- what to answer

function textOfContent(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
}

const OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output']);

/** The tool output that ends the input, if the turn is a tool result coming back. */
function lastToolOutput(input) {
  if (!Array.isArray(input)) return undefined;
  const last = input.filter((i) => i?.type !== 'reasoning').at(-1);
  return last && OUTPUT_TYPES.has(last.type) ? last : undefined;
}

/** Every tool offered: top-level `tools`, Codex's `additional_tools` input items, namespaces flattened. */
function offeredTools(body) {
  const out = [];
  const walk = (list) => {
    for (const t of Array.isArray(list) ? list : []) {
      if (t?.type === 'namespace') walk(t.tools);
      else out.push(t);
    }
  };
  walk(body?.tools);
  for (const item of Array.isArray(body?.input) ? body.input : [])
    if (item?.type === 'additional_tools') walk(item.tools);
  return out;
}

function lastUserText(body) {
  if (typeof body?.input === 'string') return body.input;
  const users = (Array.isArray(body?.input) ? body.input : []).filter((i) => i?.role === 'user');
  return textOfContent(users.at(-1)?.content);
}

/** Codex's code mode: one free-form `exec` tool running JavaScript that calls the others as `tools.<name>`. */
const codeMode = (tools) => tools.some((t) => t?.type === 'custom' && t.name === 'exec');

function shellCall(tools, command) {
  if (codeMode(tools))
    return { exec: `const r = await tools.exec_command({ cmd: ${JSON.stringify(command)} });\ntext(r.output);\n` };
  const byName = (n) => tools.find((t) => t?.type === 'function' && t.name === n);
  if (byName('exec_command')) return { fn: 'exec_command', args: { cmd: command } };
  if (byName('shell_command')) return { fn: 'shell_command', args: { command } };
  return undefined;
}

function patchAdding(name) {
  return `*** Begin Patch\n*** Add File: ${name}\n+Hello from apply_patch.\n*** End Patch\n`;
}

function sampleFor(schema) {
  if (schema?.type === 'object') {
    const out = {};
    for (const k of schema.required ?? Object.keys(schema.properties ?? {})) out[k] = sampleFor(schema.properties?.[k]);
    return out;
  }
  if (schema?.type === 'array') return [sampleFor(schema.items)];
  if (schema?.type === 'number' || schema?.type === 'integer') return 1;
  if (schema?.type === 'boolean') return true;
  if (Array.isArray(schema?.enum)) return schema.enum[0];
  return 'sample';
}

/** Models that always reason (the API returns a reasoning item even when `reasoning` is not sent). */
const REASONING_MODEL = /^(o\d|gpt-5|gpt-6)/;

/** The output items to send, from the request alone (ids are filled in later). */
function planFor(body) {
  const items = [];
  const wantsEncrypted = Array.isArray(body?.include) && body.include.includes('reasoning.encrypted_content');
  if (body?.reasoning || REASONING_MODEL.test(body?.model ?? ''))
    items.push({
      type: 'reasoning',
      summary: 'Planning a short answer.',
      encrypted: wantsEncrypted ? 'ZW5jcnlwdGVkLXJlY29yZGVyLWZha2U=' : undefined,
    });
  // Compaction requested in-band: the answer is exactly one opaque compaction item.
  if (Array.isArray(body?.input) && body.input.at(-1)?.type === 'compaction_trigger')
    return [{ type: 'compaction', encrypted: 'Y29tcGFjdGVkLXJlY29yZGVyLWZha2U=' }];
  // After a compaction the history is the compaction item: answer, do not start the task over.
  if (Array.isArray(body?.input) && body.input.some((i) => i?.type === 'compaction')) {
    items.push({ type: 'message', text: 'Resumed after compaction.' });
    return items;
  }
  const toolOut = lastToolOutput(body?.input);
  if (toolOut) {
    const said = textOfContent(toolOut.output).replace(/\s+/g, ' ').trim().slice(0, 120);
    items.push({ type: 'message', text: `The tool returned: ${said}` });
    return items;
  }
  const tools = offeredTools(body);
  const said = lastUserText(body);
  const run = /run `([^`]+)`/i.exec(said);
  const shell = run && shellCall(tools, run[1]);
  if (shell) {
    if (shell.exec) items.push({ type: 'custom_tool_call', name: 'exec', input: shell.exec });
    else items.push({ type: 'function_call', ...shell });
    return items;
  }
  const create = /create the file (\S+?)(?=[\s,;]|\.(?:\s|$)|$)/i.exec(said);
  if (create && codeMode(tools)) {
    const js = `text(await tools.apply_patch(${JSON.stringify(patchAdding(create[1]))}));\n`;
    items.push({ type: 'custom_tool_call', name: 'exec', input: js });
    return items;
  }
  if (create && tools.some((t) => t?.type === 'custom' && t.name === 'apply_patch')) {
    items.push({ type: 'custom_tool_call', name: 'apply_patch', input: patchAdding(create[1]) });
    return items;
  }
  const called = /call (\w+)/i.exec(said);
  const fn = called && tools.find((t) => t?.type === 'function' && t.name === called[1]);
  if (fn) {
    items.push({ type: 'function_call', fn: fn.name, args: sampleFor(fn.parameters) });
    return items;
  }
  const format = body?.text?.format;
  if (format?.type === 'json_schema') {
    items.push({ type: 'message', text: JSON.stringify(sampleFor(format.schema)) });
    return items;
  }
  items.push({ type: 'message', text: 'Hello from the recording upstream.' });
  return items;
}

// ---------------------------------------------------------------- the Responses wire shapes

/** Output items as they look once complete, with ids derived from the response number. */
function finalItems(plan, n) {
  return plan.map((p, i) => {
    const id = (prefix) => `${prefix}_rec_${n}_${i}`;
    if (p.type === 'reasoning')
      return {
        id: id('rs'),
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: p.summary }],
        ...(p.encrypted ? { encrypted_content: p.encrypted } : {}),
      };
    if (p.type === 'compaction') return { id: id('cmp'), type: 'compaction', encrypted_content: p.encrypted };
    if (p.type === 'message')
      return {
        id: id('msg'),
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: p.text, annotations: [], logprobs: [] }],
      };
    if (p.type === 'function_call')
      return {
        id: id('fc'),
        type: 'function_call',
        status: 'completed',
        call_id: id('call'),
        name: p.fn,
        arguments: JSON.stringify(p.args),
      };
    return {
      id: id('ctc'),
      type: 'custom_tool_call',
      status: 'completed',
      call_id: id('call'),
      name: p.name,
      input: p.input,
    };
  });
}

const tokens = (text) => Math.max(1, Math.ceil(text.length / 4));

/** The response object, echoing the request's parameters as the API does. */
function responseObject(body, n, status, output) {
  const outTokens = output.length === 0 ? 0 : tokens(JSON.stringify(output));
  const reasoningTokens = output.filter((o) => o.type === 'reasoning').length * 8;
  const inTokens = tokens(JSON.stringify(body?.input ?? '') + (body?.instructions ?? ''));
  return {
    id: `resp_rec_${n}`,
    object: 'response',
    created_at: 1_760_000_000 + n,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body?.instructions ?? null,
    max_output_tokens: body?.max_output_tokens ?? null,
    model: body?.model ?? 'unknown',
    output,
    parallel_tool_calls: body?.parallel_tool_calls ?? true,
    previous_response_id: body?.previous_response_id ?? null,
    prompt_cache_key: body?.prompt_cache_key ?? null,
    reasoning: body?.reasoning ?? { effort: null, summary: null },
    service_tier: 'default',
    store: body?.store ?? true,
    temperature: body?.temperature ?? 1,
    text: body?.text ?? { format: { type: 'text' } },
    tool_choice: body?.tool_choice ?? 'auto',
    tools: body?.tools ?? [],
    top_p: body?.top_p ?? 1,
    truncation: 'disabled',
    usage:
      status === 'completed'
        ? {
            input_tokens: inTokens,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: outTokens + reasoningTokens,
            output_tokens_details: { reasoning_tokens: reasoningTokens },
            total_tokens: inTokens + outTokens + reasoningTokens,
          }
        : null,
    user: null,
    metadata: body?.metadata ?? {},
  };
}

/** Halves of a string, so every delta kind is sent in more than one piece. */
const halves = (s) => [s.slice(0, Math.ceil(s.length / 2)), s.slice(Math.ceil(s.length / 2))].filter(Boolean);

/** The stream's events, in order, numbered from 0. */
function streamEvents(body, n, items) {
  const ev = [];
  ev.push({ type: 'response.created', response: responseObject(body, n, 'in_progress', []) });
  ev.push({ type: 'response.in_progress', response: responseObject(body, n, 'in_progress', []) });
  items.forEach((item, output_index) => {
    const at = { item_id: item.id, output_index };
    if (item.type === 'reasoning') {
      ev.push({ type: 'response.output_item.added', output_index, item: { ...item, summary: [] } });
      const text = item.summary[0].text;
      const part = { type: 'summary_text', text: '' };
      ev.push({ type: 'response.reasoning_summary_part.added', ...at, summary_index: 0, part });
      for (const delta of halves(text))
        ev.push({ type: 'response.reasoning_summary_text.delta', ...at, summary_index: 0, delta });
      ev.push({ type: 'response.reasoning_summary_text.done', ...at, summary_index: 0, text });
      ev.push({ type: 'response.reasoning_summary_part.done', ...at, summary_index: 0, part: { ...part, text } });
    } else if (item.type === 'message') {
      ev.push({
        type: 'response.output_item.added',
        output_index,
        item: { ...item, status: 'in_progress', content: [] },
      });
      const part = item.content[0];
      const empty = { ...part, text: '' };
      ev.push({ type: 'response.content_part.added', ...at, content_index: 0, part: empty });
      for (const delta of part.text.match(/\S+\s*/g) ?? [part.text])
        ev.push({ type: 'response.output_text.delta', ...at, content_index: 0, delta, logprobs: [] });
      ev.push({ type: 'response.output_text.done', ...at, content_index: 0, text: part.text, logprobs: [] });
      ev.push({ type: 'response.content_part.done', ...at, content_index: 0, part });
    } else if (item.type === 'function_call') {
      ev.push({
        type: 'response.output_item.added',
        output_index,
        item: { ...item, status: 'in_progress', arguments: '' },
      });
      for (const delta of halves(item.arguments))
        ev.push({ type: 'response.function_call_arguments.delta', ...at, delta });
      ev.push({ type: 'response.function_call_arguments.done', ...at, name: item.name, arguments: item.arguments });
    } else if (item.type === 'custom_tool_call') {
      ev.push({
        type: 'response.output_item.added',
        output_index,
        item: { ...item, status: 'in_progress', input: '' },
      });
      for (const delta of halves(item.input)) ev.push({ type: 'response.custom_tool_call_input.delta', ...at, delta });
      ev.push({ type: 'response.custom_tool_call_input.done', ...at, input: item.input });
    } else {
      // A compaction item has no deltas: it arrives whole.
      ev.push({ type: 'response.output_item.added', output_index, item });
    }
    ev.push({ type: 'response.output_item.done', output_index, item });
  });
  ev.push({ type: 'response.completed', response: responseObject(body, n, 'completed', items) });
  return ev.map((e, sequence_number) => ({ type: e.type, sequence_number, ...e }));
}

const sse = (events) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');

/** A `GET /v1/models` entry in OpenAI's list shape (what the gateway serves). */
const modelEntry = (id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'recorder' });

export function openaiError(status, type, message, code = null) {
  return { status, json: { error: { message, type, param: null, code } } };
}

/** A compact record of an answer for the fixtures: the echoed instructions and tools are not repeated. */
function answerRecord(answer, body) {
  const strip = (r) =>
    r && typeof r === 'object' && r.object === 'response'
      ? {
          ...r,
          instructions: r.instructions && r.instructions === body?.instructions ? '[echo]' : r.instructions,
          tools: Array.isArray(r.tools) && r.tools.length > 0 ? '[echo]' : r.tools,
        }
      : r;
  const out = { status: answer.status };
  if (answer.headers) out.headers = answer.headers;
  if (answer.events) {
    const sent = answer.cut === undefined ? answer.events : answer.events.slice(0, answer.cut);
    out.events = sent.map((e) => (e.response ? { ...e, response: strip(e.response) } : e));
    if (answer.cut !== undefined) out.cut_after_events = answer.cut;
  }
  if (answer.json) out.json = strip(answer.json);
  return out;
}

// ---------------------------------------------------------------- server

export async function startResponsesRecorder({
  port = 0,
  models = ['gpt-5.5', 'team/codex'],
  secrets = [],
  replacements = [],
  fault = () => undefined,
  log = () => {},
} = {}) {
  const requests = [];
  let t0;
  let responses = 0;
  const server = createServer(async (req, res) => {
    const parts = [];
    for await (const c of req) parts.push(c);
    const raw = Buffer.concat(parts).toString('utf8');
    t0 ??= Date.now();
    let body;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const path = req.url ?? '/';
    const route = path.split('?')[0];
    const n = requests.length;
    // Read per request: the caller may change the replacements between captures.
    const subs = [...replacements].sort((a, b) => b[0].length - a[0].length);
    let answer = fault(n, { method: req.method, path, body });
    if (!answer) {
      if (req.method === 'POST' && /\/responses$/.test(route)) {
        const items = finalItems(planFor(body), ++responses);
        answer =
          body?.stream === true
            ? { status: 200, events: streamEvents(body, responses, items) }
            : { status: 200, json: responseObject(body, responses, 'completed', items) };
      } else if (req.method === 'GET' && /\/models$/.test(route)) {
        answer = { status: 200, json: { object: 'list', data: models.map((id) => modelEntry(id)) } };
      } else answer = openaiError(404, 'invalid_request_error', `No route ${req.method} ${route}`);
    } else if (answer.cut !== undefined) {
      const events = streamEvents(body, ++responses, finalItems(planFor(body), responses));
      answer = { status: 200, events, cut: answer.cut < 0 ? events.length + answer.cut : answer.cut };
    }
    const scrubbedBody =
      body === undefined ? (raw ? scrubText(raw, subs, secrets) : null) : JSON.parse(scrubText(raw, subs, secrets));
    requests.push({
      at_ms: Date.now() - t0,
      method: req.method,
      path: scrubText(path, subs, secrets),
      headers: scrubHeaders(req.headers, subs, secrets),
      body: scrubbedBody,
      answer: answerRecord(answer, body),
    });
    log(`${req.method} ${path} → ${answer.status}${answer.events ? ` ${answer.events.length} events` : ''}`);
    if (answer.events) {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'x-request-id': `req_rec_${n}` });
      if (answer.cut === undefined) return res.end(sse(answer.events));
      res.write(sse(answer.events.slice(0, answer.cut)));
      return setTimeout(() => res.socket?.destroy(), 50);
    }
    res.writeHead(answer.status, {
      'content-type': 'application/json',
      'x-request-id': `req_rec_${n}`,
      ...answer.headers,
    });
    res.end(JSON.stringify(answer.json));
  });
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    /** Forgets the requests seen so far; times restart at the next request. */
    reset() {
      requests.length = 0;
      t0 = undefined;
      responses = 0;
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const i = process.argv.indexOf('--port');
  const rec = await startResponsesRecorder({
    port: i > 0 ? Number(process.argv[i + 1]) : 0,
    log: (l) => console.error(l),
  });
  console.log(rec.url);
  const stop = () => rec.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
