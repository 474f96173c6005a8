/**
 * The gateway under test, in its own process, built from ../dist (run `npm run build` first).
 * Two providers at `--upstream` (OpenAI-format `up`, Anthropic-format `anth`), one key, one role
 * (gateway-config.mjs).
 *   --log error  (default) level error, lines discarded: logging costs nothing measurable
 *   --log info   every request's info line is formatted (JSON.stringify) and then discarded,
 *                which shows what request logging costs without any I/O
 *   --log-file   with --log info: the lines appended to a temporary file (removed at shutdown),
 *                by the build's own file writer, as `observability.log.file` does
 *   --logger pino  with --log-file: pino with an async destination on that file instead
 *                (pino-logger.mjs), to compare the two loggers end to end
 *   --extra <base64 YAML>  appended to the config (budgets, guardrails… for later lanes)
 *   When the config names `observability.log.file` (the `prod` lane), the request log is the
 *   config's, as `gateway serve` sets it up: its level, JSON, appended to that file (--log is then
 *   ignored). `${BENCH_LOG_DIR}` in the config is a fresh temporary directory, removed at shutdown;
 *   `stats` then also reports the file and its size (logFile, logBytes).
 *   --dist <dir>  the build to load (default ../dist), e.g. to compare two builds
 * The V8 heap is tuned as `gateway serve` tunes it (cli/heap-tuning.ts).
 */

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { args, ready, serveIpc } from './child-common.mjs';
import { gatewayConfigYaml } from './gateway-config.mjs';
import { loadPino, PINO_ASYNC, pinoLogger } from './pino-logger.mjs';

async function main() {
  const opts = args();
  if (!opts.upstream) throw new Error('--upstream <url> is required');
  const level = opts.log ?? 'error';
  const extra = opts.extra ? Buffer.from(opts.extra, 'base64').toString('utf8') : '';
  const dist = resolve(opts.dist ?? fileURLToPath(new URL('../dist', import.meta.url)));
  const load = (file) => import(pathToFileURL(resolve(dist, file)).href);
  const { createGateway, createLogger, loadConfigText } = await load('index.js');
  // As `gateway serve` does before loading its config (builds from before heap-tuning.js: nothing).
  const heap = await load('cli/heap-tuning.js').catch(() => undefined);
  heap?.tuneHeapForServing();
  // A config that logs to a file under ${BENCH_LOG_DIR} gets a directory of its own.
  const logDir = extra.includes('${BENCH_LOG_DIR}') ? mkdtempSync(join(tmpdir(), 'gateway-bench-log-')) : undefined;
  const env = logDir ? { BENCH_LOG_DIR: logDir } : {};
  const { config, issues } = loadConfigText(gatewayConfigYaml(opts.upstream, extra), 'bench.yaml', env);
  if (!config) {
    if (logDir) rmSync(logDir, { recursive: true, force: true });
    throw new Error(
      `bench config invalid:\n${issues.map((i) => `${i.line}:${i.col} ${i.path}: ${i.message}`).join('\n')}`,
    );
  }
  const configLog = config.observability.log.file ? config.observability.log : undefined;
  const out = configLog
    ? await configLogFile(configLog, logDir, load)
    : opts['log-file']
      ? await logFile(opts.logger, level, load)
      : undefined;
  const logger = out?.logger ?? createLogger({ level, write: () => {} });
  const gateway = createGateway(config, { logger });
  serveIpc(async () => {
    await gateway.close(500);
    await out?.close();
  });
  ready(await gateway.listen(0, '127.0.0.1'));
}

/** A logger appending to a fresh temporary file; close() flushes it and removes the directory. */
async function logFile(kind, level, load) {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-log-'));
  const path = join(dir, 'requests.jsonl');
  const remove = () => rmSync(dir, { recursive: true, force: true });
  if (kind === 'pino') {
    const pino = await loadPino();
    if (!pino) throw new Error('--logger pino: pino is not installed (npm install --no-save pino)');
    const dest = pino.destination({ dest: path, ...PINO_ASYNC });
    const logger = pinoLogger(pino, dest, { level, bound: await load('observe/bound-field.js') });
    return { logger, close: () => new Promise((r) => dest.flush(() => r(remove()))) };
  }
  const { createLogger } = await load('observe/logger.js');
  // observe/log-writer.js since the per-turn batching; observe/logger.js in older builds.
  const { fileWriter } = await load('observe/log-writer.js').catch(() => load('observe/logger.js'));
  const file = fileWriter(path);
  return { logger: createLogger({ level, write: file.write }), close: () => file.close().then(remove) };
}

/**
 * The config's own request log, as `gateway serve` builds it (cli/commands/serve.ts): the file
 * writer on `log.file`, the config's level, JSON unless the config says pretty.
 */
async function configLogFile(log, dir, load) {
  const { createLogger } = await load('observe/logger.js');
  const { fileWriter } = await load('observe/log-writer.js');
  const file = fileWriter(log.file);
  const size = () => {
    try {
      return statSync(log.file).size;
    } catch {
      return 0;
    }
  };
  globalThis.benchStats = () => ({ logFile: log.file, logBytes: size() });
  const format = log.format === 'pretty' ? 'pretty' : 'json';
  return {
    logger: createLogger({ level: log.level, format, write: file.write }),
    close: () => file.close().then(() => dir && rmSync(dir, { recursive: true, force: true })),
  };
}

main().catch((err) => {
  console.error('gateway-child:', err);
  process.exit(1);
});
