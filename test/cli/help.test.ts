/** Every command's --help ends with examples, and every flag an example uses is one it has. */
import { describe, expect, test } from 'vitest';
import { EXAMPLES } from '../../src/cli/help-examples.js';
import { createProgram } from '../../src/cli/main.js';
import { capture, cli } from './capture.js';

const COMMANDS = ['serve', 'check-config', 'models', 'count-tokens', 'budgets', 'providers'];

describe('--help', () => {
  test.each(COMMANDS)('%s --help exits 0 and ends with its examples', async (name) => {
    const r = await cli([name, '--help']);
    expect(r.code).toBe(0);
    const text = r.out.join('\n');
    expect(text).toContain(`Usage: gateway ${name}`);
    const examples = text.slice(text.indexOf('\nExamples:\n'));
    expect(examples.length).toBeGreaterThan(20);
    for (const [line] of EXAMPLES[name]) expect(examples).toContain(`$ ${line}`);
  });

  test('gateway --help lists the commands, then examples', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    const text = r.out.join('\n');
    for (const name of COMMANDS) expect(text).toContain(name);
    expect(text).toMatch(/Examples:\n {2}# .+\n {2}\$ gateway serve\n/);
  });

  test('every flag in an example is an option of its command', () => {
    const program = createProgram(capture().io);
    for (const name of COMMANDS) {
      const cmd = program.commands.find((c) => c.name() === name)!;
      const known = new Set(cmd.options.flatMap((o) => [o.short, o.long]).filter(Boolean));
      for (const [line] of EXAMPLES[name]) {
        const invocation = line.slice(line.indexOf(`gateway ${name}`));
        expect(invocation, line).toMatch(new RegExp(`^gateway ${name}\\b`));
        for (const flag of invocation.match(/(?<=\s)--?[a-z][\w-]*/g) ?? [])
          expect(known.has(flag), `${line}: ${flag}`).toBe(true);
      }
    }
  });
});
