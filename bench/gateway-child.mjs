/**
 * The gateway under test, in its own process, built from ../dist (run `npm run build` first).
 * Two providers at `--upstream` (OpenAI-format `up`, Anthropic-format `anth`), one key, one role
 * (gateway-config.mjs).
 *   --log error  (default) level error, lines discarded: logging costs nothing measurable
 *   --log info   every request's info line is formatted (JSON.stringify) and then discarded,
 *                which shows what request logging costs without any I/O
 *   --extra <base64 YAML>  appended to the config (budgets, guardrails… for later lanes)
 *   --dist <dir>  the build to load (default ../dist), e.g. to compare two builds
 */

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { args, ready, serveIpc } from './child-common.mjs';
import { gatewayConfigYaml } from './gateway-config.mjs';

async function main() {
  const opts = args();
  if (!opts.upstream) throw new Error('--upstream <url> is required');
  const level = opts.log ?? 'error';
  const extra = opts.extra ? Buffer.from(opts.extra, 'base64').toString('utf8') : '';
  const { createGateway, createLogger, loadConfigText } = await import(
    opts.dist ? pathToFileURL(resolve(opts.dist, 'index.js')).href : '../dist/index.js'
  );
  const { config, issues } = loadConfigText(gatewayConfigYaml(opts.upstream, extra), 'bench.yaml', {});
  if (!config)
    throw new Error(
      `bench config invalid:\n${issues.map((i) => `${i.line}:${i.col} ${i.path}: ${i.message}`).join('\n')}`,
    );
  let lines = 0;
  const logger = createLogger({ level, write: () => void lines++ });
  const gateway = createGateway(config, { logger });
  serveIpc(() => gateway.close(500));
  ready(await gateway.listen(0, '127.0.0.1'));
}

main().catch((err) => {
  console.error('gateway-child:', err);
  process.exit(1);
});
