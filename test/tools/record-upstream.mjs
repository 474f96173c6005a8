#!/usr/bin/env node
/**
 * A recording Anthropic-format upstream on 127.0.0.1: the documented way to capture what a client
 * (Claude Code) really sends. It answers
 *
 *   POST /v1/messages               JSON, or SSE in the documented event order (message_start with
 *                                   usage, ping, blocks one at a time, message_delta, message_stop):
 *                                   - the last user turn carries a tool_result → text quoting it
 *                                   - the prompt says "Read the file <path>" and Read (or Bash) is
 *                                     offered → one tool_use for it
 *                                   - thinking requested → a thinking block (with signature) first
 *                                   - otherwise a short text
 *   POST /v1/messages/count_tokens  {input_tokens: ~bytes/4}
 *   GET  /v1/models                 the Anthropic list shape (data, has_more, first_id, last_id)
 *   anything else                   404 in Anthropic error shape
 *
 * and writes every request it receives to `<dir>/NN-<path>.json` ({method, path, headers, body}),
 * with credentials scrubbed: x-api-key / authorization → "[scrubbed]", key-shaped strings in the
 * body replaced, and the real home directory and working directory replaced by placeholders
 * (captures should run with a fake HOME and a throwaway project dir anyway).
 *
 * CLI: node test/tools/record-upstream.mjs --out DIR [--port 0] [--models a,b]
 * Library: startRecorder({ dir, models }) → { url, setDir(dir), requests, close() }
 * See test/tools/capture-claude-code.mjs for the scenarios it was used for.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const SCRUBBED = '[scrubbed]';
const SECRET_HEADERS = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie', 'x-provider-api-key']);
/** Key-shaped values: Anthropic/OpenAI keys, bearer tokens, JWTs, long opaque tokens after "key"/"token". */
const SECRET_PATTERNS = [
  /\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
  /\b(?:ghp|gho|github_pat|xox[abpr]|AKIA)[A-Za-z0-9_]{12,}/g,
];

/** Strings to replace wherever they appear in a recorded body: real paths first, longest first. */
function pathReplacements(extra = []) {
  const out = [];
  const home = userInfo().homedir;
  const cwd = process.cwd();
  if (cwd && cwd !== '/') out.push([cwd, '/work/project']);
  if (home && home !== '/' && !home.startsWith('/tmp/')) out.push([home, '/home/user']);
  for (const e of extra) out.push(e);
  return out.sort((a, b) => b[0].length - a[0].length);
}

export function scrubText(text, replacements, secrets = []) {
  let t = text;
  for (const s of secrets) if (s && s.length >= 6) t = t.split(s).join(SCRUBBED);
  for (const re of SECRET_PATTERNS) t = t.replace(re, SCRUBBED);
  for (const [from, to] of replacements) t = t.split(from).join(to);
  return t;
}

function scrubHeaders(headers) {
  const out = {};
  for (const k of Object.keys(headers).sort()) out[k] = SECRET_HEADERS.has(k) ? SCRUBBED : headers[k];
  return out;
}

// ---------------------------------------------------------------- answers

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) => (b?.type === 'text' ? b.text : b?.type === 'tool_result' ? textOf(b.content) : ''))
    .join('');
}

/** What to answer, from the request alone. */
export function planFor(body) {
  const msgs = Array.isArray(body?.messages) ? body.messages : [];
  const last = msgs.at(-1);
  const blocks = [];
  const thinking = body?.thinking?.type === 'enabled' || body?.thinking?.type === 'adaptive';
  if (thinking)
    blocks.push({
      type: 'thinking',
      thinking: 'The user wants a short answer. ',
      signature: 'c2lnbmF0dXJlLXJlY29yZGVyLWZha2U=',
    });
  const results =
    last?.role === 'user' && Array.isArray(last.content) ? last.content.filter((b) => b?.type === 'tool_result') : [];
  if (results.length > 0) {
    const said = textOf(results[0].content).replace(/\s+/g, ' ').trim().slice(0, 80);
    blocks.push({ type: 'text', text: `The tool returned: ${said}` });
    return { blocks, stop: 'end_turn' };
  }
  const userText = [...msgs].reverse().find((m) => m?.role === 'user');
  const wanted = /Read the file (\S+?)(?=[\s,;]|\.(?:\s|$)|$)/.exec(textOf(userText?.content));
  const tools = new Set((Array.isArray(body?.tools) ? body.tools : []).map((t) => t?.name));
  if (wanted && tools.has('Read')) {
    blocks.push({ type: 'text', text: 'I will read it.' });
    blocks.push({ type: 'tool_use', id: 'toolu_rec_01', name: 'Read', input: { file_path: wanted[1] } });
    return { blocks, stop: 'tool_use' };
  }
  if (wanted && tools.has('Bash')) {
    blocks.push({
      type: 'tool_use',
      id: 'toolu_rec_01',
      name: 'Bash',
      input: { command: `cat ${wanted[1]}`, description: 'Show the file' },
    });
    return { blocks, stop: 'tool_use' };
  }
  // A structured-output side query (session titles and the like) gets a JSON object.
  if (body?.output_config?.format?.type === 'json_schema') {
    blocks.push({ type: 'text', text: JSON.stringify({ title: 'Recorded session' }) });
    return { blocks, stop: 'end_turn' };
  }
  blocks.push({ type: 'text', text: 'Hello from the recording upstream.' });
  return { blocks, stop: 'end_turn' };
}

