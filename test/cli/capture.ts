/** In-process CLI runs with captured output, for the CLI tests. */
import { resolve } from 'node:path';
import { run } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const VALID = 'test/fixtures/cli/valid.yaml';
export const INVALID = 'test/fixtures/cli/invalid.yaml';
/** Written literally in valid.yaml (key id "laptop", role developer). */
export const PLAIN_KEY = 'test-key-123456';
/** valid.yaml holds only its sha256 (key id "ci", role admin). */
export const SHA_KEY = 'ci-key-abcdef123';

export interface Captured {
  io: CliIO;
  out: string[];
  err: string[];
  /** stdout and stderr, joined, for "never printed" checks. */
  all(): string;
}

export function capture(opts: { isTTY?: boolean; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Captured {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      out: (s) => out.push(s),
      err: (s) => err.push(s),
      isTTY: opts.isTTY ?? false,
      env: opts.env ?? {},
      cwd: opts.cwd ?? ROOT,
    },
    out,
    err,
    all: () => [...out, ...err].join('\n'),
  };
}

export async function cli(
  args: string[],
  opts: Parameters<typeof capture>[0] = {},
): Promise<Captured & { code: number }> {
  const c = capture(opts);
  const code = await run(args, c.io);
  return { ...c, code };
}

/** `file:line:col  path: message` as formatIssue prints it. */
export const ISSUE_LINE = /^(\S+):(\d+):(\d+) {2}(\S+: )?.+$/;
