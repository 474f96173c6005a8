/**
 * Sending spans to an OTLP/HTTP collector as JSON, in batches (every `flushIntervalMs`, or as
 * soon as `maxBatchSpans` are queued), at most two exports at a time, drained on close().
 *
 * Spans are queued already serialised, so the queue is bounded in bytes (`maxQueueBytes`) as well
 * as in spans: with a slow or hanging collector, new spans are dropped and counted instead of
 * piling up in memory. Export failures never reach the request path: they are counted in `stats`
 * and logged once per outage.
 */

import http from 'node:http';
import https from 'node:https';
import type { Logger } from './logger.js';
import type { OtlpKeyValue, OtlpSpan } from './tracing.js';

export interface TracingStats {
  /** Spans the collector accepted (2xx). */
  exported: number;
  /** Spans in exports that failed (network error, timeout or non-2xx). */
  failed: number;
  /** Spans dropped because the queue was full (in spans or bytes) or the tracer was closed. */
  dropped: number;
}

export interface OtlpSpanExportOptions {
  endpoint: string;
  headers?: Readonly<Record<string, string>>;
  resource: { attributes: OtlpKeyValue[] };
  flushIntervalMs: number;
  maxBatchSpans: number;
  maxQueueSpans: number;
  maxQueueBytes: number;
  exportTimeoutMs: number;
  logger?: Pick<Logger, 'log'>;
}

const MAX_CONCURRENT_EXPORTS = 2;
/** One export request carries at most this many bytes of spans (and at least one span). */
const MAX_BATCH_BYTES = 1024 * 1024;

export class OtlpSpanExport {
  readonly stats: TracingStats = { exported: 0, failed: 0, dropped: 0 };

  private readonly url: URL;
  private readonly headers: Record<string, string>;
  private readonly agent: http.Agent;
  private readonly resourceJson: string;
  private readonly maxBatch: number;
  private readonly maxQueue: number;
  private readonly maxQueueBytes: number;
  private readonly timeoutMs: number;
  private readonly logger?: Pick<Logger, 'log'>;
  private readonly timer: NodeJS.Timeout;

  /** Spans serialised as OTLP JSON, waiting for export; `queueBytes` is their total size. */
  private queue: Array<{ json: string; bytes: number }> = [];
  private queueBytes = 0;
  private readonly inflight = new Set<Promise<void>>();
  private flushScheduled = false;
  private closed = false;
  private failing = false;

  constructor(opts: OtlpSpanExportOptions) {
    this.url = new URL(opts.endpoint);
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') {
      throw new Error(`The OTLP traces endpoint must be an http(s) URL, not ${this.url.protocol}`);
    }
    this.headers = { ...opts.headers, 'content-type': 'application/json' };
    this.agent =
      this.url.protocol === 'https:'
        ? new https.Agent({ keepAlive: true, maxSockets: 4 })
        : new http.Agent({ keepAlive: true, maxSockets: 4 });
    this.resourceJson = JSON.stringify(opts.resource);
    this.maxBatch = Math.max(1, opts.maxBatchSpans);
    this.maxQueue = Math.max(this.maxBatch, opts.maxQueueSpans);
    this.maxQueueBytes = Math.max(1, opts.maxQueueBytes);
    this.timeoutMs = opts.exportTimeoutMs;
    this.logger = opts.logger;
    this.timer = setInterval(() => this.pump(), Math.max(10, opts.flushIntervalMs));
    this.timer.unref();
  }

  /** Bytes of serialised spans waiting for export. */
  get queuedBytes(): number {
    return this.queueBytes;
  }

  /** Queues one request's spans, or drops (and counts) them all when they do not fit. */
  enqueue(spans: readonly OtlpSpan[]): void {
    if (this.closed || this.queue.length + spans.length > this.maxQueue) {
      this.stats.dropped += spans.length;
      return;
    }
    const serialised = spans.map((span) => {
      const json = JSON.stringify(span);
      return { json, bytes: Buffer.byteLength(json) };
    });
    let bytes = 0;
    for (const q of serialised) bytes += q.bytes;
    if (this.queueBytes + bytes > this.maxQueueBytes) {
      this.stats.dropped += spans.length;
      return;
    }
    this.queue.push(...serialised);
    this.queueBytes += bytes;
    if (this.queue.length >= this.maxBatch && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        this.pump();
      });
    }
  }

  /** Exports everything queued now and waits for every export under way. Never rejects. */
  async flush(): Promise<void> {
    this.pump();
    while (this.inflight.size > 0) await Promise.race(this.inflight);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.flush();
    this.agent.destroy();
  }

  /** Starts exports of queued spans, up to MAX_CONCURRENT_EXPORTS at a time; the rest wait in the queue. */
  private pump(): void {
    while (this.queue.length > 0 && this.inflight.size < MAX_CONCURRENT_EXPORTS) {
      let n = 0;
      let bytes = 0;
      while (n < this.queue.length && n < this.maxBatch && (n === 0 || bytes + this.queue[n].bytes <= MAX_BATCH_BYTES))
        bytes += this.queue[n++].bytes;
      const batch = this.queue.splice(0, n);
      this.queueBytes -= bytes;
      const p: Promise<void> = this.send(batch.map((q) => q.json)).finally(() => {
        this.inflight.delete(p);
        this.pump();
      });
      this.inflight.add(p);
    }
  }

  /** `spans`: each already serialised; the OTLP envelope (resourceSpans → scopeSpans) is written around them. */
  private send(spans: string[]): Promise<void> {
    const body = `{"resourceSpans":[{"resource":${this.resourceJson},"scopeSpans":[{"scope":{"name":"gateway"},"spans":[${spans.join(',')}]}]}]}`;
    return new Promise<void>((resolve) => {
      let settled = false;
      const done = (err?: string) => {
        if (settled) return;
        settled = true;
        if (err === undefined) {
          this.stats.exported += spans.length;
          this.failing = false;
        } else {
          this.stats.failed += spans.length;
          if (!this.failing) {
            this.failing = true;
            try {
              this.logger?.log('warn', 'trace export failed', {
                otlp_endpoint: `${this.url.origin}${this.url.pathname}`,
                error: err,
                spans: spans.length,
              });
            } catch {
              // ignore
            }
          }
        }
        resolve();
      };
      try {
        const mod = this.url.protocol === 'https:' ? https : http;
        const req = mod.request(this.url, {
          method: 'POST',
          agent: this.agent,
          headers: { ...this.headers, 'content-length': Buffer.byteLength(body) },
          timeout: this.timeoutMs,
        });
        req.on('response', (res) => {
          const code = res.statusCode ?? 0;
          done(code >= 200 && code < 300 ? undefined : `HTTP ${code}`);
          res.on('error', () => {});
          res.resume();
        });
        req.on('timeout', () => req.destroy(new Error(`timed out after ${this.timeoutMs} ms`)));
        req.on('error', (e) => done(e.message));
        req.on('close', () => done('connection closed'));
        req.end(body);
      } catch (e) {
        done((e as Error).message);
      }
    });
  }
}
