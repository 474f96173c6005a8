/** `gateway check-config [file | --config file] [--json]`: validate a config file without starting anything. */
import { Command } from 'commander';
import { loadForCli, missingFileHint, printIssues, summaryLine } from '../config-report.js';
import { CliExit, ExitCode } from '../exit-codes.js';
import { colors, type CliIO } from '../io.js';

interface Options {
  config?: string;
  json?: boolean;
}

export function checkConfigCommand(io: CliIO): Command {
  return (
    new Command('check-config')
      .description('validate a config file and report every problem with its line and column')
      .argument('[file]', 'config file (default: $GATEWAY_CONFIG, ./gateway.yaml, ./gateway.example.yaml)')
      // As on every other command, so one habit works everywhere.
      .option('-c, --config <file>', 'config file, as the [file] argument')
      .option('--json', 'print the result as JSON on stdout')
      .action(async (positional: string | undefined, opts: Options) => {
        if (positional !== undefined && opts.config !== undefined && positional !== opts.config) {
          io.err(`error: two config files named (${positional} and --config ${opts.config}): name one`);
          throw new CliExit(ExitCode.INVALID);
        }
        const file = positional ?? opts.config;
        const l = await loadForCli(file, io);
        if (opts.json) {
          const report = {
            file: l.display,
            valid: l.errors === 0,
            errors: l.errors,
            warnings: l.warnings,
            issues: l.issues,
          };
          io.out(JSON.stringify(report, null, 2));
        } else {
          printIssues(l.issues, io, io.out);
          const c = colors(io);
          io.out(l.errors > 0 ? c.bold.red(summaryLine(l)) : c.green(summaryLine(l)));
          const hint = missingFileHint(l, file, io);
          if (hint) io.out(hint);
        }
        if (l.errors > 0) throw new CliExit(ExitCode.INVALID);
      })
  );
}
