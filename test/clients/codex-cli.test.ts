/**
 * Opt-in: the real Codex CLI (`codex exec`) through POST /v1/responses to the strict fake upstream,
 * on an Anthropic-format model, an OpenAI chat model, a Responses model and a model of every provider
 * kind behind its front (kind-rigs.ts, through cli-gateway.ts): a plain prompt, and a round where
 * the model asks Codex's shell tool to run `echo hello` and answers from its output.
 * Runs when a `codex` binary is found — CODEX_BIN, else `codex` on PATH — and is skipped with a
 * notice otherwise:
 *
 *   CODEX_BIN=/path/to/node_modules/.bin/codex npx vitest run test/clients/codex-cli.test.ts
 *
 * Each run gets a fresh HOME holding only `.codex/config.toml` (a model provider pointing at the
 * gateway) and a fresh working directory, and never outlives 120 s.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Content, UpstreamCall } from '../helpers/fake-upstream.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { chatCalls } from '../helpers/kind-rigs.js';
import { CC_KEY } from './claude-code-fixtures.js';
import { CLI_TARGETS, type CliGateway, startCliGateway } from './cli-gateway.js';

function findCodex(): string | undefined {
  if (process.env.CODEX_BIN) return process.env.CODEX_BIN;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'codex'))) return join(dir, 'codex');
  }
  return undefined;
}

const CODEX = findCodex();
if (!CODEX) process.stderr.write('NOTICE: skipping the Codex CLI tests (no codex binary: set CODEX_BIN)\n');

const PLAIN = 'Hello from the strict upstream to Codex.';

/** The texts of what the upstream received, whatever its format (Gemini's `contents`), joined. */
function received(call: UpstreamCall): string {
  return JSON.stringify(call.body?.messages ?? call.body?.input ?? call.body?.contents ?? '');
}

/** The names of the tools offered, whatever the format (Gemini's functionDeclarations, Converse's toolSpec). */
function offered(call: UpstreamCall): string[] {
  const tools: any[] = [call.body?.tools, call.body?.toolConfig?.tools].find(Array.isArray) ?? [];
  return tools.flatMap(
    (t) => t?.functionDeclarations?.map((f: any) => f?.name) ?? [t?.name ?? t?.function?.name ?? t?.toolSpec?.name],
  );
}

/**
 * What a model would answer Codex: after a tool output, `the tool printed: <output>`; a prompt
 * asking to run `echo hello` with exec_command offered → that call; otherwise PLAIN.
 */
function codexReply(call: UpstreamCall): Content | undefined {
  const text = received(call);
  const out = /Output:\\n([^"\\]*)/.exec(text);
  if (out) return { text: `the tool printed: ${out[1]}` };
  if (offered(call).includes('exec_command') && text.includes('run `echo hello`')) {
    return { toolCalls: [{ name: 'exec_command', args: { cmd: 'echo hello' }, id: 'call_codex_live_1' }] };
  }
  return { text: PLAIN };
}

let up: FakeUpstream;
let cli: CliGateway;
let root: string;

beforeAll(async () => {
  if (!CODEX) return;
  up = await startFakeUpstream({ handler: codexReply });
  cli = await startCliGateway(up);
  root = mkdtempSync(join(tmpdir(), 'codex-cli-'));
});
afterAll(async () => {
  await cli?.close();
  await up?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

let runs = 0;
function codex(model: string, prompt: string): Promise<{ code: number | string | null; out: string }> {
  const n = ++runs;
  const home = join(root, `home-${n}`);
  const work = join(root, `work-${n}`);
  mkdirSync(join(home, '.codex'), { recursive: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(
    join(home, '.codex', 'config.toml'),
    [
      `model = ${JSON.stringify(model)}`,
      'model_provider = "gateway"',
      '',
      '[model_providers.gateway]',
      'name = "gateway"',
      `base_url = ${JSON.stringify(`${cli.gw.url}/v1`)}`,
      'env_key = "GATEWAY_KEY"',
      'wire_api = "responses"',
      '',
    ].join('\n'),
  );
  const env = { PATH: process.env.PATH ?? '', HOME: home, TERM: 'dumb', GATEWAY_KEY: CC_KEY };
  const args = ['exec', '--skip-git-repo-check', '-C', work, '--sandbox', 'workspace-write', prompt];
  return new Promise((done) => {
    // Its own process group: the npm launcher starts the native binary, which must end with it.
    const child = spawn(CODEX!, args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 120_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code: code ?? signal, out });
    });
  });
}

const TARGETS = CLI_TARGETS.map((t) => [t.id, t] as const);

describe.skipIf(!CODEX)('codex exec through the gateway', () => {
  it.each(TARGETS)('a plain prompt on a model on %s', { timeout: 130_000 }, async (_id, t) => {
    up.reset();
    const r = await codex(t.alias, 'say hi');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(PLAIN);
    // Every call reached the target's upstream, in its format (through the kind's front), as a model call.
    expect(up.received.length).toBeGreaterThan(0);
    expect(chatCalls(up, t.format)).toHaveLength(up.received.length);
    for (const c of up.received) expect(c.status, c.error).toBe(200);
  });

  it.each(TARGETS)('a shell round on a model on %s', { timeout: 130_000 }, async (_id, t) => {
    up.reset();
    const r = await codex(t.alias, 'run `echo hello` and tell me what it printed');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('the tool printed: hello');
    expect(up.received.length).toBeGreaterThanOrEqual(2);
    expect(chatCalls(up, t.format)).toHaveLength(up.received.length);
    for (const c of up.received) expect(c.status, c.error).toBe(200);
  });

  it('no log line holds an upstream credential or the caller’s key', () => {
    const logs = cli.gw.logs.join('\n');
    expect(cli.gw.logs.length).toBeGreaterThan(0);
    for (const secret of [...cli.secrets(), CC_KEY]) expect(logs).not.toContain(secret);
  });
});
