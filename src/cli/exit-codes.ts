/** Process exit codes, shared by every command so scripts can tell the failure kinds apart. */
export const ExitCode = {
  OK: 0,
  /** Unexpected or runtime failure: unreadable file, port in use, upstream/HTTP error. */
  FAILURE: 1,
  /** The user's input is wrong: invalid config, unknown key/role, bad flags. */
  INVALID: 2,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * Thrown by a command after it has printed its own message, to end with a given exit code.
 * Throwing (instead of calling process.exit) lets tests run commands in-process.
 */
export class CliExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
    this.name = 'CliExit';
  }
}
