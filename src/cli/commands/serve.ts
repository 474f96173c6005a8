/**
 * `gateway serve`: load the config, start the HTTP server, print where it listens and a curl
 * line to try it, and shut down gracefully on SIGINT/SIGTERM.
 */
import { Command, InvalidArgumentError } from 'commander';
import ora from 'ora';
import type { GatewayConfig } from '../../config/types.js';
import { readFileSync, watch } from 'node:fs';
import { formatIssue } from '../../config/load.js';
import { fileWriter, outputWriter } from '../../observe/log-writer.js';
import { createLogger, type Logger } from '../../observe/logger.js';
import { listModels } from '../../routing/list-models.js';
import { createGateway } from '../../server/http.js';
import { loadForCli, requireConfig } from '../config-report.js';
import { pickCurlKey, shellKey } from '../curl-key.js';
import { CliExit, ExitCode } from '../exit-codes.js';
import { tuneHeapForServing } from '../heap-tuning.js';
import { colors, type CliIO } from '../io.js';

export interface ServeOptions {
  config?: string;
  host?: string;
  port?: number;
  /** Reload the config when the file changes (as on SIGHUP). */
  watch?: boolean;
  /** Request logs; defaults to JSON lines on io.out. */
  logger?: Logger;
}

export interface RunningServe {
  /** Base URL, e.g. http://127.0.0.1:4000. */
  url: string;
  config: GatewayConfig;
  /** Re-reads the config file: applied when valid, else the problems are logged and the old config stays. */
  reload(): Promise<boolean>;
  /** Graceful close (waits for in-flight requests up to graceMs, default from the config). */
  close(graceMs?: number): Promise<void>;
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 65535) throw new InvalidArgumentError('must be an integer from 0 to 65535');
  return n;
}

export function serveCommand(io: CliIO): Command {
  return new Command('serve')
    .description('start the gateway')
    .option('-c, --config <file>', 'config file (default: $GATEWAY_CONFIG, ./gateway.yaml, ./gateway.example.yaml)')
    .option('--host <host>', 'address to listen on (default: server.host from the config)')
    .option(
      '-p, --port <port>',
      'port to listen on, 0 for any free port (default: server.port from the config)',
      parsePort,
    )
    .option('-w, --watch', 'reload the config when its file changes (SIGHUP always reloads)')
    .action(async (opts: ServeOptions) => {
      tuneHeapForServing();
      const running = await startServe(opts, io);
      installShutdown(running, io);
      process.on('SIGHUP', () => void running.reload());
      // Resolving here leaves the process alive on the listening server until a signal arrives.
    });
}

/**
 * Everything `serve` does except signal handling, so tests can start a real server in-process
 * and close it. Failures are printed and thrown as CliExit (2: invalid config, 1: cannot listen).
 */
export async function startServe(opts: ServeOptions, io: CliIO): Promise<RunningServe> {
  const { config, display, path } = await requireConfig(opts.config, io);
  const host = opts.host ?? config.server.host;
  const port = opts.port ?? config.server.port;
  // ora writes to stderr itself; it also needs a known width (a 0-column pty makes it loop).
  const spinnerOk = io.isTTY && process.stderr.isTTY && (process.stderr.columns ?? 0) > 0;
  const spinner = spinnerOk
    ? ora({ text: `starting gateway on ${host}:${port}`, stream: process.stderr }).start()
    : undefined;
  const log = config.observability.log;
  // io.out appends the newline itself (to the chunk of lines batched in one turn).
  const out = opts.logger
    ? undefined
    : log.file
      ? fileWriter(log.file)
      : outputWriter((chunk) => io.out(chunk.slice(0, -1)));
  const logger =
    opts.logger ??
    createLogger({
      level: log.level,
      format: log.format === 'pretty' || (log.format === 'auto' && io.isTTY && !log.file) ? 'pretty' : 'json',
      color: io.isTTY && !io.env.NO_COLOR,
      write: out!.write,
    });
  const gateway = createGateway(config, { logger });
  let url: string;
  try {
    url = await gateway.listen(port, host);
  } catch (e) {
    spinner?.stop();
    await gateway.close(0).catch(() => undefined);
    await out?.close();
    const message = listenErrorMessage(e as NodeJS.ErrnoException, host, port);
    if (!message) throw e;
    io.err(`error: ${message}`);
    throw new CliExit(ExitCode.FAILURE);
  }
  spinner?.stop();
  printBanner(io, config, url, display, path);
  const reload = async (): Promise<boolean> => {
    const next = await loadForCli(path, io).catch((e: unknown) => ({
      config: undefined,
      issues: [],
      error: e as Error,
    }));
    if (!next.config) {
      const problems = next.issues.filter((i) => i.severity === 'error').map(formatIssue);
      logger.log('error', 'config reload failed: keeping the current config', {
        file: display,
        problems,
        ...('error' in next ? { error: next.error.message } : {}),
      });
      return false;
    }
    const restartOnly = gateway.reload(next.config);
    logger.log('info', 'config reloaded', {
      file: display,
      ...(restartOnly.length > 0 ? { needs_restart: restartOnly } : {}),
    });
    return true;
  };
  const watcher = opts.watch ? watchFile(path, reload, logger) : undefined;
  return {
    url,
    config,
    reload,
    close: async (graceMs) => {
      watcher?.close();
      await gateway.close(graceMs);
      await out?.close();
    },
  };
}

