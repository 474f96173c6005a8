/**
 * The floor for any Node proxy: node:http in, undici Pool (keep-alive) out. Reads the request
 * body whole (as the gateway does), forwards it unchanged to `--upstream` with the same path,
 * and pipes the response back. Hop-by-hop headers are dropped; the upstream call is aborted when
 * the client goes away. No parsing, auth, routing or logging.
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
  'content-length',
]);

function copyHeaders(from, keepLength) {
  const out = {};
  for (const k of Object.keys(from)) {
    if (HOP_BY_HOP.has(k) && !(keepLength && k === 'content-length')) continue;
    out[k] = from[k];
  }
  return out;
}

function badGateway(res, err) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { message: `bare proxy: ${err?.code ?? err?.message ?? 'upstream failed'}` } });
  res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = createServer({ keepAlive: true, noDelay: true, keepAliveTimeout: 65_000 }, (req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    chunks.push(c);
    size += c.length;
  });
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    pool
      .request({
        path: req.url,
        method: req.method,
        headers: copyHeaders(req.headers, false),
        body,
        signal: abort.signal,
      })
      .then(
        (up) => {
          res.writeHead(up.statusCode, copyHeaders(up.headers, true));
          // .pipe rather than stream.pipeline: on Node 20 pipeline() allocates an AbortController
          // per call and aborts it (building a DOMException) on every completion.
          up.body.on('error', () => res.destroy());
          up.body.pipe(res);
        },
        (err) => badGateway(res, err),
      );
  });
});

serveIpc(async () => {
  await new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await pool.close();
});
server.listen(0, '127.0.0.1', () => ready(`http://127.0.0.1:${server.address().port}`));
