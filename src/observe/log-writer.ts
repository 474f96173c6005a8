/**
 * Where log lines go: stdout (or the CLI's output) by default, or a file (`log.file`).
 * - stdout: the lines logged in one turn of the event loop are joined and written once, at the
 *   end of that turn: at concurrency 32 about a dozen requests end per turn, and every write is a
 *   synchronous write(2) on Linux files and pipes, so one write instead of a dozen saves ~2 µs of
 *   CPU and ~5 µs of event-loop time per line (bench/logger.mjs).
 * - a file: lines are gathered for up to FILE_FLUSH_MS (or FILE_FLUSH_BYTES) and appended in one
 *   write. A file write runs on libuv's thread pool, and each one costs a hand-off to a pool
 *   thread and back (futex wake-ups, context switches on a busy core): once per turn, that was the
 *   largest single cost of the production bench lane (~12 µs per request in the profile).
 * close() writes what is left; an exit without close() still writes it (synchronously).
 */

import { createWriteStream, writeSync } from 'node:fs';

/** A file's lines wait at most this long before they are written. */
export const FILE_FLUSH_MS = 100;
/** …or until this many characters are waiting. */
export const FILE_FLUSH_BYTES = 256 * 1024;

export interface LineWriter {
  /** One whole line, newline included. */
  write(line: string): void;
  /** Writes what is pending; for a file, resolves once the file has it all. */
  close(): Promise<void>;
}

/** Lines waiting longer than one turn: sent after `delayMs`, or at once past `maxChars`. */
export interface BatchTiming {
  delayMs: number;
  maxChars: number;
}

/**
 * Lines joined into one chunk for `sink`: at the end of the turn they were written in, or per
 * `timing`; flush() sends what waits now, take() hands it over instead.
 */
export function batchedLines(
  sink: (chunk: string) => void,
  timing?: BatchTiming,
): { write(line: string): void; flush(): void; take(): string } {
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const take = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const chunk = pending;
    pending = '';
    return chunk;
  };
  const flush = () => {
    const chunk = take();
    if (chunk !== '') sink(chunk);
  };
  return {
    write(line) {
      const first = pending === '';
      pending += line;
      if (!timing) {
        if (first) setImmediate(flush);
      } else if (pending.length >= timing.maxChars) flush();
      else if (first) timer = setTimeout(flush, timing.delayMs).unref();
    },
    flush,
    take,
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

/**
 * Appends lines to a file without blocking the event loop: gathered for up to FILE_FLUSH_MS,
 * then written in the background by the stream.
 */
export function fileWriter(path: string): LineWriter {
  const stream = createWriteStream(path, { flags: 'a' });
  stream.on('error', (err) => process.stderr.write(`gateway: cannot write the log file ${path}: ${err.message}\n`));
  const lines = batchedLines((chunk) => void stream.write(chunk), {
    delayMs: FILE_FLUSH_MS,
    maxChars: FILE_FLUSH_BYTES,
  });
  // The process ends without close() (a crash, a second signal): what is waiting is written now.
  const onExit = () => {
    const rest = lines.take();
    const fd = (stream as unknown as { fd?: number | null }).fd;
    if (rest !== '' && typeof fd === 'number') writeSync(fd, rest);
  };
  process.on('exit', onExit);
  return {
    write: lines.write,
    close: () => {
      process.off('exit', onExit);
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
