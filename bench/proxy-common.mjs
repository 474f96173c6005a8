/**
 * What the two reference proxies (bare-proxy.mjs, floor-proxy.mjs) share: the keep-alive pool to
 * the upstream, the hop-by-hop header filter, the 502 they answer with, and serving + closing.
 */

import { createServer } from 'node:http';
import { Pool } from 'undici';
import { args, ready, serveIpc } from './child-common.mjs';

export function upstreamPool() {
  const opts = args();
  if (!opts.upstream) throw new Error('--upstream <url> is required');
  return new Pool(opts.upstream, {
    connections: Number(opts.connections ?? 256),
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    connect: { noDelay: true },
  });
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
]);

/** `from` without hop-by-hop headers (and without content-length unless `keepLength`). */
export function copyHeaders(from, keepLength = true) {
  const out = {};
  for (const k of Object.keys(from)) {
    if (HOP_BY_HOP.has(k) || (!keepLength && k === 'content-length')) continue;
    out[k] = from[k];
  }
  return out;
}

export function badGateway(res, err, who) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { message: `${who}: ${err?.code ?? err?.message ?? 'upstream failed'}` } });
  res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Listens on a free loopback port with `handler`, reports ready, closes server and pool on shutdown. */
export function serveProxy(pool, handler) {
  const server = createServer({ keepAlive: true, noDelay: true, keepAliveTimeout: 65_000 }, handler);
  serveIpc(async () => {
    await new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await pool.close();
  });
  server.listen(0, '127.0.0.1', () => ready(`http://127.0.0.1:${server.address().port}`));
}
