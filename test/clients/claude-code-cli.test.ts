/**
 * Opt-in: the real Claude Code CLI (`claude -p`) through the gateway to the strict upstream, on an
 * Anthropic-format, an OpenAI chat and an OpenAI Responses-only model, and on a model of every provider kind behind
 * its front (kind-rigs.ts, through cli-gateway.ts), by alias and by concrete id, streams as the CLI always asks.
 * Runs when a `claude` binary is found — CLAUDE_BIN, else `claude` on PATH — and is skipped with a notice otherwise:
 *
 *   CLAUDE_BIN=/path/to/claude npx vitest run test/clients/claude-code-cli.test.ts
 *
 * Cases waiting for a gateway fix are skipped; CC_PENDING=1 runs them too.
 * Each run gets a fresh fake HOME and project dir, telemetry and auto-update off, a 120 s limit.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../helpers/start-gateway.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { chatCalls } from '../helpers/kind-rigs.js';
import { CC_KEY, claudeCodeReply, DISCOVERABLE_ALIAS, PENDING, PLAIN_REPLY, TARGETS } from './claude-code-fixtures.js';
import { CLI_TARGETS, type CliGateway, type CliTarget, startCliGateway } from './cli-gateway.js';

function findClaude(): string | undefined {
  if (process.env.CLAUDE_BIN) return process.env.CLAUDE_BIN;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'claude'))) return join(dir, 'claude');
  }
  return undefined;
}

const CLAUDE = findClaude();
const VERSION = CLAUDE
  ? /(\d+)\.(\d+)\.(\d+)/.exec(spawnSync(CLAUDE, ['--version'], { encoding: 'utf8', timeout: 30_000 }).stdout ?? '')
  : null;
if (!CLAUDE)
  console.warn(
    'claude-code-cli.test.ts: skipped — no `claude` found (set CLAUDE_BIN=/path/to/claude or put it on PATH to run ' +
      'the real CLI through the gateway)',
  );
else console.warn(`claude-code-cli.test.ts: running ${CLAUDE} (${VERSION?.[0] ?? 'unknown version'})`);
/** Gateway model discovery exists in the CLI from this version on (verified with 2.1.197; absent in 2.1.112). */
const discovers =
  VERSION !== null && Number(VERSION[1]) * 1e6 + Number(VERSION[2]) * 1e3 + Number(VERSION[3]) >= 2_001_197;
/** CC_PENDING=1 runs the pending cases too. */
const RUN_PENDING = process.env.CC_PENDING === '1';
/** A format's or kind's cases wait for the same fixes as the replay's pending cases. */
const pending = (id: CliTarget['id']) => !RUN_PENDING && [...PENDING].some((k) => k.endsWith(`/${id}`));

let up: FakeUpstream;
let cli: CliGateway;
let gw: RunningGateway;
let root: string;

beforeAll(async () => {
  if (!CLAUDE) return;
  up = await startFakeUpstream({ handler: claudeCodeReply });
  cli = await startCliGateway(up);
  gw = cli.gw;
  root = mkdtempSync(join(tmpdir(), 'cc-cli-'));
});
beforeEach(() => up?.reset());
afterAll(async () => {
  await cli?.close();
  await up?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

let runs = 0;
interface Run {
  code: number | null;
  out: string;
  home: string;
  project: string;
}

/** One `claude` invocation with a fresh HOME and project dir; never outlives 120 s. */
function claude(args: string[], env: Record<string, string> = {}, opts: { nonessential?: boolean } = {}): Promise<Run> {
  const n = ++runs;
  const home = join(root, `home-${n}`);
  const project = join(root, `project-${n}`);
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'notes.txt'), 'The launch code is tangerine.\n');
  const fullEnv: Record<string, string> = {
    PATH: [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter),
    HOME: home,
    TERM: 'dumb',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    ...(opts.nonessential ? {} : { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }),
    ANTHROPIC_BASE_URL: gw.url,
    ...env,
  };
  if (!('ANTHROPIC_AUTH_TOKEN' in env) && !('ANTHROPIC_API_KEY' in env)) fullEnv.ANTHROPIC_API_KEY = CC_KEY;
  const finalArgs = args.map((a) => a.replace('$PROJECT', project));
  return new Promise((done) => {
    const child = spawn(CLAUDE!, finalArgs, { cwd: project, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, out, home, project });
    });
  });
}

describe.skipIf(!CLAUDE)('claude -p through the gateway', () => {
  describe.each(CLI_TARGETS.map((t) => [t.id, t] as const))('a model on %s', (_id, t) => {
    it.skipIf(pending(t.id)).each([t.alias, t.concrete])(
      '--model %s: a plain prompt',
      async (model) => {
        const r = await claude(['-p', 'Say hello', '--model', model]);
        expect(r.out).toContain(PLAIN_REPLY);
        expect(r.code, r.out).toBe(0);
        expect(chatCalls(up, t.format).length, 'the model calls reached the target’s upstream').toBeGreaterThan(0);
        expect(up.rejected.map((q) => q.error)).toEqual([]);
      },
      150_000,
    );

    it.skipIf(pending(t.id)).each([
      { model: t.alias, key: 'ANTHROPIC_AUTH_TOKEN' },
      { model: t.concrete, key: 'ANTHROPIC_API_KEY' },
    ])(
      '--model $model: a tool round trip (Read), key as $key',
      async ({ model, key }) => {
        const r = await claude(
          [
            '-p',
            'Read the file $PROJECT/notes.txt and tell me what it says.',
            '--model',
            model,
            '--tools',
            'Read,Bash',
            '--allowedTools',
            'Read',
          ],
          { [key]: CC_KEY },
        );
        expect(r.out).toContain('tangerine');
        expect(r.code, r.out).toBe(0);
        const calls = chatCalls(up, t.format);
        expect(calls.length).toBeGreaterThanOrEqual(2);
        // On Claude, the second call carries back the first answer's signed thinking block (the API requires it
        // in a thinking tool loop; 2.1.197 keeps it only when the answer named its model).
        const asked = calls.at(-1)!.body.messages?.at(-2).content[0];
        if (t.format === 'anthropic') expect(asked.type).toBe('thinking');
        if (t.format === 'bedrock') expect(asked.reasoningContent.reasoningText.signature).toMatch(/\S/);
        expect(up.rejected.map((q) => q.error)).toEqual([]);
      },
      150_000,
    );
  });

  it.skipIf(!discovers)(
    'model discovery reads GET /v1/models (Anthropic shape) and keeps the claude/… alias',
    async () => {
      const r = await claude(
        ['-p', 'Say hello', '--model', TARGETS.anthropic.alias, '--tools', ''],
        { CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY: '1' },
        { nonessential: true },
      );
      expect(r.code, r.out).toBe(0);
      const cache = JSON.parse(readFileSync(join(r.home, '.claude', 'cache', 'gateway-models.json'), 'utf8'));
      expect(cache.baseUrl).toBe(gw.url);
      expect(cache.models.map((m: { id: string }) => m.id)).toEqual([DISCOVERABLE_ALIAS]);
    },
    150_000,
  );

  it('no log line holds an upstream credential or the caller’s key', () => {
    const logs = cli.gw.logs.join('\n');
    expect(cli.gw.logs.length).toBeGreaterThan(0);
    for (const secret of [...cli.secrets(), CC_KEY]) expect(logs).not.toContain(secret);
  });
});
