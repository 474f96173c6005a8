/**
 * The bounded span queue: a SpanProcessor in front of the SDK's BatchSpanProcessor that admits
 * finished spans only while the spans waiting for export stay under a count and a size bound.
 * Over either bound new spans are dropped and counted, so a slow or unreachable collector costs
 * bounded memory instead of piling spans up.
 *
 * The size is an estimate of each span's OTLP JSON encoding (strings by UTF-8 length plus a fixed
 * allowance for the envelope of each field), taken when the span is admitted and given back when
 * its export starts (export-gate.ts). Caller text in attributes is already bounded (bound-field.ts),
 * so one span's estimate is small; the byte bound matters when many spans carry long values.
 */

import { TraceFlags } from '@opentelemetry/api';
import type { AttributeValue, Attributes } from '@opentelemetry/api';
import type { BatchSpanProcessor, ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { otelSdk } from './otel-sdk.js';
import type { Logger } from './logger.js';
import { ExportGate, type TracingStats } from './export-gate.js';

export interface SpanQueueOptions {
  /** Export as soon as this many spans are queued; also the most spans in one export. */
  maxBatchSpans: number;
  maxQueueSpans: number;
  /** Estimated OTLP JSON bytes (see above). */
  maxQueueBytes: number;
  flushIntervalMs: number;
  /** How long the batch processor waits for one export (the gate answers at once; a backstop). */
  exportTimeoutMs: number;
  endpointLabel: string;
  logger?: Pick<Logger, 'log'>;
}

export class SpanQueue implements SpanProcessor {
  readonly stats: TracingStats = { exported: 0, failed: 0, dropped: 0 };
  private readonly batch: BatchSpanProcessor;
  private readonly gate: ExportGate;
  private readonly maxSpans: number;
  private readonly maxBytes: number;
  private readonly sizes = new WeakMap<ReadableSpan, number>();
  private spans = 0;
  private bytes = 0;
  private group: ReadableSpan[] | undefined;
  private closed = false;

  constructor(exporter: SpanExporter, opts: SpanQueueOptions) {
    const maxBatch = Math.max(1, opts.maxBatchSpans);
    this.maxSpans = Math.max(maxBatch, opts.maxQueueSpans);
    this.maxBytes = Math.max(1, opts.maxQueueBytes);
    this.gate = new ExportGate(exporter, {
      stats: this.stats,
      onTaken: (spans) => this.release(spans),
      endpointLabel: opts.endpointLabel,
      logger: opts.logger,
    });
    this.batch = new (otelSdk().BatchSpanProcessor)(this.gate, {
      maxExportBatchSize: maxBatch,
      // Never reached: admission below keeps the processor's queue within this.
      maxQueueSize: this.maxSpans,
      scheduledDelayMillis: Math.max(10, opts.flushIntervalMs),
      exportTimeoutMillis: opts.exportTimeoutMs,
    });
  }

  /** Estimated bytes of spans waiting for export (at most `maxQueueBytes`). */
  get queuedBytes(): number {
    return this.bytes;
  }

  get queuedSpans(): number {
    return this.spans;
  }

  /** Runs `fn`; the spans it ends are admitted all together or dropped all together (no orphan children). */
  together(fn: () => void): void {
    const group: ReadableSpan[] = [];
    this.group = group;
    try {
      fn();
    } finally {
      this.group = undefined;
      this.admit(group);
    }
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.group) this.group.push(span);
    else this.admit([span]);
  }

  /** Hands every queued span to the exporter and waits until all sends are done. Never rejects. */
  async forceFlush(): Promise<void> {
    await this.batch.forceFlush().catch(() => undefined);
    await this.gate.forceFlush();
  }

  /** Drops spans from now on, exports what is queued and waits for it. Never rejects. */
  async shutdown(): Promise<void> {
    this.closed = true;
    await this.batch.shutdown().catch(() => undefined);
  }

  /** After shutdown took too long: sends nothing more (what still waits is counted as failed). */
  stop(): void {
    this.closed = true;
    this.gate.stop();
  }

  private admit(spans: readonly ReadableSpan[]): void {
    // The batch processor ignores unsampled spans: counting them would never be given back.
    const sampled = spans.filter((s) => (s.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0);
    if (sampled.length === 0) return;
    const sizes = sampled.map(estimateBytes);
    const bytes = sizes.reduce((a, b) => a + b, 0);
    if (this.closed || this.spans + sampled.length > this.maxSpans || this.bytes + bytes > this.maxBytes) {
      this.stats.dropped += sampled.length;
      return;
    }
    // Counted before handing over: the processor may export (and release) synchronously.
    this.spans += sampled.length;
    this.bytes += bytes;
    sampled.forEach((s, i) => {
      this.sizes.set(s, sizes[i]);
      this.batch.onEnd(s);
    });
  }

  private release(spans: readonly ReadableSpan[]): void {
    for (const s of spans) {
      const size = this.sizes.get(s);
      if (size === undefined) continue;
      this.sizes.delete(s);
      this.spans--;
      this.bytes -= size;
    }
  }
}

// Rough OTLP JSON overheads: a span's fixed fields (ids, times, kind, status, counters), one
// attribute's {"key":…,"value":{"stringValue":…}} envelope, one event's fixed fields.
const SPAN_BYTES = 360;
const ATTRIBUTE_BYTES = 40;
const EVENT_BYTES = 100;

/** Estimated size of one span in OTLP JSON. */
export function estimateBytes(span: ReadableSpan): number {
  let n = SPAN_BYTES + Buffer.byteLength(span.name) + attributesBytes(span.attributes);
  if (span.status.message) n += Buffer.byteLength(span.status.message);
  for (const e of span.events) n += EVENT_BYTES + Buffer.byteLength(e.name) + attributesBytes(e.attributes);
  return n;
}

function attributesBytes(attributes: Attributes | undefined): number {
  let n = 0;
  for (const key in attributes) n += ATTRIBUTE_BYTES + key.length + valueBytes(attributes[key]);
  return n;
}

function valueBytes(v: AttributeValue | undefined): number {
  if (typeof v === 'string') return Buffer.byteLength(v);
  if (Array.isArray(v)) {
    let n = 0;
    for (const item of v) n += 20 + (typeof item === 'string' ? Buffer.byteLength(item) : 24);
    return n;
  }
  return 24;
}
