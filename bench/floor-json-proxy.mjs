/**
 * A reference, not a target: the floor (floor-proxy.mjs) plus the least a proxy that reads JSON
 * must do: the request body buffered, JSON.parse'd and JSON.stringify'd up; a JSON answer buffered,
 * parsed and written back serialised (a stream still goes straight into the ServerResponse, as in
 * the floor). No auth, routing, validation, logging or limits. Its ratio to the floor is how much
 * of a target parsing alone takes on the machine at hand.
 */

import { Writable } from 'node:stream';
import { badGateway, copyHeaders, serveProxy, upstreamPool } from './proxy-common.mjs';

/** Collects a JSON answer; once complete, answers the caller with it parsed and serialised again. */
class JsonAnswer extends Writable {
  constructor(res, status) {
    super();
    this.res = res;
    this.status = status;
    this.chunks = [];
  }

  _write(chunk, _enc, cb) {
    this.chunks.push(chunk);
    cb();
  }

  _final(cb) {
    let out;
    try {
      out = Buffer.from(JSON.stringify(JSON.parse(Buffer.concat(this.chunks).toString('utf8'))));
    } catch (err) {
      cb(err);
      return;
    }
    this.res.writeHead(this.status, { 'content-type': 'application/json', 'content-length': String(out.length) });
    this.res.end(out);
    cb();
  }
}

const pool = upstreamPool();
serveProxy(pool, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json', 'content-length': '2' });
      res.end('{}');
      return;
    }
    const up = Buffer.from(JSON.stringify(body));
    const headers = copyHeaders(req.headers, false);
    headers['content-length'] = String(up.length);
    pool.stream(
      { path: req.url, method: req.method, headers, body: up, opaque: res },
      ({ statusCode, headers: upHeaders, opaque }) => {
        if (body.stream !== true) return new JsonAnswer(opaque, statusCode);
        opaque.writeHead(statusCode, copyHeaders(upHeaders));
        return opaque;
      },
      (err) => {
        if (err) badGateway(res, err, 'floor-json proxy');
      },
    );
  });
});
