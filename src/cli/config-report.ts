/** Loading the config for a command and reporting its issues the same way everywhere. */
import { loadConfig, resolveConfigPath } from '../config/load.js';
import { formatIssue } from '../config/issues.js';
import type { ConfigIssue, GatewayConfig, LoadResult } from '../config/types.js';
import { CliExit, ExitCode } from './exit-codes.js';
import { colors, displayPath, plural, type CliIO } from './io.js';

export interface LoadedConfig {
  /** Absolute path that was read. */
  path: string;
  /** The path as shown to the user (relative to cwd when inside it). */
  display: string;
  /** Issues with `file` rewritten to `display`, so messages carry the path the user knows. */
  issues: ConfigIssue[];
  config?: GatewayConfig;
  errors: number;
  warnings: number;
}

/**
 * Resolves and loads the config. A file that exists but cannot be read is not a config problem,
 * so it is reported here and ends the command with exit 1.
 */
export async function loadForCli(flag: string | undefined, io: CliIO): Promise<LoadedConfig> {
  const path = resolveConfigPath(flag, io.env, io.cwd);
  const display = displayPath(io, path);
  let result: LoadResult;
  try {
    result = await loadConfig(path, io.env);
  } catch (e) {
    io.err(`error: cannot read ${display}: ${(e as Error).message}`);
    throw new CliExit(ExitCode.FAILURE);
  }
  const issues = result.issues.map((i) => (i.file === path ? { ...i, file: display } : i));
  const errors = issues.filter((i) => i.severity === 'error').length;
  return { path, display, issues, config: result.config, errors, warnings: issues.length - errors };
}

/** Each issue as `file:line:col  path: message`; red errors and yellow warnings on a terminal. */
export function printIssues(issues: readonly ConfigIssue[], io: CliIO, write: (s: string) => void): void {
  const c = colors(io);
  for (const i of issues) write(i.severity === 'error' ? c.red(formatIssue(i)) : c.yellow(formatIssue(i)));
}

/** `gateway.yaml: 2 errors, 1 warning` or `gateway.yaml: valid (3 providers, 5 models, ...)`. */
export function summaryLine(l: LoadedConfig): string {
  const warnings = l.warnings > 0 ? plural(l.warnings, 'warning') : '';
  if (l.errors > 0 || !l.config)
    return `${l.display}: ${[plural(l.errors, 'error'), warnings].filter(Boolean).join(', ')}`;
  const c = l.config;
  const counts = [
    plural(c.providers.size, 'provider'),
    plural(c.models.size, 'model'),
    plural(c.aliases.size, 'alias', 'aliases'),
    plural(c.roles.size, 'role'),
    plural(c.keys.length, 'key'),
  ].join(', ');
  return `${l.display}: valid${warnings ? `, ${warnings}` : ''} (${counts})`;
}

/** A hint when no file was named and the default one does not exist. */
export function missingFileHint(l: LoadedConfig, flag: string | undefined, io: CliIO): string | undefined {
  const notFound = l.issues.length === 1 && l.issues[0].path === '' && l.issues[0].message === 'file not found';
  if (!notFound || flag || io.env.GATEWAY_CONFIG) return undefined;
  return 'hint: no config file was named and ./gateway.yaml does not exist; pass a path or set GATEWAY_CONFIG';
}

/**
 * For commands that need a usable config: issues and a summary go to stderr, and an invalid
 * config ends the command with exit 2. Warnings let it go on; only `serve` prints them
 * (`check-config` reports them itself): with `quiet`, the helper commands (models, count-tokens,
 * budgets) keep them to themselves and say only what concerns what they do.
 */
export async function requireConfig(
  flag: string | undefined,
  io: CliIO,
  opts: { quiet?: boolean } = {},
): Promise<LoadedConfig & { config: GatewayConfig }> {
  const l = await loadForCli(flag, io);
  printIssues(opts.quiet && l.config ? [] : l.issues, io, io.err);
  if (!l.config) {
    io.err(summaryLine(l));
    const hint = missingFileHint(l, flag, io);
    if (hint) io.err(hint);
    throw new CliExit(ExitCode.INVALID);
  }
  return l as LoadedConfig & { config: GatewayConfig };
}
