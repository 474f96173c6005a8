/**
 * `gateway providers`: checks every configured provider (or those named) from the terminal:
 * credentials, reachability and latency, and with --probe a one-token request per model. Exit 0
 * when all are healthy, 1 when any failed, 2 for a bad config or bad flags.
 */
import { Command, InvalidArgumentError } from 'commander';
import ora, { type Ora } from 'ora';
import type { GatewayConfig, ProviderConfig } from '../../config/types.js';
import { UpstreamPool } from '../../upstream/client.js';
import { requireConfig } from '../config-report.js';
import { CliExit, ExitCode } from '../exit-codes.js';
import { colors, table, type CliIO } from '../io.js';
import { checkProvider, type ProviderCheck } from '../provider-check.js';

export interface ProvidersOptions {
  config?: string;
  probe?: boolean;
  json?: boolean;
  timeoutMs: number;
  provider?: string[];
}

const DEFAULT_TIMEOUT_MS = 5000;
/** Requests in flight at once, across all providers and models. */
const MAX_PARALLEL = 8;

function parseTimeout(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > 600_000) throw new InvalidArgumentError('must be an integer from 1 to 600000');
  return n;
}

export function providersCommand(io: CliIO): Command {
  return new Command('providers')
    .description('check each provider: credentials, endpoint reachable, latency (and, with --probe, each model)')
    .option('-c, --config <file>', 'config file (default: $GATEWAY_CONFIG, ./gateway.yaml, ./gateway.example.yaml)')
    .option('--probe', 'also send each model a one-token request (this costs tokens)')
    .option('--json', 'print one JSON document instead of a table')
    .option('--timeout-ms <ms>', 'time limit of each request', parseTimeout, DEFAULT_TIMEOUT_MS)
    .option('-p, --provider <id...>', 'check only these providers')
    .action(async (opts: ProvidersOptions) => {
      const checks = await runChecks(opts, io);
      printChecks(checks, opts, io);
      if (checks.some((c) => c.status !== 'ok')) throw new CliExit(ExitCode.FAILURE);
    });
}

export async function runChecks(opts: ProvidersOptions, io: CliIO): Promise<ProviderCheck[]> {
  const { config, display } = await requireConfig(opts.config, io, { quiet: true });
  const providers = selectProviders(config, opts.provider, display, io);
  const pool = new UpstreamPool();
  const progress = opts.json ? undefined : startProgress(providers, io);
  const limit = taskLimit(MAX_PARALLEL);
  try {
    return await Promise.all(
      providers.map(async (p) => {
        const check = await checkProvider(p, { timeoutMs: opts.timeoutMs, probe: opts.probe === true, pool, limit });
        progress?.done(check);
        return check;
      }),
    );
  } finally {
    progress?.stop();
    await pool.close();
  }
}

function selectProviders(
  config: GatewayConfig,
  ids: readonly string[] | undefined,
  display: string,
  io: CliIO,
): ProviderConfig[] {
  if (!ids) return [...config.providers.values()];
  const unknown = ids.filter((id) => !config.providers.has(id));
  if (unknown.length > 0) {
    const known = [...config.providers.keys()].join(', ') || 'none';
    io.err(`error: unknown provider ${unknown.map((id) => `"${id}"`).join(', ')} (providers in ${display}: ${known})`);
    throw new CliExit(ExitCode.INVALID);
  }
  return [...new Set(ids)].map((id) => config.providers.get(id)!);
}

/** At most `n` tasks running at once; the others wait their turn in order. */
function taskLimit(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= n) await new Promise<void>((r) => waiting.push(r));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

interface Progress {
  done(check: ProviderCheck): void;
  stop(): void;
}

/**
 * On a terminal, one spinner line naming the providers still being checked; each provider's line
 * stays once it is done. Elsewhere a plain line per provider as it finishes, on stderr (stdout is
 * the table's).
 */
function startProgress(providers: readonly ProviderConfig[], io: CliIO): Progress {
  const pending = new Set(providers.map((p) => p.id));
  const summary = (c: ProviderCheck) =>
    `${c.provider}: ${c.status}${c.latencyMs !== undefined ? ` (${c.latencyMs} ms)` : ''}`;
  // ora writes to stderr itself and needs a known width (a 0-column pty makes it loop), as in serve.
  const tty = io.isTTY && process.stderr.isTTY && (process.stderr.columns ?? 0) > 0;
  if (!tty) return { done: (c) => io.err(summary(c)), stop: () => undefined };
  const text = () => `checking ${[...pending].join(', ')}`;
  let spinner: Ora | undefined = ora({ text: text(), stream: process.stderr }).start();
  return {
    done(c) {
      pending.delete(c.provider);
      if (!spinner) return;
      if (c.status === 'ok') spinner.succeed(summary(c));
      else spinner.fail(summary(c));
      spinner = pending.size > 0 ? ora({ text: text(), stream: process.stderr }).start() : undefined;
    },
    stop: () => spinner?.stop(),
  };
}

export function printChecks(checks: readonly ProviderCheck[], opts: Pick<ProvidersOptions, 'json'>, io: CliIO): void {
  if (opts.json) {
    io.out(JSON.stringify({ healthy: checks.every((c) => c.status === 'ok'), providers: checks }, null, 2));
    return;
  }
  if (checks.length === 0) {
    io.out('no providers are configured');
    return;
  }
  const c = colors(io);
  const rows: { cells: string[]; ok: boolean | undefined }[] = [];
  for (const check of checks) {
    rows.push({
      cells: [check.provider, check.kind, check.status, latency(check.latencyMs), check.detail],
      ok: check.status === 'ok',
    });
    for (const m of check.models ?? []) {
      rows.push({
        cells: [`  ${m.model}`, 'model', m.status, latency(m.latencyMs), m.detail],
        ok: m.status === 'skipped' ? undefined : m.status === 'ok',
      });
    }
  }
  const [header, ...lines] = table(
    ['PROVIDER', 'KIND', 'STATUS', 'LATENCY', 'DETAIL'],
    rows.map((r) => r.cells),
  );
  io.out(c.bold(header));
  lines.forEach((line, i) => {
    const ok = rows[i].ok;
    io.out(ok === undefined ? c.dim(line) : ok ? c.green(line) : c.red(line));
  });
}

function latency(ms: number | undefined): string {
  return ms === undefined ? '-' : `${ms} ms`;
}
