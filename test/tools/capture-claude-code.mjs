#!/usr/bin/env node
/**
 * Re-captures the Claude Code replay fixtures: runs the real CLI (`claude -p`) against the
 * recording upstream (record-upstream.mjs) once per scenario, with telemetry off, a fake HOME
 * (/tmp/cc-home, recreated per scenario) and a throwaway project dir (/tmp/cc-project), and writes
 * what it sent to <out>/<scenario>/NN-<path>.json.
 *
 *   node test/tools/capture-claude-code.mjs --claude /path/to/claude \
 *     --out test/fixtures/claude-code/2.1.197 [--only a,b]
 *
 * The npm package @anthropic-ai/claude-code 2.1.1xx ships cli.js (node_modules/.bin/claude);
 * recent versions ship a native binary in @anthropic-ai/claude-code-<platform>/claude (the
 * postinstall that links it may be skipped: point --claude at that file).
 * Only the plain alias prompt keeps the full default tool set (~75 KB per request); the other
 * scenarios pass --tools to keep the fixtures small.
 */

import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startRecorder } from './record-upstream.mjs';

const FAKE_HOME = '/tmp/cc-home';
const PROJECT = '/tmp/cc-project';
const DUMMY_KEY = 'sk-ant-dummy-recording-key-0000';
const NOTE = 'The launch code is tangerine.';

/** name → CLI arguments and extra environment. */
const SCENARIOS = {
  // An alias-like model name: not a known Claude id, so current CLIs send a mid-conversation system message.
  'plain-alias': { args: ['-p', 'Say hello', '--model', 'team/claude'] },
  // A Claude-like concrete id: no mid-conversation system, but thinking / context_management / output_config.
  'plain-claude-id': { args: ['-p', 'Say hello', '--model', 'claude-sonnet-4-5', '--tools', 'Read,Bash'] },
  'tool-round-trip': {
    args: [
      '-p',
      `Read the file ${PROJECT}/notes.txt and tell me what it says.`,
      '--model',
      'team/claude',
      '--tools',
      'Read,Bash',
      '--allowedTools',
      'Read',
    ],
  },
  // A fixed thinking budget (thinking: enabled + budget_tokens) and a low effort.
  thinking: {
    args: ['-p', 'Think, then say hello', '--model', 'claude-sonnet-4-5', '--tools', 'Read', '--effort', 'low'],
    env: { MAX_THINKING_TOKENS: '4096' },
  },
  // `/context` counts the system prompt, tools and messages piece by piece (14 calls in 2.1.197).
  'count-tokens': { args: ['-p', '/context', '--model', 'team/claude'] },
  // Gateway model discovery: GET /v1/models?limit=1000 at start-up. Skipped by the CLI when
  // nonessential traffic is disabled, so only this scenario leaves that switch off.
  'model-discovery': {
    args: ['-p', 'Say hello', '--model', 'team/claude', '--tools', ''],
    env: { CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY: '1' },
    nonessential: true,
  },
};

function arg(name) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

function run(bin, args, env, timeoutMs) {
  return new Promise((done) => {
    const child = spawn(bin, args, { cwd: PROJECT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, out });
    });
  });
}

const bin = arg('claude');
const out = arg('out');
if (!bin || !out) {
  console.error('usage: capture-claude-code.mjs --claude BIN --out DIR [--only a,b]');
  process.exit(2);
}
const only = arg('only')?.split(',');
const rec = await startRecorder({
  secrets: [DUMMY_KEY],
  models: ['claude-sonnet-4-5', 'claude-opus-4-1', 'team/claude'],
  log: (l) => console.error(`  ${l}`),
});
try {
  for (const [name, s] of Object.entries(SCENARIOS)) {
    if (only && !only.includes(name)) continue;
    for (const d of [FAKE_HOME, PROJECT]) {
      rmSync(d, { recursive: true, force: true });
      mkdirSync(d, { recursive: true });
    }
    writeFileSync(join(PROJECT, 'notes.txt'), `${NOTE}\n`);
    const dir = resolve(out, name);
    rmSync(dir, { recursive: true, force: true });
    rec.setDir(dir);
    const env = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: FAKE_HOME,
      TERM: 'dumb',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      ...(s.nonessential ? {} : { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }),
      ANTHROPIC_BASE_URL: rec.url,
      ANTHROPIC_API_KEY: DUMMY_KEY,
      ...s.env,
    };
    console.error(`${name}: ${[bin, ...s.args].map((a) => JSON.stringify(a)).join(' ')}`);
    const r = await run(bin, s.args, env, 120_000);
    console.error(`  exit ${r.code}: ${r.out.trim().split('\n').slice(0, 3).join(' | ').slice(0, 200)}`);
  }
} finally {
  await rec.close();
}
