/** The `gateway` command line: wiring of commands, output and exit codes. */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { budgetsCommand } from './commands/budgets.js';
import { checkConfigCommand } from './commands/check-config.js';
import { countTokensCommand } from './commands/count-tokens.js';
import { modelsCommand } from './commands/models.js';
import { providersCommand } from './commands/providers.js';
import { serveCommand } from './commands/serve.js';
import { CliExit, ExitCode } from './exit-codes.js';
import { withExamples } from './help-examples.js';
import { processIO, type CliIO } from './io.js';

/** From package.json; the same relative path works from src/cli and dist/cli. */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export function createProgram(io: CliIO): Command {
  // Commander's own text (help, usage errors) ends in '\n'; io.out/err add one.
  const output = {
    writeOut: (s: string) => io.out(s.replace(/\n$/, '')),
    writeErr: (s: string) => io.err(s.replace(/\n$/, '')),
  };
  const program = new Command('gateway')
    .description('an LLM gateway: one local address for OpenAI- and Anthropic-format clients')
    .version(packageVersion(), '-V, --version')
    .showSuggestionAfterError();
  // addCommand does not pass settings down, so each command gets them itself: throw instead of
  // process.exit (tests run in-process) and write through io.
  for (const cmd of [
    program,
    serveCommand(io),
    checkConfigCommand(io),
    modelsCommand(io),
    countTokensCommand(io),
    budgetsCommand(io),
    providersCommand(io),
  ]) {
    withExamples(cmd.exitOverride().configureOutput(output));
    if (cmd !== program) program.addCommand(cmd);
  }
  return program;
}

/**
 * Runs the CLI and returns its exit code (never calls process.exit). `argv` is the user's
 * arguments (`['check-config', 'x.yaml']`) unless from is 'node' (process.argv).
 */
export async function run(argv: readonly string[], io: CliIO, from: 'user' | 'node' = 'user'): Promise<number> {
  try {
    await createProgram(io).parseAsync([...argv], { from });
    return ExitCode.OK;
  } catch (e) {
    if (e instanceof CliExit) return e.exitCode;
    if (e instanceof CommanderError) {
      // Help and --version exit 0; every other commander error is a usage error it already printed.
      return e.exitCode === 0 ? ExitCode.OK : ExitCode.INVALID;
    }
    io.err(`error: ${(e as Error)?.message ?? String(e)}`);
    if (io.env.GATEWAY_DEBUG && e instanceof Error && e.stack) io.err(e.stack);
    return ExitCode.FAILURE;
  }
}

export async function main(argv: string[]): Promise<void> {
  quietWhenReaderLeaves(process.stdout);
  quietWhenReaderLeaves(process.stderr);
  process.exitCode = await run(argv, processIO(), 'node');
}

/**
 * A reader that went away (`gateway --help | head -1`, a log pipe whose reader died under `serve`)
 * is not a failure: what is written after it is dropped. Without a listener its EPIPE was an
 * uncaught exception, with a stack trace, and under `serve` it took the gateway down.
 */
function quietWhenReaderLeaves(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
  });
}
