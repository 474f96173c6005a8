/**
 * YAML syntax errors point at the line that is wrong, not where the parser noticed: one issue,
 * `file:line:col`, for over-indentation, an unclosed quote, a tab, an unclosed `{`/`[`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { cli } from './capture.js';

const dir = mkdtempSync(join(tmpdir(), 'gateway-yaml-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** check-config on `lines`, run from the temp dir: its stdout lines and exit code. */
async function check(lines: string[]): Promise<{ code: number; out: string[] }> {
  writeFileSync(join(dir, 'g.yaml'), `${lines.join('\n')}\n`);
  const r = await cli(['check-config', 'g.yaml'], { cwd: dir });
  return { code: r.code, out: r.out };
}

describe('YAML syntax errors point at the wrong line', () => {
  test.each([
    {
      what: 'a key indented deeper than the key: value line above it',
      lines: ['server:', '  host: 127.0.0.1', '   port: 4000', 'providers: {}'],
      at: '3:4',
      message:
        'this line is indented deeper than line 2, which already has a value: indent it like the keys next to it',
    },
    {
      what: 'a key indented deeper than the keys next to it, after a comment',
      lines: ['providers:', '  local:', '    api: mock', '    # models below', '     models: {}'],
      at: '5:6',
      message: 'All mapping items must start at the same column',
    },
    {
      what: 'a key indented less than the keys next to it',
      lines: ['server:', '  host: 127.0.0.1', ' port: 4000', 'providers: {}'],
      at: '3:2',
      message: 'All mapping items must start at the same column',
    },
    {
      what: 'the same after a blank line',
      lines: ['server:', '  host: 127.0.0.1', '', ' port: 4000', 'providers: {}'],
      at: '4:2',
      message: 'All mapping items must start at the same column',
    },
    {
      what: 'an unclosed double quote (the parser notices at the end of the file)',
      lines: ['server:', '  host: "127.0.0.1', '  port: 4000', 'providers:', '  local: { api: mock }'],
      at: '2:9',
      message: 'the " quote opened here is never closed',
    },
    {
      what: 'an unclosed single quote',
      lines: ['server:', "  host: '127.0.0.1", '  port: 4000'],
      at: '2:9',
      message: "the ' quote opened here is never closed",
    },
    {
      what: 'a tab used for indentation',
      lines: ['server:', '\thost: 127.0.0.1', '  port: 4000'],
      at: '2:1',
      message: 'Tabs are not allowed as indentation',
    },
    {
      what: 'an unclosed { (the parser notices on the next line)',
      lines: ['server: { host: 127.0.0.1, port: 4000', 'providers: {}'],
      at: '1:9',
      message: 'the "{" opened here is never closed with "}"',
    },
    {
      what: 'an unclosed [ inside a closed line',
      lines: ['providers:', '  local:', '    api: mock', '    models: [echo', '  other: 1'],
      at: '4:13',
      message: 'the "[" opened here is never closed with "]"',
    },
    {
      what: 'a } where ] was expected, on its own line',
      lines: ['roles:', '  dev: { models: ["local/*" }'],
      at: '2:29',
      message: 'Flow sequence in block collection must be sufficiently indented and end with a ]',
    },
    {
      what: 'a duplicate key',
      lines: ['providers: {}', 'providers: {}'],
      at: '2:1',
      message: 'Map keys must be unique',
    },
  ])('$what', async ({ lines, at, message }) => {
    const r = await check(lines);
    expect(r.code).toBe(2);
    expect(r.out).toEqual([`g.yaml:${at}  YAML syntax error: ${message}`, 'g.yaml: 1 error']);
  });

  test('the line above is named by number, never quoted (it may hold a key)', async () => {
    const r = await check([
      'keys:',
      '  - { id: a, role: dev, key: sk-literal-key-000111 }',
      'x:',
      '  y: sk-literal-key-000222',
      '    z: 1',
    ]);
    expect(r.out[0]).toBe(
      'g.yaml:5:5  YAML syntax error: this line is indented deeper than line 4, which already has a value: indent it ' +
        'like the keys next to it',
    );
    expect(r.out.join('\n')).not.toContain('sk-literal');
  });
});
