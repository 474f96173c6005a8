/**
 * A plain Node proxy (the `bare` lane): node:http in, undici Pool (keep-alive) out. Reads the request
 * body whole (as the gateway does), forwards it unchanged to `--upstream` with the same path,
 * and pipes the response back. Hop-by-hop headers are dropped; the upstream call is aborted when
 * the client goes away. No parsing, auth, routing or logging.
 */

import { badGateway, copyHeaders, serveProxy, upstreamPool } from './proxy-common.mjs';

const pool = upstreamPool();

serveProxy(pool, (req, res) => {
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
        (err) => badGateway(res, err, 'bare proxy'),
      );
  });
});
