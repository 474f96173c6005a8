/**
 * HTTP/1.1 over a raw TCP socket on 127.0.0.1, for requests no well-behaved client would send:
 * bodies that never finish, headers that never end, bytes that are not HTTP. Records every byte
 * received and when the server closed the connection.
 */

import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export class RawConnection {
  readonly socket: Socket;
  private chunks: Buffer[] = [];
  /** When the server ended or reset the connection (Date.now()), once it has. */
  closedAt: number | undefined;
  readonly openedAt = Date.now();

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (c: Buffer) => this.chunks.push(c));
    socket.on('error', () => undefined);
    const closed = () => {
      this.closedAt ??= Date.now();
    };
    socket.on('end', closed);
    socket.on('close', closed);
  }

  static open(base: string): Promise<RawConnection> {
    const url = new URL(base);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: url.hostname, port: Number(url.port) }, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  get received(): string {
    return Buffer.concat(this.chunks).toString('latin1');
  }

  /** Writes unless the connection is gone; resolves once the bytes are handed to the kernel. */
  write(data: string | Buffer): Promise<void> {
    if (this.socket.destroyed || !this.socket.writable) return Promise.resolve();
    return new Promise((resolve) => this.socket.write(data, () => resolve()));
  }

  /** Every complete response received so far (1xx included), in order. */
  responses(): RawResponse[] {
    return parseResponses(this.received);
  }

  /** The first final (non-1xx) response, waiting up to `ms` for it. */
  async response(ms = 5000): Promise<RawResponse> {
    const until = Date.now() + ms;
    for (;;) {
      const final = this.responses().find((r) => r.status >= 200);
      if (final) return final;
      if (Date.now() > until)
        throw new Error(`no response within ${ms} ms; received: ${JSON.stringify(this.received.slice(0, 300))}`);
      if (this.closedAt !== undefined && Date.now() - this.closedAt > 200) {
        throw new Error(
          `connection closed without a complete response; received: ${JSON.stringify(this.received.slice(0, 300))}`,
        );
      }
      await sleep(10);
    }
  }

  /** Resolves with the ms from opening to the server closing the connection; rejects after `ms`. */
  async closed(ms: number): Promise<number> {
    const until = Date.now() + ms;
    while (this.closedAt === undefined) {
      if (Date.now() > until) throw new Error(`the server kept the connection open for more than ${ms} ms`);
      await sleep(10);
    }
    return this.closedAt - this.openedAt;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export function parseResponses(raw: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return out;
    const lines = rest.slice(0, end).split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
    if (!m) return out;
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    const status = Number(m[1]);
    const length = status < 200 ? 0 : Number(headers['content-length'] ?? NaN);
    if (!Number.isFinite(length)) return out;
    const bodyStart = end + 4;
    if (rest.length < bodyStart + length) return out;
    // latin1 in, utf8 out: the bodies are JSON.
    out.push({
      status,
      headers,
      body: Buffer.from(rest.slice(bodyStart, bodyStart + length), 'latin1').toString('utf8'),
    });
    rest = rest.slice(bodyStart + length);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The request head of a POST, CRLF-terminated. */
export function head(path: string, headers: Record<string, string | number>): string {
  return (
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n'
  );
}
