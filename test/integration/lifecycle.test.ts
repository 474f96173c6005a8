/** Client disconnects abort the upstream call; shutdown lets in-flight streams finish. */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { answerEvents, startFakeUpstream, type FakeUpstream, youSaid } from '../helpers/fake-upstream.js';
import { formatsGateway } from '../helpers/gateway-config.js';
import { authHeaders, configOf, type RunningGateway, startGateway } from '../helpers/start-gateway.js';

let upstream: FakeUpstream | undefined;
let gw: RunningGateway | undefined;
afterEach(async () => {
  await gw?.close();
  await upstream?.close();
  gw = upstream = undefined;
});

const body = JSON.stringify({ model: 'up/gpt-test', stream: true, messages: [{ role: 'user', content: 'x' }] });

describe('client disconnect', () => {
  it('aborts the upstream request when the caller goes away mid-stream', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((r) => (upstreamClosed = r));
    upstream = await startFakeUpstream({ handler: youSaid });
    upstream.setHandler(() => ({ kind: 'hang' }));
    // A handler that writes one event and then stays open, noting when the gateway hangs up.
    const { createServer } = await import('node:http');
    const slow = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(answerEvents('openai', { text: 'a', model: 'gpt-test' })[0]);
      res.on('close', () => upstreamClosed());
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const port = (slow.address() as { port: number }).port;
    gw = await startGateway(configOf(formatsGateway(`http://127.0.0.1:${port}`)));
    const url = new URL(`${gw.url}/v1/chat/completions`);
    await new Promise<void>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: authHeaders() }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)));
      req.end(body);
    });
    await closed; // resolves only if the gateway aborted its upstream call
    slow.closeAllConnections();
    slow.close();
    // The aborted request is still logged, as aborted by the client.
    await expect.poll(() => gw!.logs.some((l) => JSON.parse(l).client_aborted === true)).toBe(true);
  });
});

describe('graceful shutdown', () => {
  it('finishes an in-flight stream, then refuses new connections', async () => {
    upstream = await startFakeUpstream({ handler: youSaid });
    const chunks = answerEvents('openai', { text: 'one two three four five six', model: 'gpt-test' });
    upstream.setHandler(() => ({ kind: 'sse', events: chunks, delayMs: 40 }));
    gw = await startGateway(configOf(formatsGateway(upstream.url)));
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: authHeaders(), body });
    expect(res.status).toBe(200);
    const closing = gw.gateway.close(5000);
    const text = await res.text();
    await closing;
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    await expect(fetch(`${gw.url}/health`)).rejects.toThrow();
    gw = undefined;
  });
});
