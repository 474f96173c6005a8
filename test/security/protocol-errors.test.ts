/**
 * Issue 10, point 6: every answer keeps the contract, protocol errors included. Requests Node's
 * HTTP parser refuses (not HTTP, unknown methods, oversized headers, bad chunked framing,
 * Content-Length with Transfer-Encoding) get 400/431 with X-Correlation-ID and a JSON error body
 * in the caller's format; an over-limit body gets a 413 a Node client that is still writing can
 * read (no EPIPE), and so does an unauthenticated one its 401. Raw sockets and node:http on
 * 127.0.0.1.
 */

import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../helpers/fake-upstream.js';
import { securityGateway, withServer } from '../helpers/gateway-config.js';
import { configOf, startGateway } from '../helpers/start-gateway.js';
import { eventually, GW_KEY, jsonReply, requestLines, type SecurityRig } from './harness.js';
import { RawConnection, ULID, type RawResponse } from './raw-http.js';

let rig: SecurityRig;
beforeAll(async () => {
  const up = await startFakeUpstream({ handler: (req) => ({ kind: 'json', body: jsonReply(req.path, 'ok') }) });
  const gw = await startGateway(configOf(withServer(securityGateway(up.url), { body_limit: '1mb' })));
  rig = {
    gw,
    up,
    close: async () => {
      await gw.close();
      await up.close();
    },
  };
});
afterAll(() => rig.close());

/** Sends `bytes` on a fresh connection; the answer, and whether the gateway then closed the connection. */
async function exchange(bytes: string | Buffer): Promise<{ r: RawResponse; closedMs: number }> {
  const c = await RawConnection.open(rig.gw.url);
  try {
    await c.write(bytes);
    const r = await c.response(5000);
    const closedMs = await c.closed(5000);
    return { r, closedMs };
  } finally {
    c.destroy();
  }
}

function expectOpenAiError(r: RawResponse, status: number, code: string): void {
  expect(r.status).toBe(status);
  expect(r.headers['x-correlation-id']).toMatch(ULID);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(r.body);
  expect(body).toEqual({ error: { message: expect.any(String), type: expect.any(String), param: null, code } });
}

function expectAnthropicError(r: RawResponse, status: number, type: string): void {
  expect(r.status).toBe(status);
  expect(r.headers['x-correlation-id']).toMatch(ULID);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(r.body)).toEqual({ type: 'error', error: { type, message: expect.any(String) } });
}

function protocolLine(id: string): any {
  return rig.gw.logs.map((l) => JSON.parse(l)).find((l) => l.correlation_id === id && l.msg === 'protocol error');
}

