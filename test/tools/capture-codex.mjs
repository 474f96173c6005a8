#!/usr/bin/env node
/**
 * Captures what the real Codex CLI sends to an OpenAI Responses-format provider: runs `codex exec`
 * once per scenario against the recording upstream (responses-recorder.mjs), with a fresh temporary
 * HOME holding only `.codex/config.toml` (a custom model provider whose base_url is the recorder,
 * `wire_api = "responses"`, a dummy key in an env_key variable) and a fresh temporary working
 * directory, and writes <out>/<scenario>.json:
 *
 *   { codex_version, scenario, about, argv, config_toml, exit_code, output_tail,
 *     requests: [{ at_ms, method, path, headers, body | body_same_as, answer }] }
 *
 * `at_ms` counts from the scenario's first request (retry delays are the differences). A body
 * equal to that of an earlier request (one written in full) is written as `body_same_as: <index>`;
 * a body that only appends items to that request's `input` also has `input_appended: [...]`: it is
 * the earlier body with those items added at the end of `input`. Bodies are compared as JSON
 * values (on a retry Codex may order `client_metadata`'s members differently). The answers keep
 * every event sent, with the echoed `instructions` and `tools` of the response object written as
 * "[echo]". The temporary HOME and working directory appear as /tmp/codex-home and /tmp/codex-work,
 * the recorder's port as PORT.
 *
 *   npm i @openai/codex@0.169.0 (outside the repo), then
 *   node test/tools/capture-codex.mjs --codex /path/to/node_modules/.bin/codex \
 *     --out test/fixtures/codex/0.169.0 [--only a,b]
 *
 * The error scenarios answer every request with the same fault, so the file shows how many times
 * and how fast Codex retries before it gives up (its defaults: request_max_retries 4,
 * stream_max_retries 5).
 */

import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { scrubText } from './record-upstream.mjs';
import { openaiError, startResponsesRecorder } from './responses-recorder.mjs';

const DUMMY_KEY = 'sk-codex-dummy-recording-key-0000';
const KEY_VAR = 'CODEX_RECORDER_KEY';
const HOME_PLACEHOLDER = '/tmp/codex-home';
const WORK_PLACEHOLDER = '/tmp/codex-work';
/** A model with a bundled profile that sends the classic request shape (top-level tools). */
const CLASSIC = 'gpt-5.5';

const onResponses = (answer) => (_n, req) => (/\/responses$/.test(req.path.split('?')[0]) ? answer : undefined);

/**
 * name → { about, model, prompt, flags, provider (extra provider keys), config (extra top-level keys), fault,
 * builtin (no custom provider: the built-in one with openai_base_url, after `codex login --with-api-key`) }.
 */
