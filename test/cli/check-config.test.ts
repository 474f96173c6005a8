import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, INVALID, ISSUE_LINE, PLAIN_KEY, ROOT, VALID } from './capture.js';

const ESC = '\u001b[';

/** The role reaches openai/gpt-4o-mini only through its aliases: allowed, and said once. */
const ALIAS_REACH =
  `${VALID}:29:39  roles.developer.models[1]: warning: aliases allowed here route to models role ` +
  `"developer" may not name directly: team/fast → openai/gpt-4o-mini; team/cloud → openai/gpt-4o-mini`;

describe('gateway check-config', () => {
  test('a valid file exits 0, prints its warning and a summary with counts', async () => {
    const r = await cli(['check-config', VALID]);
    expect(r.code).toBe(0);
    expect(r.out).toEqual([
      `${VALID}:17:14  providers.openai.api_key: warning: environment variable OPENAI_API_KEY is not set; provider ` +
        `"openai" is unavailable`,
      ALIAS_REACH,
      `${VALID}: valid, 2 warnings (2 providers, 3 models, 2 aliases, 2 roles, 2 keys)`,
    ]);
    expect(r.err).toEqual([]);
  });

  test('with the key set only the alias-reach warning is left', async () => {
    const r = await cli(['check-config', VALID], { env: { OPENAI_API_KEY: 'sk-live-supersecret-999' } });
    expect(r.code).toBe(0);
    expect(r.out).toEqual([
      ALIAS_REACH,
      `${VALID}: valid, 1 warning (2 providers, 3 models, 2 aliases, 2 roles, 2 keys)`,
    ]);
    expect(r.all()).not.toContain('sk-live-supersecret-999');
  });

  test('an invalid file exits 2 with one positioned line per error and a summary', async () => {
    const r = await cli(['check-config', INVALID]);
    expect(r.code).toBe(2);
    const issues = r.out.slice(0, -1);
    expect(issues.length).toBeGreaterThanOrEqual(5);
    for (const line of issues) expect(line).toMatch(ISSUE_LINE);
    expect(issues).toContain(`${INVALID}:3:9  server.port: must be <= 65535`);
    expect(issues.some((l) => l.includes('keys[0].role: unknown role "develper" (did you mean "developer"?)'))).toBe(
      true,
    );
    expect(issues.some((l) => l.includes('unknown model "local/ecko"'))).toBe(true);
    expect(r.out.at(-1)).toBe(`${INVALID}: ${issues.length} errors`);
    expect(r.all()).not.toContain(ESC);
    expect(r.all()).not.toContain(PLAIN_KEY);
  });

  test('--json prints only a parseable report on stdout', async () => {
    const bad = await cli(['check-config', INVALID, '--json']);
    expect(bad.code).toBe(2);
    expect(bad.out).toHaveLength(1);
    const report = JSON.parse(bad.out[0]) as {
      file: string;
      valid: boolean;
      errors: number;
      warnings: number;
      issues: Array<Record<string, unknown>>;
    };
    expect(report).toMatchObject({ file: INVALID, valid: false, warnings: 0 });
    expect(report.errors).toBe(report.issues.length);
    expect(report.issues[0]).toEqual({
      severity: 'error',
      file: INVALID,
      line: 3,
      col: 9,
      path: 'server.port',
      message: 'must be <= 65535',
    });

    const good = await cli(['check-config', VALID, '--json']);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.out.join('\n'))).toMatchObject({ file: VALID, valid: true, errors: 0, warnings: 2 });
    expect(good.err).toEqual([]);
    expect(good.all()).not.toContain(PLAIN_KEY);
  });

  test('colours on a terminal only: errors red, warnings yellow', async () => {
    const bad = await cli(['check-config', INVALID], { isTTY: true });
    expect(bad.out[0]).toContain(`${ESC}31m`);
    const good = await cli(['check-config', VALID], { isTTY: true });
    expect(good.out[0]).toContain(`${ESC}33m`);
    const noColor = await cli(['check-config', INVALID], { isTTY: true, env: { NO_COLOR: '1' } });
    expect(noColor.all()).not.toContain(ESC);
  });

  test('the file defaults to $GATEWAY_CONFIG, resolved against cwd', async () => {
    const r = await cli(['check-config'], { env: { GATEWAY_CONFIG: VALID } });
    expect(r.code).toBe(0);
    expect(r.out.at(-1)).toMatch(/^test\/fixtures\/cli\/valid\.yaml: valid/);
  });

  test('a missing default file is a config error (2) with a hint', async () => {
    const r = await cli(['check-config'], { cwd: mkdtempSync(join(tmpdir(), 'gw-cli-')) });
    expect(r.code).toBe(2);
    expect(r.out[0]).toBe('gateway.example.yaml:1:1  file not found');
    expect(r.out.at(-1)).toMatch(/^hint: .*GATEWAY_CONFIG/);
  });

  test('a file that cannot be read is an unexpected failure (1)', async () => {
    const r = await cli(['check-config', 'test/fixtures/cli']);
    expect(r.code).toBe(1);
    expect(r.out).toEqual([]);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/^error: cannot read test\/fixtures\/cli: /);
  });

  test('an azure-openai provider: byok is refused with entra, the client secret never printed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-cli-'));
    const file = join(dir, 'azure.yaml');
    const config = (byok: string) =>
      'providers:\n' +
      '  az:\n' +
      '    api: azure-openai\n' +
      '    resource: contoso\n' +
      '    api_version: "2024-10-21"\n' +
      `    byok: ${byok}\n` +
      '    entra: { tenant_id: t, client_id: c, client_secret: "${AZ_SECRET}" }\n' +
      '    models: { gpt-4o: { context_window: 128000 } }\n' +
      'roles: { all: { models: ["*"] } }\n' +
      'keys: [{ id: k, key: test-key-abcdef, role: all }]\n';
    const env = { AZ_SECRET: 'entra-secret-never-printed' };
    writeFileSync(file, config('optional'));
    const bad = await cli(['check-config', file], { env });
    expect(bad.code).toBe(2);
    expect(bad.out).toEqual([
      `${file}:6:11  providers.az.byok: must be never on a provider that signs in with entra`,
      `${file}: 1 error`,
    ]);
    writeFileSync(file, config('never'));
    const good = await cli(['check-config', file], { env });
    expect(good.code).toBe(0);
    expect(good.out).toEqual([`${file}: valid (1 provider, 1 model, 0 aliases, 1 role, 1 key)`]);
    expect(bad.all() + good.all()).not.toContain('entra-secret-never-printed');
  });

  test('--config / -c names the file like the argument does; two different files are a usage error', async () => {
    const positional = await cli(['check-config', VALID]);
    for (const args of [['--config', VALID], ['-c', VALID], [VALID, '--config', VALID], [`--config=${VALID}`]]) {
      const r = await cli(['check-config', ...args]);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.out).toEqual(positional.out);
    }
    expect((await cli(['check-config', '-c', INVALID])).code).toBe(2);
    const both = await cli(['check-config', VALID, '--config', INVALID]);
    expect(both.code).toBe(2);
    expect(both.out).toEqual([]);
    expect(both.err).toEqual([`error: two config files named (${VALID} and --config ${INVALID}): name one`]);
  });

  test('usage errors exit 2; --version exits 0', async () => {
    expect((await cli(['check-config', '--bogus'])).code).toBe(2);
    expect((await cli(['no-such-command'])).code).toBe(2);
    const v = await cli(['--version']);
    expect(v.code).toBe(0);
    expect(v.out).toEqual([
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
    ]);
  });
});
