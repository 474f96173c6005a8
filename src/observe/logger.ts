/**
 * Structured logging: one JSON object per line. Secrets never reach here: callers pass key ids,
 * never keys, and error messages from the catalogue.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
  /** Whether a line at this level would be written (skip building it otherwise). */
  enabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const min = RANK[opts.level ?? 'info'];
  const write = opts.write ?? ((line: string) => process.stdout.write(line));
  return {
    log(level, msg, fields) {
      if (RANK[level] < min) return;
      write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }) + '\n');
    },
    enabled: (level) => RANK[level] >= min,
  };
}

/** For tests and embedding: drops everything. */
export const silentLogger: Logger = { log() {}, enabled: () => false };