const SCENARIOS = {
  'plain-default-model': {
    about: 'No model configured: the CLI default, which uses the "responses lite" shape (tools in the input)',
    prompt: 'say hi',
  },
  'plain-classic-model': { about: `model = ${CLASSIC}: top-level tools`, model: CLASSIC, prompt: 'say hi' },
  'plain-alias-model': {
    about: 'A gateway alias Codex has no profile for: fallback model metadata',
    model: 'team/codex',
    prompt: 'say hi',
  },
  'shell-tool-round': {
    about: 'The upstream calls the shell tool (exec_command); Codex runs it and sends the output back',
    model: CLASSIC,
    prompt: 'run `echo hello` and tell me what it printed',
    flags: ['--sandbox', 'workspace-write'],
  },
  'shell-tool-round-default-model': {
    about: 'Same round with the default model: code mode, a free-form `exec` tool running JavaScript',
    prompt: 'run `echo hello` and tell me what it printed',
    flags: ['--sandbox', 'workspace-write'],
  },
  'apply-patch-round': {
    about: 'The upstream calls apply_patch (a custom, free-form tool) adding a file; Codex applies it',
    model: CLASSIC,
    prompt: 'create the file hello.txt saying hello',
    flags: ['--sandbox', 'workspace-write'],
  },
  'models-with-command-auth': {
    about: 'A provider whose token comes from `auth.command`: Codex then asks GET /models',
    model: CLASSIC,
    prompt: 'say hi',
    provider: { env_key: null, auth: `{ command = "printf", args = ["${DUMMY_KEY}"] }` },
  },
  'auto-compaction': {
    about: 'model_auto_compact_token_limit below the first answer usage, inside a tool round',
    model: CLASSIC,
    prompt: 'run `echo hello` and tell me what it printed',
    flags: ['--sandbox', 'workspace-write'],
    config: { model_auto_compact_token_limit: '2000' },
  },
  'auto-compaction-openai-named': {
    about: 'The same with the provider named "OpenAI", which Codex trusts with remote compaction',
    model: CLASSIC,
    prompt: 'run `echo hello` and tell me what it printed',
    flags: ['--sandbox', 'workspace-write'],
    config: { model_auto_compact_token_limit: '2000' },
    provider: { name: '"OpenAI"' },
  },
  'builtin-provider-ws-404': {
    about:
      'The built-in OpenAI provider moved with openai_base_url, after `codex login --with-api-key`: it tries a ' +
      'WebSocket upgrade first; a 404 is retried like a lost stream before the HTTPS fallback',
    model: CLASSIC,
    prompt: 'say hi',
    builtin: true,
  },
  'builtin-provider-ws-426': {
    about: 'The same, the upgrade answered 426 Upgrade Required',
    model: CLASSIC,
    prompt: 'say hi',
    builtin: true,
    fault: (_n, req) =>
      req.method === 'GET' && /\/responses$/.test(req.path)
        ? openaiError(426, 'invalid_request_error', 'WebSocket transport is not supported.')
        : undefined,
  },
  'error-500-should-retry-false': {
    about: 'Every /responses answered 500 with x-should-retry: false',
    model: CLASSIC,
    prompt: 'say hi',
    fault: onResponses({
      ...openaiError(500, 'server_error', 'The server had an error processing your request.'),
      headers: { 'x-should-retry': 'false' },
    }),
  },
  'error-500': {
    about: 'Every /responses answered 500 without x-should-retry (control for the previous one)',
    model: CLASSIC,
    prompt: 'say hi',
    fault: onResponses(openaiError(500, 'server_error', 'The server had an error processing your request.')),
  },
  'error-429-retry-after': {
    about: 'Every /responses answered 429 rate_limit_exceeded with retry-after: 2',
    model: CLASSIC,
    prompt: 'say hi',
    fault: onResponses({
      ...openaiError(429, 'requests', 'Rate limit reached for requests.', 'rate_limit_exceeded'),
      headers: { 'retry-after': '2' },
    }),
  },
  'error-429-no-retry-after': {
    about: 'Every /responses answered 429 rate_limit_exceeded without retry-after (control for the previous one)',
    model: CLASSIC,
    prompt: 'say hi',
    fault: onResponses(openaiError(429, 'requests', 'Rate limit reached for requests.', 'rate_limit_exceeded')),
  },
  'error-400': {
    about: 'Every /responses answered 400 invalid_request_error',
    model: CLASSIC,
    prompt: 'say hi',
    fault: onResponses(openaiError(400, 'invalid_request_error', "Unsupported parameter: 'reasoning.context'.")),
  },
  'error-stream-cut': {
    about: 'Every stream cut (socket destroyed) after the last output_item.done, before response.completed',
    model: CLASSIC,
    prompt: 'say hi',
    fault: onResponses({ cut: -1 }),
  },
};

function arg(name) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

function configToml(s, url) {
  const baseUrl = JSON.stringify(`${url}/v1`);
  const top = { ...(s.model ? { model: JSON.stringify(s.model) } : {}), ...s.config };
  const lines = (table) =>
    Object.entries(table)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => `${k} = ${v}`);
  if (s.builtin) return `${lines({ ...top, openai_base_url: baseUrl }).join('\n')}\n`;
  const provider = {
    name: '"Recorder"',
    base_url: baseUrl,
    env_key: JSON.stringify(KEY_VAR),
    wire_api: '"responses"',
    ...s.provider,
  };
  const all = [
    ...lines({ ...top, model_provider: '"recorder"' }),
    '',
    '[model_providers.recorder]',
    ...lines(provider),
  ];
  return `${all.join('\n')}\n`;
}

