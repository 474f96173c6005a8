/**
 * Where log lines go: stdout (or the CLI's output) by default, or a file (`log.file`). The lines
 * logged in one turn of the event loop are joined and written once, at the end of that turn: at
 * concurrency 32 about a dozen requests end per turn, and on stdout every write is a synchronous
 * write(2) on Linux files and pipes, so one write instead of a dozen saves ~2 µs of CPU and ~5 µs
 * of event-loop time per line (bench/logger.mjs). No line waits longer than its turn; close()
 * writes what is left.
 */

import { createWriteStream } from 'node:fs';

export interface LineWriter {
  /** One whole line, newline included. */
  write(line: string): void;
  /** Writes what is pending; for a file, resolves once the file has it all. */
  close(): Promise<void>;
}

/** The lines written in one turn, as one chunk to `sink` at the end of the turn (or on flush()). */
export function batchedLines(sink: (chunk: string) => void): { write(line: string): void; flush(): void } {
  let pending = '';
  const flush = () => {
    if (pending === '') return;
    const chunk = pending;
    pending = '';
    sink(chunk);
  };
  return {
    write(line) {
      if (pending === '') setImmediate(flush);
      pending += line;
    },
    flush,
  };
}

/**
 * Lines to stdout-like output (`out` writes synchronously, as process.stdout does to files,
 * pipes and terminals on Linux). Also flushed on process exit, so an exit without close() (a
 * crash, a second signal) loses no line, as before batching.
 */
export function outputWriter(out: (chunk: string) => void): LineWriter {
  const lines = batchedLines(out);
  process.on('exit', lines.flush);
  return {
    write: lines.write,
    close: async () => {
      process.off('exit', lines.flush);
      lines.flush();
    },
  };
}

/** Appends lines to a file without blocking the event loop (the stream writes them in the background). */
export function fileWriter(path: string): LineWriter {
  const stream = createWriteStream(path, { flags: 'a' });
  stream.on('error', (err) => process.stderr.write(`gateway: cannot write the log file ${path}: ${err.message}\n`));
  const lines = batchedLines((chunk) => void stream.write(chunk));
  return {
    write: lines.write,
    close: () => {
      lines.flush();
      return new Promise<void>((resolve) => stream.end(resolve));
    },
  };
}

let stdout: LineWriter | undefined;

/** The process's stdout, shared by every logger that writes there (one exit hook). */
export function stdoutWriter(): LineWriter {
  stdout ??= outputWriter((chunk) => void process.stdout.write(chunk));
  return stdout;
}
