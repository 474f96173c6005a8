/**
 * The thinnest Node proxy, the floor every proxy lane is compared with: node:http in, undici
 * `Pool.stream` out, the request body piped up as it arrives and the upstream's body written
 * straight into the ServerResponse by the stream factory (no intermediate Readable, no
 * AbortController per request: the upstream call is aborted through `opaque`'s response closing).
 * Hop-by-hop headers are dropped. No parsing, auth, routing or logging.
 */

import { createServer } from 'node:http';
import { Pool } from 'undici';
import { args, ready, serveIpc } from './child-common.mjs';

const opts = args();
if (!opts.upstream) throw new Error('--upstream <url> is required');
const pool = new Pool(opts.upstream, {
  connections: Number(opts.connections ?? 256),
  pipelining: 1,
  keepAliveTimeout: 30_000,
  keepAliveMaxTimeout: 600_000,
  connect: { noDelay: true },
});

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

function copyHeaders(from) {
  const out = {};
  for (const k of Object.keys(from)) if (!HOP_BY_HOP.has(k)) out[k] = from[k];
  return out;
}

function fail(res, err) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { message: `floor proxy: ${err?.code ?? err?.message ?? 'upstream failed'}` } });
  res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = createServer({ keepAlive: true, noDelay: true, keepAliveTimeout: 65_000 }, (req, res) => {
  pool.stream(
    { path: req.url, method: req.method, headers: copyHeaders(req.headers), body: req, opaque: res },
    ({ statusCode, headers, opaque }) => {
      opaque.writeHead(statusCode, copyHeaders(headers));
      return opaque;
    },
    (err) => {
      if (err) fail(res, err);
    },
  );
});

serveIpc(async () => {
  await new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await pool.close();
});
server.listen(0, '127.0.0.1', () => ready(`http://127.0.0.1:${server.address().port}`));