function run(bin, args, env, cwd, timeoutMs) {
  return new Promise((done) => {
    // Its own process group: the npm launcher spawns the native binary, which must die with it.
    const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code: code ?? signal, out });
    });
  });
}

/** JSON with object members sorted: Codex re-serialises some maps in another order on a retry. */
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/**
 * Requests as written in the fixture: a body equal to an earlier one written in full becomes
 * `body_same_as: <index>`; one that only appends items to its `input` adds `input_appended: [...]`.
 */
function dedupeBodies(requests) {
  const earlier = [];
  return requests.map((r, i) => {
    const b = r.body;
    if (!b || typeof b !== 'object') return r;
    const { input = [], ...rest } = b;
    const items = Array.isArray(input) ? input.map(canonical) : [canonical(input)];
    const key = canonical(rest);
    const base = earlier.findLast(
      (e) => e.key === key && e.items.length <= items.length && e.items.every((item, k) => item === items[k]),
    );
    if (!base) {
      earlier.push({ index: i, key, items });
      return r;
    }
    const { body: _, ...meta } = r;
    const appended = Array.isArray(input) ? input.slice(base.items.length) : [];
    return { ...meta, body_same_as: base.index, ...(appended.length > 0 ? { input_appended: appended } : {}) };
  });
}

const bin = arg('codex');
const out = arg('out');
if (!bin || !out) {
  console.error('usage: capture-codex.mjs --codex BIN --out DIR [--only a,b]');
  process.exit(2);
}
const only = arg('only')?.split(',');
const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim().split(/\s+/).at(-1);
let fault = () => undefined;
const subs = [];
const rec = await startResponsesRecorder({
  secrets: [DUMMY_KEY],
  replacements: subs,
  fault: (n, req) => fault(n, req),
  log: (l) => console.error(`  ${l}`),
});
try {
  for (const [name, s] of Object.entries(SCENARIOS)) {
    if (only && !only.includes(name)) continue;
    const home = mkdtempSync('/tmp/codex-capture-home-');
    const work = mkdtempSync('/tmp/codex-capture-work-');
    subs.length = 0;
    subs.push([home, HOME_PLACEHOLDER], [work, WORK_PLACEHOLDER], [new URL(rec.url).host, '127.0.0.1:PORT']);
    const toml = configToml(s, rec.url);
    mkdirSync(join(home, '.codex'));
    writeFileSync(join(home, '.codex', 'config.toml'), toml);
    fault = s.fault ?? (() => undefined);
    rec.reset();
    const args = ['exec', '--skip-git-repo-check', '-C', work, ...(s.flags ?? []), s.prompt];
    const env = { PATH: process.env.PATH, HOME: home, TERM: 'dumb', [KEY_VAR]: DUMMY_KEY };
    // The built-in provider takes its key from the login store, not from OPENAI_API_KEY.
    if (s.builtin) execFileSync(bin, ['login', '--with-api-key'], { input: DUMMY_KEY, env, stdio: 'pipe' });
    console.error(`${name}: codex ${args.map((a) => JSON.stringify(a)).join(' ')}`);
    const r = await run(bin, args, env, work, 180_000);
    const tail = scrubText(r.out, subs, [DUMMY_KEY]).trim().split('\n').slice(-12);
    console.error(`  exit ${r.code}: ${tail.slice(-3).join(' | ').slice(0, 240)}`);
    const fixture = {
      codex_version: version,
      scenario: name,
      about: s.about,
      argv: ['codex', ...args].map((a) => scrubText(a, subs, [DUMMY_KEY])),
      config_toml: scrubText(toml, subs, [DUMMY_KEY]),
      exit_code: r.code,
      output_tail: tail,
      requests: dedupeBodies(rec.requests),
    };
    const file = resolve(out, `${name}.json`);
    mkdirSync(out, { recursive: true });
    writeFileSync(file, `${JSON.stringify(fixture, null, 1)}\n`);
    for (const d of [home, work]) rmSync(d, { recursive: true, force: true });
  }
} finally {
  await rec.close();
}
