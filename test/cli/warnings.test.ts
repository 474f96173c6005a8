/**
 * Config warnings (a provider whose key variable is unset, an alias reaching past its role…)
 * come from `serve` and `check-config` only. `models`, `count-tokens` and `budgets` stay quiet,
 * but for count-tokens naming a model that cannot be served.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { startServe, type RunningServe } from '../../src/cli/commands/serve.js';
import { silentLogger } from '../../src/observe/logger.js';
import { capture, cli, ROOT, VALID } from './capture.js';

const ANTHROPIC = join(ROOT, 'test/fixtures/cli/count-anthropic.json');
const UNSET = 'environment variable OPENAI_API_KEY is not set';

// valid.yaml, with its state file in a temp dir (budgets reads it).
const dir = mkdtempSync(join(tmpdir(), 'gateway-warnings-'));
const config = join(dir, 'gateway.yaml');
writeFileSync(config, `${readFileSync(join(ROOT, VALID), 'utf8')}\nstate: { path: ${join(dir, 'state.json')} }\n`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('who prints config warnings', () => {
  let running: RunningServe | undefined;
  afterEach(async () => {
    await running?.close(100);
    running = undefined;
  });

  test('serve and check-config do', async () => {
    const c = capture();
    running = await startServe({ config, port: 0, logger: silentLogger }, c.io);
    expect(c.err.filter((l) => l.includes('warning:'))).toHaveLength(2);
    expect(c.err.join('\n')).toContain(UNSET);
    const check = await cli(['check-config', '-c', config]);
    expect(check.out.join('\n')).toContain(UNSET);
  });

  test.each([
    ['models', ['models', '-c', config]],
    ['models --role', ['models', '-c', config, '--role', 'developer', '--json']],
    ['budgets', ['budgets', '-c', config]],
    ['count-tokens, an available model', ['count-tokens', '-c', config, '-m', 'local/echo', ANTHROPIC]],
    [
      'count-tokens, an alias served by an available target',
      ['count-tokens', '-c', config, '-m', 'team/fast', ANTHROPIC],
    ],
    [
      'count-tokens, an alias whose fallback is available',
      ['count-tokens', '-c', config, '-m', 'team/cloud', ANTHROPIC],
    ],
  ])('%s stays quiet', async (_, args) => {
    const r = await cli(args);
    expect(r.code).toBe(0);
    expect(r.err).toEqual([]);
  });

  test('count-tokens warns when the model it counts for cannot be served', async () => {
    const r = await cli(['count-tokens', '-c', config, '-m', 'openai/gpt-4o-mini', ANTHROPIC]);
    expect(r.code).toBe(0);
    expect(r.err).toEqual([
      `warning: provider "openai" is unavailable (${UNSET}): "openai/gpt-4o-mini" cannot be served until it is ` +
        `configured`,
    ]);
    expect(r.out[0]).toMatch(/tokens {2}\(model openai\/gpt-4o-mini/);
  });

  test('an invalid config is still reported by every command', async () => {
    for (const cmd of [['models'], ['budgets'], ['count-tokens', '-m', 'local/echo', ANTHROPIC]]) {
      const r = await cli([cmd[0], '-c', 'test/fixtures/cli/invalid.yaml', ...cmd.slice(1)]);
      expect(r.code, cmd[0]).toBe(2);
      expect(r.err.at(-1)).toMatch(/invalid\.yaml: \d+ errors$/);
    }
  });
});
