/**
 * A real OTLP/HTTP trace receiver on 127.0.0.1: accepts POST /v1/traces with a JSON body
 * (the OTLP JSON encoding), records every request and flattens the spans for assertions.
 * Protobuf bodies are refused with 415 (the gateway's exporter sends JSON only).
 */

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type AttrValue = string | number | boolean | AttrValue[] | null;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, AttrValue>;
  events: Array<{ name: string; timeUnixNano: bigint; attributes: Record<string, AttrValue> }>;
  status: { code: number; message?: string };
  resource: Record<string, AttrValue>;
  scope?: string;
}

export interface ReceivedExport {
  headers: IncomingHttpHeaders;
  contentType: string | undefined;
  body: any;
}

export interface OtlpReceiver {
  /** Base URL, e.g. http://127.0.0.1:43123 */
  url: string;
  /** The traces endpoint: `${url}/v1/traces`. */
  tracesUrl: string;
  exports: ReceivedExport[];
  spans: ReceivedSpan[];
  /** HTTP status to answer with from now on (default 200). */
  respondWith(status: number): void;
  /** Polls (bounded) until at least `n` spans arrived; rejects after `timeoutMs`. */
  waitForSpans(n: number, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

function anyValue(v: any): AttrValue {
  if (v == null || typeof v !== 'object') return null;
  if ('stringValue' in v) return String(v.stringValue);
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('boolValue' in v) return Boolean(v.boolValue);
  if ('arrayValue' in v) return ((v.arrayValue?.values ?? []) as any[]).map(anyValue);
  return null;
}

export function attributesOf(list: any): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const kv of (Array.isArray(list) ? list : []) as any[]) out[kv.key] = anyValue(kv.value);
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: ReceivedExport[] = [];
  const spans: ReceivedSpan[] = [];
  let status = 200;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '').split('?', 1)[0];
    if (req.method !== 'POST' || path !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    const contentType = req.headers['content-type'];
    if (!contentType?.startsWith('application/json')) {
      res.writeHead(415, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'JSON only' }));
      return;
    }
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    exports.push({ headers: req.headers, contentType, body });
    if (status >= 200 && status < 300) {
      for (const rs of body?.resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind,
              startTimeUnixNano: BigInt(s.startTimeUnixNano),
              endTimeUnixNano: BigInt(s.endTimeUnixNano),
              attributes: attributesOf(s.attributes),
              events: ((s.events ?? []) as any[]).map((e) => ({
                name: e.name,
                timeUnixNano: BigInt(e.timeUnixNano),
                attributes: attributesOf(e.attributes),
              })),
              status: { code: s.status?.code ?? 0, message: s.status?.message },
              resource,
              scope: ss.scope?.name,
            });
          }
        }
      }
    }
    res.writeHead(status, { 'content-type': 'application/json' }).end(status < 300 ? '{}' : '{"message":"refused"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    tracesUrl: `${url}/v1/traces`,
    exports,
    spans,
    respondWith(s) {
      status = s;
    },
    async waitForSpans(n, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (spans.length < n) {
        if (Date.now() > deadline)
          throw new Error(`expected ${n} spans, received ${spans.length} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return spans;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
