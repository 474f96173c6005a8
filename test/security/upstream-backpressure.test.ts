/**
 * The gateway's own upstream client (src/upstream/client.ts, upstream-body.ts) between a provider
 * and a caller that misbehave: a caller that stops reading a stream must stop the provider's
 * socket too (nothing piles up in the gateway), the caller leaving must end the upstream call, and
 * a JSON answer larger than the gateway accepts is refused instead of buffered. The provider here
 * is a plain server that streams as fast as its socket takes and counts what it managed to write.
 * (The body's own pause/resume at its high-water mark is unit-tested in upstream-body.test.ts;
 * end to end, socket buffers bound the flow as well.)
 */

import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WHOLE_BODY_BYTES } from '../../src/upstream/upstream-body.js';
import { STRICT_KEY, strictGateway } from '../helpers/gateway-config.js';
import { configOf, type RunningGateway, startGateway } from '../helpers/start-gateway.js';

/** What the provider wrote to the gateway, and whether that response was closed early. */
const sent = { bytes: 0, closed: false, finished: false };
/** Streams are cut off by the provider itself past this (a bound on the test). */
const STREAM_CAP = 64 * 1024 * 1024;

function chunkEvent(i: number): string {
  const chunk = {
    id: 'chatcmpl-flood',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gpt-4o',
    choices: [{ index: 0, delta: { content: ` word${i}`.padEnd(200, '.') }, finish_reason: null }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** Writes events while the socket takes them; waits for 'drain' when it does not. */
function flood(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let i = 0;
  res.on('close', () => {
    sent.closed = !res.writableFinished;
  });
  const pump = () => {
    while (sent.bytes < STREAM_CAP && !res.destroyed) {
      const ev = chunkEvent(i++);
      sent.bytes += ev.length;
      if (!res.write(ev)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) {
      sent.finished = true;
      res.end('data: [DONE]\n\n');
    }
  };
  pump();
}

let upstream: Server;
let gw: RunningGateway;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      // As strict as OpenAI on what these tests send: the provider key, and a body with a model and messages.
      const refuse = (status: number, message: string) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));
      };
      if (req.headers.authorization !== 'Bearer sk-oai-strict-test') return refuse(401, 'Incorrect API key provided.');
      let parsed: { model?: unknown; messages?: unknown; stream?: unknown };
      try {
        parsed = JSON.parse(body);
      } catch {
        return refuse(400, 'We could not parse the JSON body of your request.');
      }
      if (typeof parsed.model !== 'string' || !Array.isArray(parsed.messages) || parsed.messages.length === 0)
        return refuse(400, "Missing required parameter: 'model' or 'messages'.");
      if (parsed.stream) return flood(res);
      // A JSON answer one byte over what the gateway accepts, sent without waiting on the socket.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MAX_WHOLE_BODY_BYTES + 1) });
      res.end(Buffer.alloc(MAX_WHOLE_BODY_BYTES + 1, 0x20));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gw = await startGateway(configOf(strictGateway(url)));
});

afterAll(async () => {
  await gw?.close();
  upstream.closeAllConnections();
  await new Promise<void>((r) => upstream.close(() => r()));
});

function post(body: object): Promise<import('node:http').IncomingMessage> {
  const u = new URL(`${gw.url}/v1/chat/completions`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: {
          authorization: `Bearer ${STRICT_KEY}`,
          'content-type': 'application/json',
        },
      },
      resolve,
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('upstream client under a misbehaving caller or provider', () => {
  it('a caller that stops reading a stream stops the provider too; leaving ends the upstream call', async () => {
    const res = await post({ model: 'oai/gpt', stream: true, messages: [{ role: 'user', content: 'flood me' }] });
    expect(res.statusCode).toBe(200);
    // Read a little, then stop reading altogether.
    await new Promise<void>((r) => res.once('data', () => r()));
    res.pause();
    // Let the provider write for as long as the sockets and the gateway take it.
    let before = -1;
    for (let i = 0; i < 40 && sent.bytes !== before; i++) {
      before = sent.bytes;
      await sleep(100);
    }
    // Only socket buffers (a few MB on loopback) and the gateway's 64 KiB queue: not the 64 MB.
    expect(sent.finished).toBe(false);
    expect(sent.bytes).toBeLessThan(24 * 1024 * 1024);
    res.destroy();
    for (let i = 0; i < 50 && !sent.closed; i++) await sleep(50);
    expect(sent.closed).toBe(true);
  });

  it('a JSON answer larger than the gateway accepts is a clear 502 in the caller format, not buffered', async () => {
    const res = await post({ model: 'oai/gpt', messages: [{ role: 'user', content: 'too big' }] });
    let text = '';
    for await (const c of res) text += c;
    expect(res.statusCode).toBe(502);
    const body = JSON.parse(text);
    expect(body.error.message).toMatch(/larger than the gateway accepts/);
    expect(text).not.toContain('sk-oai-strict-test');
  });
});
