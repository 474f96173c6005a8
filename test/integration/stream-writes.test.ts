/**
 * How a translated stream leaves the gateway, seen on the wire: the first event at once (the
 * upstream sends nothing more until the caller has it), then the events made from one upstream
 * read in one HTTP chunk, not one chunk per event.
 */

import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configOf, type RunningGateway, startGateway } from '../helpers/start-gateway.js';
import { TEST_KEY } from '../helpers/gateway-config.js';

const DELTAS = 12;
const head = '{"id":"chatcmpl-w","object":"chat.completion.chunk","created":1,"model":"gpt-w","choices":[{"index":0,';
const chunk = (rest: string) => `data: ${head}${rest}}]}\n\n`;

/** Resolved when the caller has received its first HTTP chunk: the upstream waits for it. */
let callerHasFirst: () => void = () => {};

let upstream: Server;
let gw: RunningGateway;
beforeAll(async () => {
  upstream = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => {
      text += c;
    });
    req.on('end', () => {
      // As strict as OpenAI on what this test relies on: the path, a JSON body asking for a stream.
      let body: { model?: unknown; stream?: unknown; messages?: unknown } | undefined;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const valid =
        req.method === 'POST' &&
        req.url === '/v1/chat/completions' &&
        body?.model === 'gpt-w' &&
        body.stream === true &&
        Array.isArray(body.messages) &&
        body.messages.length > 0;
      if (!valid) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'invalid request', type: 'invalid_request_error' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('"delta":{"role":"assistant","content":""},"finish_reason":null'));
      new Promise<void>((r) => {
        callerHasFirst = r;
      }).then(() => {
        // Every delta, the finish and [DONE] in one write: one read on the gateway's side.
        let rest = '';
        for (let i = 0; i < DELTAS; i++) rest += chunk(`"delta":{"content":"w${i} "},"finish_reason":null`);
        rest += chunk('"delta":{},"finish_reason":"stop"');
        res.end(`${rest}data: [DONE]\n\n`);
      });
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const port = (upstream.address() as { port: number }).port;
  gw = await startGateway(
    configOf({
      providers: {
        up: { api: 'openai', url: `http://127.0.0.1:${port}`, models: { 'gpt-w': { context_window: 8000 } } },
      },
      roles: { dev: { models: ['up/*'] } },
      keys: [{ id: 'k', key: TEST_KEY, role: 'dev' }],
    }),
  );
});
afterAll(async () => {
  await gw.close();
  await new Promise((r) => upstream.close(r));
});

/** A raw HTTP/1.1 exchange: the response's chunks of chunked encoding as they arrived. */
function rawChunks(body: string): Promise<string[]> {
  const { hostname, port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let buf = Buffer.alloc(0);
    let headersDone = false;
    const chunks: string[] = [];
    socket.on('error', reject);
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (!headersDone) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        headersDone = true;
        buf = buf.subarray(end + 4);
      }
      for (;;) {
        const eol = buf.indexOf('\r\n');
        if (eol < 0) return;
        const size = Number.parseInt(buf.subarray(0, eol).toString(), 16);
        if (buf.length < eol + 2 + size + 2) return;
        if (size === 0) {
          socket.end();
          resolve(chunks);
          return;
        }
        chunks.push(buf.subarray(eol + 2, eol + 2 + size).toString());
        buf = buf.subarray(eol + 2 + size + 2);
        if (chunks.length === 1) callerHasFirst();
      }
    });
    socket.write(
      'POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
        `x-api-key: ${TEST_KEY}\r\nanthropic-version: 2023-06-01\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
}

describe('a translated stream on the wire', () => {
  it('the first event at once, then what one upstream read made in one chunk', async () => {
    const chunks = await rawChunks(
      JSON.stringify({ model: 'up/gpt-w', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    );
    const text = chunks.join('');
    const deltas = text.match(/event: content_block_delta\n/g) ?? [];
    expect(deltas).toHaveLength(DELTAS);
    expect(text).toContain('"text":"w0 "');
    expect(text.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true);
    // message_start alone first (the upstream held the rest back until the caller had it); then
    // ~17 events from one read in one chunk, where one chunk per event would be 17.
    expect(chunks[0]).toMatch(/^event: message_start\n/);
    expect(chunks.length).toBeLessThanOrEqual(5);
  });
});
