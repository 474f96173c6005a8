/**
 * Between the BatchSpanProcessor and the OTLP exporter: sends at most two batches at a time,
 * counts what was exported or failed, and logs a failing collector once per outage.
 *
 * The processor only batches and times. It is told at once that a batch was taken, so it goes on
 * batching while a slow collector holds the two sends; batches waiting here still count against
 * the span queue's bound (span-queue.ts) until their send starts. Memory in flight is therefore at
 * most two batches, however slow the collector.
 */

import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from './logger.js';

type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];
// ExportResultCode (@opentelemetry/core, not a direct dependency of the gateway).
const SUCCESS = 0;
const FAILED = 1;

const MAX_CONCURRENT_EXPORTS = 2;

export interface TracingStats {
  /** Spans the collector accepted. */
  exported: number;
  /** Spans in exports that failed (network error, timeout or non-2xx, after the exporter's retries). */
  failed: number;
  /** Spans dropped because the queue was full (in spans or bytes) or the tracer was closed. */
  dropped: number;
}

export interface ExportGateOptions {
  stats: TracingStats;
  /** Called with each batch as its send starts (or is given up): those spans leave the queue. */
  onTaken(spans: readonly ReadableSpan[]): void;
  /** Where failures are logged: origin and path only (a query string may carry credentials). */
  endpointLabel: string;
  logger?: Pick<Logger, 'log'>;
}

export class ExportGate implements SpanExporter {
  private readonly waiting: ReadableSpan[][] = [];
  private active = 0;
  private stopped = false;
  private failing = false;
  private idle: Array<() => void> = [];

  constructor(
    private readonly inner: SpanExporter,
    private readonly opts: ExportGateOptions,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    if (this.stopped) this.giveUp(spans);
    else this.waiting.push(spans);
    done({ code: SUCCESS });
    this.pump();
  }

  /** Resolves once no batch waits and no send is under way. Never rejects. */
  forceFlush(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
    await this.inner.shutdown().catch(() => undefined);
  }

  /** Starts no more sends: waiting batches are counted as failed; sends under way finish on their own. */
  stop(): void {
    this.stopped = true;
    for (const batch of this.waiting.splice(0)) this.giveUp(batch);
    this.pump();
  }

  private giveUp(batch: readonly ReadableSpan[]): void {
    this.opts.onTaken(batch);
    this.opts.stats.failed += batch.length;
  }

  private pump(): void {
    while (!this.stopped && this.active < MAX_CONCURRENT_EXPORTS && this.waiting.length > 0) {
      this.send(this.waiting.shift()!);
    }
    if (this.active === 0 && this.waiting.length === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  private send(batch: ReadableSpan[]): void {
    this.opts.onTaken(batch);
    this.active++;
    let settled = false;
    const finish = (result: ExportResult) => {
      if (settled) return;
      settled = true;
      this.active--;
      this.record(batch.length, result);
      // On a later turn: the OTLP exporter frees its own concurrency slot only after this callback.
      setImmediate(() => this.pump());
    };
    try {
      this.inner.export(batch, finish);
    } catch (e) {
      finish({ code: FAILED, error: e instanceof Error ? e : new Error(String(e)) });
    }
  }

  private record(spans: number, result: ExportResult): void {
    if (result.code === SUCCESS) {
      this.opts.stats.exported += spans;
      this.failing = false;
      return;
    }
    this.opts.stats.failed += spans;
    if (this.failing) return;
    this.failing = true;
    try {
      this.opts.logger?.log('warn', 'trace export failed', {
        otlp_endpoint: this.opts.endpointLabel,
        error: describe(result.error),
        spans,
      });
    } catch {
      // A failing logger must not stop the exports.
    }
  }
}

/** The reason, without the response body (OTLPExporterError keeps it in `data`). */
function describe(error: Error | undefined): string {
  if (!error) return 'export failed';
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? `HTTP ${code}` : error.message || error.name;
}