describe('requests the HTTP parser refuses get the contract', () => {
  it(
    'bytes that are not HTTP: 400, X-Correlation-ID, ' + 'an OpenAI-format JSON body, connection closed, one log line',
    async () => {
      const { r, closedMs } = await exchange('GARBAGE\r\n\r\n');
      expectOpenAiError(r, 400, 'invalid_request');
      expect(r.headers.connection).toBe('close');
      expect(closedMs).toBeLessThan(5000);
      const line = await eventually(() => protocolLine(r.headers['x-correlation-id']), 'the protocol error log line');
      expect(line).toMatchObject({ level: 'warn', status: 400, error_code: 'invalid_request', fault: 'caller' });
    },
  );

  it('an unknown method on /v1/messages: 400 in the Anthropic format', async () => {
    const { r } = await exchange('BREW /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 0\r\n\r\n');
    expectAnthropicError(r, 400, 'invalid_request_error');
  });

  it('an unknown method on /v1/chat/completions: 400 in the OpenAI format', async () => {
    const { r } = await exchange('BREW /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 0\r\n\r\n');
    expectOpenAiError(r, 400, 'invalid_request');
  });

  it("headers over Node's 16 KB limit: 431 headers_too_large (OpenAI format)", async () => {
    const { r } = await exchange(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: ${'a'.repeat(20_000)}\r\ncontent-length: ` +
        `2\r\n\r\n{}`,
    );
    expectOpenAiError(r, 431, 'headers_too_large');
  });

  it('headers over the limit with anthropic-version seen: 431 in the Anthropic format', async () => {
    const { r } = await exchange(
      `GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1\r\nanthropic-version: 2023-06-01\r\nx-big: ` +
        `${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expectAnthropicError(r, 431, 'request_too_large');
  });

  it('Content-Length and Transfer-Encoding both: 400 (request smuggling shape refused)', async () => {
    const { r } = await exchange(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${GW_KEY}\r\ncontent-length: ` +
        `5\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n`,
    );
    expectOpenAiError(r, 400, 'invalid_request');
  });

  it("bad chunked framing in an authenticated upload: 400 with the request's own correlation id", async () => {
    const id = '01JBBBBBBBBBBBBBBBBBBBBBBB';
    const { r } = await exchange(
      `POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${GW_KEY}\r\nanthropic-version: ` +
        `2023-06-01\r\nx-correlation-id: ${id}\r\n` +
        `content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"mod\r\nzz-not-a-size\r\n`,
    );
    expectAnthropicError(r, 400, 'invalid_request_error');
    expect(r.headers['x-correlation-id']).toBe(id);
    const line = await eventually(
      () => requestLines(rig.gw.logs).find((l) => l.correlation_id === id),
      'the request log line',
    );
    expect(line).toMatchObject({ status: 400, error_code: 'invalid_request', fault: 'caller', key_id: 'dev' });
  });
});

interface BigPost {
  status?: number;
  body?: string;
  /** The client's error, if any, and whether the whole response had been read by then. */
  error?: string;
  errorAfterResponse?: boolean;
  sent: number;
}

/**
 * `total` bytes POSTed with node:http in 64 KB writes (waiting for drain, as a well-behaved client
 * does), with Content-Length or chunked; keeps writing after the answer arrives, like most clients.
 */
function bigPost(path: string, headers: Record<string, string>, total: number, chunked = false): Promise<BigPost> {
  const url = new URL(rig.gw.url + path);
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  return new Promise((resolve) => {
    const out: BigPost = { sent: 0 };
    let responseDone = false;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(guard);
      resolve(out);
    };
    // Bounded in time: whatever has happened after 20 s is the result.
    const guard = setTimeout(() => {
      out.error ??= 'timed out';
      req.destroy();
      finish();
    }, 20_000);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          ...headers,
          ...(chunked ? {} : { 'content-length': String(total) }),
        },
      },
      (res) => {
        out.status = res.statusCode;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          out.body = text;
          responseDone = true;
          // Give a late EPIPE/ECONNRESET the chance to show before deciding.
          setTimeout(finish, 300);
        });
        res.on('error', (e: NodeJS.ErrnoException) => {
          out.error ??= e.code ?? e.message;
          out.errorAfterResponse ??= responseDone;
        });
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      out.error ??= e.code ?? e.message;
      out.errorAfterResponse ??= responseDone;
      if (!responseDone) setTimeout(finish, 300);
    });
    const pump = () => {
      while (out.sent < total && !req.destroyed) {
        const n = Math.min(chunk.length, total - out.sent);
        out.sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}

const TEN_MB = 10 * 1024 * 1024;

describe('a refused upload still gets its answer read', () => {
  it(
    '10 MB POST (Content-Length) over a 1 MB limit with node:http: ' + '413 with the JSON error, no EPIPE/ECONNRESET',
    async () => {
      const r = await bigPost('/v1/chat/completions', { authorization: `Bearer ${GW_KEY}` }, TEN_MB);
      expect(r.error).toBeUndefined();
      expect(r.status).toBe(413);
      expect(JSON.parse(r.body!)).toMatchObject({ error: { code: 'body_too_large' } });
    },
  );

  it(
    '10 MB chunked POST over a 1 MB limit with node:http (/v1/messages): 413 in the Anthropic format, no ' +
      'EPIPE/ECONNRESET',
    async () => {
      const r = await bigPost('/v1/messages', { 'x-api-key': GW_KEY, 'anthropic-version': '2023-06-01' }, TEN_MB, true);
      expect(r.error).toBeUndefined();
      expect(r.status).toBe(413);
      expect(JSON.parse(r.body!)).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
    },
  );

  it('10 MB POST over the limit with fetch: 413 with the JSON error', async () => {
    const res = await fetch(`${rig.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${GW_KEY}`, 'content-type': 'application/json' },
      body: new Uint8Array(TEN_MB).fill(0x20),
      signal: AbortSignal.timeout(20_000),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('x-correlation-id')).toMatch(ULID);
    expect((await res.json()).error.code).toBe('body_too_large');
  });

  it(
    'an unauthenticated 10 MB POST with node:http: ' + 'the 401 is read in full (whatever happens to the socket after)',
    async () => {
      const r = await bigPost('/v1/chat/completions', {}, TEN_MB);
      expect(r.status).toBe(401);
      expect(JSON.parse(r.body!)).toMatchObject({ error: { code: 'missing_api_key' } });
      if (r.error !== undefined) expect(r.errorAfterResponse).toBe(true);
      // The gateway did not read all of it.
      expect(r.sent).toBeLessThanOrEqual(TEN_MB);
    },
  );
});
