/** A real HTTP webhook on 127.0.0.1 whose answer each test scripts. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookCall {
  guardrail: string;
  direction: string;
  text: string;
  parts: string[];
}

export type WebhookReply = (call: WebhookCall, res: ServerResponse) => void;

export interface WebhookServer {
  url: string;
  calls: WebhookCall[];
  reply: WebhookReply;
  close(): Promise<void>;
}

export const json =
  (body: unknown, status = 200): WebhookReply =>
  (_call, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

/** Never answers (for timeouts); the connection is dropped at close. */
export const hang: WebhookReply = () => {};

export async function startWebhookServer(): Promise<WebhookServer> {
  const state: WebhookServer = { url: '', calls: [], reply: json({ action: 'allow' }), close: async () => {} };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as WebhookCall;
      state.calls.push(call);
      state.reply(call, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/check`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