/** Reloads on change, debounced: editors write a file in several steps. */
function watchFile(path: string, reload: () => Promise<boolean>, logger: Logger): { close(): void } {
  let timer: NodeJS.Timeout | undefined;
  const w = watch(path, () => {
    clearTimeout(timer);
    timer = setTimeout(() => void reload(), 200);
  });
  w.on('error', (err) => logger.log('warn', 'cannot watch the config file', { error: err.message }));
  return {
    close: () => {
      clearTimeout(timer);
      w.close();
    },
  };
}

function listenErrorMessage(e: NodeJS.ErrnoException, host: string, port: number): string | undefined {
  switch (e.code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is already in use (try --port)`;
    case 'EACCES':
      return `permission denied to listen on port ${port} on ${host} (ports below 1024 need privileges; try --port)`;
    case 'EADDRNOTAVAIL':
      return `address ${host} is not available on this machine (try --host 127.0.0.1)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve host ${host} (try --host 127.0.0.1)`;
    default:
      return undefined;
  }
}

/**
 * Where to send requests, and a curl line ready to paste, with a key that works: shown when the
 * config file writes it, `$VAR` when it comes from the environment (never a value from there);
 * see curl-key.ts.
 */
function printBanner(io: CliIO, config: GatewayConfig, url: string, display: string, path: string): void {
  const c = colors(io);
  io.err(c.green(`gateway listening on ${url} (config: ${display})`));
  // 0.0.0.0 and :: are for binding, not connecting.
  const local = url.replace(/^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/, 'http://127.0.0.1');
  if (config.keys.length === 0) {
    io.err(c.yellow('no keys are configured: add one under "keys:" to call the gateway'));
    return;
  }
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    // unreadable now: the key is then shown as $GATEWAY_KEY
  }
  const pick = pickCurlKey(config, text, io.env, (k) => listModels(config, k.role).length > 0);
  if (!pick) {
    io.err(c.yellow(`no key's role may use a model: give a role some under "roles:"`));
    return;
  }
  const entries = listModels(config, pick.key.role);
  const model = (entries.find((e) => e.available) ?? entries[0]).id;
  const how = {
    file:
      pick.kind === 'file' && pick.unsetVariable
        ? `the default in ${display}, as ${pick.unsetVariable} is unset`
        : `written in ${display}`,
    env: pick.kind === 'env' ? `with ${pick.variable} set as for the gateway` : '',
    unknown: 'with GATEWAY_KEY set to that key',
  }[pick.kind];
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }] });
  io.err(`try it with the key with id "${pick.key.id}" (role: ${pick.key.role}; ${how}):`);
  io.err(
    `  curl ${local}/v1/chat/completions -H "Authorization: Bearer ${shellKey(pick)}" ` +
      `-H 'content-type: application/json' -d '${body}'`,
  );
}

/** SIGINT/SIGTERM: close gracefully, then exit 0; a second signal exits at once. */
function installShutdown(running: RunningServe, io: CliIO): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      io.err(`${signal} again: exiting without waiting for requests`);
      process.exit(ExitCode.FAILURE);
    }
    stopping = true;
    io.err('shutting down…');
    running.close().then(
      () => process.exit(ExitCode.OK),
      (e: unknown) => {
        io.err(`error: shutdown failed: ${(e as Error).message}`);
        process.exit(ExitCode.FAILURE);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
