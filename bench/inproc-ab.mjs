/**
 * Paired A/B of two or more builds in one process: each build's gateway listens in this process
 * (the bench config, the mock upstream in its own process on another core), and batches of
 * requests alternate between them, round after round; the CPU of this process per request is
 * gateway plus client. The client's share is the same for every build, so the ratios understate a
 * difference, but the pairing is much closer than bench/ab.mjs's (batches of a second or less, in
 * one process on one core), which makes it the steadier way to compare builds on streams.
 *
 *   node bench/inproc-ab.mjs [--lane tr-a2o] [--stream] [--rounds 10] [--batch 150] [--c 8] DIST...
 *
 * --lane: the request of a lane of lanes.mjs (one that uses the default gateway process:
 * `gateway`, `anth-pass`, `tr-a2o`, `tr-o2a`, `resp-pass`, `tr-r2a`); --stream: its stream
 * request; --c: requests in flight at once. Prints each build's median µs per request and the
 * median of its per-round ratio to the first build's. Needs 2+ cores (this process on core 0,
 * the upstream on core 1).
 */

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';
import { args } from './child-common.mjs';
import { startChild, stopAll } from './children.mjs';
import { gatewayConfigYaml } from './gateway-config.mjs';
import { LANES, PROCS } from './lanes.mjs';
import { pin } from './wrk.mjs';

const opts = args();
const dists = process.argv
  .slice(2)
  .filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.match(/^--(lane|rounds|batch|c)$/));
const lane = LANES.find((l) => l.id === (opts.lane ?? 'tr-a2o'));
if (!lane || lane.proc !== 'gateway') throw new Error(`--lane: a lane of the default gateway process`);
if (dists.length === 0) throw new Error('name at least one build, e.g. /tmp/old/dist dist');
const stream = process.argv.includes('--stream');
const rounds = Number(opts.rounds ?? 10);
const batch = Number(opts.batch ?? 150);
const concurrency = Number(opts.c ?? 8);
const body = stream ? lane.request.stream : lane.request.json;

try {
  const upstream = await startChild('upstream', PROCS.upstream.file, ['--chunks', '100', '--pacing', 'interval']);
  pin(upstream.pid, '1');
  pin(process.pid, '0');
  const builds = [];
  for (const dist of dists) {
    const { createGateway, createLogger, loadConfigText } = await import(pathToFileURL(resolve(dist, 'index.js')).href);
    const { config } = loadConfigText(gatewayConfigYaml(upstream.url, ''), 'bench.yaml', {});
    const gateway = createGateway(config, { logger: createLogger({ level: 'error', write: () => {} }) });
    builds.push({ dist, gateway, url: await gateway.listen(0, '127.0.0.1'), runs: [] });
  }
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const one = async (url) => {
    const r = await request(url + lane.request.path, {
      method: 'POST',
      headers: lane.request.headers,
      body,
      dispatcher: agent,
    });
    for await (const _ of r.body);
    if (r.statusCode !== 200) throw new Error(`status ${r.statusCode}`);
  };
  /** `batch` requests, `concurrency` at a time. */
  const run = async (url) => {
    let left = batch;
    const worker = async () => {
      while (left-- > 0) await one(url);
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };
  for (const b of builds) await run(b.url); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const b of builds) {
      const before = process.cpuUsage();
      await run(b.url);
      const used = process.cpuUsage(before);
      b.runs.push((used.user + used.system) / batch);
    }
  }
  const median = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
  for (const b of builds) {
    const ratios = b.runs.map((v, i) => v / builds[0].runs[i]);
    process.stdout.write(
      `${b.dist.padEnd(30)} ${median(b.runs).toFixed(0).padStart(6)} µs/${stream ? 'stream' : 'request'}  ` +
        `÷ first: ${median(ratios).toFixed(3)} (${ratios.map((r) => r.toFixed(2)).join(' ')})\n`,
    );
  }
  for (const b of builds) await b.gateway.close(500);
  await agent.close();
} finally {
  await stopAll();
}
process.exit(0);