const USAGE_IN = { input_tokens: 42, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const outTokens = (blocks) => blocks.reduce((n, b) => n + Math.ceil(JSON.stringify(b).length / 4), 0);

function messageJson(plan, model) {
  return {
    id: 'msg_rec_01',
    type: 'message',
    role: 'assistant',
    model,
    content: plan.blocks,
    stop_reason: plan.stop,
    stop_sequence: null,
    usage: { ...USAGE_IN, output_tokens: outTokens(plan.blocks) },
  };
}

function messageSse(plan, model) {
  const ev = (d) => `event: ${d.type}\ndata: ${JSON.stringify(d)}\n\n`;
  const out = [
    ev({
      type: 'message_start',
      message: {
        ...messageJson({ blocks: [], stop: null }, model),
        stop_reason: null,
        usage: { ...USAGE_IN, output_tokens: 1 },
      },
    }),
  ];
  out.push(ev({ type: 'ping' }));
  plan.blocks.forEach((b, index) => {
    if (b.type === 'text') {
      out.push(ev({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      for (const piece of b.text.match(/\S+\s*/g) ?? [b.text])
        out.push(ev({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }));
    } else if (b.type === 'thinking') {
      out.push(
        ev({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }),
      );
      out.push(ev({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: b.thinking } }));
      out.push(ev({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: b.signature } }));
    } else {
      out.push(
        ev({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
        }),
      );
      const json = JSON.stringify(b.input);
      const cut = Math.floor(json.length / 2);
      out.push(
        ev({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: json.slice(0, cut) },
        }),
      );
      out.push(
        ev({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(cut) } }),
      );
    }
    out.push(ev({ type: 'content_block_stop', index }));
  });
  out.push(
    ev({
      type: 'message_delta',
      delta: { stop_reason: plan.stop, stop_sequence: null },
      usage: { ...USAGE_IN, output_tokens: outTokens(plan.blocks) },
    }),
  );
  out.push(ev({ type: 'message_stop' }));
  return out.join('');
}

function modelsPage(ids) {
  const data = ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

function answer(method, path, body, models) {
  const route = path.split('?')[0];
  const err = (status, type, message) => ({ status, json: { type: 'error', error: { type, message } } });
  if (method === 'POST' && route === '/v1/messages') {
    if (typeof body?.max_tokens !== 'number') return err(400, 'invalid_request_error', 'max_tokens: Field required');
    const plan = planFor(body);
    if (body.stream === true)
      return { status: 200, sse: messageSse(plan, body.model), kind: plan.blocks.map((b) => b.type).join('+') };
    return { status: 200, json: messageJson(plan, body.model), kind: plan.blocks.map((b) => b.type).join('+') };
  }
  if (method === 'POST' && route === '/v1/messages/count_tokens') {
    return { status: 200, json: { input_tokens: Math.max(1, Math.ceil(JSON.stringify(body ?? {}).length / 4)) } };
  }
  if (method === 'GET' && route === '/v1/models') return { status: 200, json: modelsPage(models) };
  return err(404, 'not_found_error', `No route ${method} ${route}`);
}

// ---------------------------------------------------------------- server

export async function startRecorder({
  dir,
  models = ['claude-sonnet-4-5', 'team/claude'],
  port = 0,
  secrets = [],
  replacements = [],
  log = () => {},
} = {}) {
  let outDir = dir;
  let n = 0;
  const requests = [];
  const subs = pathReplacements(replacements);
  const server = createServer(async (req, res) => {
    const parts = [];
    for await (const c of req) parts.push(c);
    const raw = Buffer.concat(parts).toString('utf8');
    let body;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const path = req.url ?? '/';
    const a = answer(req.method ?? '', path, body, models);
    const scrubbedBody =
      body === undefined
        ? raw
          ? scrubText(raw, subs, secrets)
          : null
        : JSON.parse(scrubText(JSON.stringify(body), subs, secrets));
    const rec = {
      method: req.method,
      path: scrubText(path, subs, secrets),
      headers: scrubHeaders(req.headers),
      body: scrubbedBody,
      answered: { status: a.status, ...(a.kind ? { content: a.kind } : {}) },
    };
    requests.push(rec);
    if (outDir) {
      mkdirSync(outDir, { recursive: true });
      const name = `${String(++n).padStart(2, '0')}-${
        path
          .split('?')[0]
          .replace(/^\/+/, '')
          .replace(/[^A-Za-z0-9_]+/g, '-') || 'root'
      }.json`;
      writeFileSync(join(outDir, name), `${JSON.stringify(rec, null, 2)}\n`);
    }
    log(`${req.method} ${path} → ${a.status}${a.kind ? ` ${a.kind}` : ''}`);
    if (a.sse !== undefined) {
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'request-id': `req_rec_${n}`,
      });
      res.end(a.sse);
    } else {
      res.writeHead(a.status, { 'content-type': 'application/json', 'request-id': `req_rec_${n}` });
      res.end(JSON.stringify(a.json));
    }
  });
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    requests,
    /** Starts a new capture directory; file numbers restart at 01. */
    setDir(d) {
      outDir = d;
      n = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name, dflt) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : dflt;
  };
  const out = arg('out');
  if (!out) {
    console.error('usage: record-upstream.mjs --out DIR [--port 0] [--models a,b]');
    process.exit(2);
  }
  const rec = await startRecorder({
    dir: out,
    port: Number(arg('port', '0')),
    models: arg('models', 'claude-sonnet-4-5,team/claude').split(','),
    log: (l) => console.error(l),
  });
  console.log(rec.url);
  process.on('SIGINT', () => rec.close().then(() => process.exit(0)));
  process.on('SIGTERM', () => rec.close().then(() => process.exit(0)));
}
