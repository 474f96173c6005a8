/**
 * Where commands write and what they know about their surroundings. Commands never touch
 * process.* directly, so tests can run them in-process with a capturing CliIO.
 */
import { relative, isAbsolute } from 'node:path';
import { Chalk, type ChalkInstance } from 'chalk';

export interface CliIO {
  /** Prints one line to stdout (a newline is appended). */
  out(s: string): void;
  /** Prints one line to stderr (a newline is appended). */
  err(s: string): void;
  /** Whether stdout is a terminal: colours and spinners only then. */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Reads all of standard input (for commands taking `-`); absent when there is none. */
  stdin?: () => Promise<string>;
}

export function processIO(): CliIO {
  return {
    out: (s) => void process.stdout.write(`${s}\n`),
    err: (s) => void process.stderr.write(`${s}\n`),
    isTTY: process.stdout.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
    stdin: readProcessStdin,
  };
}

async function readProcessStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('reading standard input (end it with Ctrl-D)\n');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Colours on a terminal, plain text otherwise (pipes, CI logs, tests); NO_COLOR is honoured. */
export function colors(io: CliIO): ChalkInstance {
  const off = !io.isTTY || (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '');
  return new Chalk({ level: off ? 0 : 1 });
}

/** A path as the user would write it: relative to cwd when inside it, else absolute. */
export function displayPath(io: CliIO, file: string): string {
  const rel = relative(io.cwd, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/** `1 error`, `2 errors`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/**
 * Columns padded to their widest cell (two spaces apart, last column unpadded), header first.
 * Cells must be plain text; colour whole lines afterwards so widths stay right.
 */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, c) => (c === cells.length - 1 ? cell : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
