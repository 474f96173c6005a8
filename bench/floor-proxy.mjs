/**
 * The thinnest Node proxy, the floor every proxy lane is compared with: node:http in, undici
 * `Pool.stream` out, the request body piped up as it arrives and the upstream's body written
 * straight into the ServerResponse by the stream factory (no intermediate Readable, no
 * AbortController per request: a response destroyed because the caller left ends the upstream
 * call). Hop-by-hop headers are dropped. No parsing, auth, routing or logging.
 */

import { badGateway, copyHeaders, serveProxy, upstreamPool } from './proxy-common.mjs';

const pool = upstreamPool();
serveProxy(pool, (req, res) => {
  pool.stream(
    { path: req.url, method: req.method, headers: copyHeaders(req.headers), body: req, opaque: res },
    ({ statusCode, headers, opaque }) => {
      opaque.writeHead(statusCode, copyHeaders(headers));
      return opaque;
    },
    (err) => {
      if (err) badGateway(res, err, 'floor proxy');
    },
  );
});
