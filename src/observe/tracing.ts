/**
 * Traces, off unless configured: one SERVER span per finished request and one CLIENT child span
 * per upstream attempt, made with the OpenTelemetry JS SDK from the request record's timestamps
 * (request-spans.ts says what they contain) and sent to an OTLP/HTTP collector as JSON.
 *
 * An incoming W3C `traceparent` is honoured (same trace, parent = the caller's span); a malformed
 * one is ignored and the request starts a new trace. Nothing is registered globally: the tracer
 * provider is this object's own, so the gateway as a library leaves the host's OpenTelemetry
 * setup alone.
 *
 * Export (batched, bounded in spans and estimated bytes, failures counted and never reaching the
 * request path) is span-queue.ts and export-gate.ts.
 */

import http from 'node:http';
import https from 'node:https';
import { ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, TraceFlags, type Tracer, trace } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import type { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { boundField } from './bound-field.js';
import { otelSdk } from './otel-sdk.js';
import type { TracingStats } from './export-gate.js';
import type { Logger } from './logger.js';
import type { AttemptRecord, RequestRecord, Telemetry } from './record.js';
import { MAX_STRING, requestSpans, type SpanSpec } from './request-spans.js';
import { SpanQueue } from './span-queue.js';
import { parseTraceparent } from './traceparent.js';

export type { TracingStats } from './export-gate.js';
export { parseTraceparent, type TraceParent } from './traceparent.js';

export interface OtlpTracingOptions {
  /** OTLP/HTTP traces URL, e.g. http://127.0.0.1:4318/v1/traces (used as is). */
  endpoint: string;
  /** Resource attribute `service.name`. */
  serviceName: string;
  serviceVersion?: string;
  /** Extra resource attributes (e.g. deployment.environment.name). */
  resourceAttributes?: Readonly<Record<string, string | number | boolean>>;
  /** Sent with every export (e.g. an authorization header for a hosted collector); never logged. */
  headers?: Readonly<Record<string, string>>;
  /**
   * Provider id → its API kind ("openai" | "anthropic" | "mock"), for gen_ai.provider.name and
   * gen_ai.system; `config.providers` fits as is. Providers not in it are named by their id.
   */
  providers?: ReadonlyMap<string, { api: string }> | Readonly<Record<string, string>>;
  /** Default 1000. */
  flushIntervalMs?: number;
  /** Export as soon as this many spans are queued; also the most spans in one export. Default 100. */
  maxBatchSpans?: number;
  /** Spans queued beyond this are dropped (and counted). Default 4096. */
  maxQueueSpans?: number;
  /** Spans queued beyond this many bytes (estimated OTLP JSON) are dropped (and counted). Default 8 MiB. */
  maxQueueBytes?: number;
  /** Per export request, the exporter's retries included. Default 10000. */
  exportTimeoutMs?: number;
  /**
   * A caller's traceparent whose sampled flag is 0: drop the request's spans (the OpenTelemetry
   * parent-based default). Set false to record them anyway. Default true.
   */
  respectParentSampling?: boolean;
  /** Export failures are logged here at `warn`, once per outage (the first failure after a success). */
  logger?: Pick<Logger, 'log'>;
}

type ExporterConfig = NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>;

/** Instrumentation scope of every span. */
const SCOPE = 'gateway';
/** Limits the SDK applies to every span: a backstop, the attributes built here are bounded already. */
const SPAN_LIMITS = {
  attributeValueLengthLimit: 2 * MAX_STRING,
  attributeCountLimit: 64,
  eventCountLimit: 8,
  attributePerEventCountLimit: 8,
  linkCountLimit: 0,
  attributePerLinkCountLimit: 0,
};

export class OtlpTracing implements Telemetry {
  private readonly kinds = new Map<string, string>();
  private readonly respectSampling: boolean;
  private readonly queue: SpanQueue;
  private readonly tracer: Tracer;
  private readonly agent: http.Agent;
  private readonly closeWaitMs: number;
  private closing: Promise<void> | undefined;

  constructor(opts: OtlpTracingOptions) {
    const url = new URL(opts.endpoint);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error(`The OTLP traces endpoint must be an http(s) URL, not ${url.protocol}`);
    }
    const exportTimeoutMs = opts.exportTimeoutMs ?? 10_000;
    // Our own agent, so close() can release its sockets.
    this.agent =
      url.protocol === 'https:'
        ? new https.Agent({ keepAlive: true, maxSockets: 4 })
        : new http.Agent({ keepAlive: true, maxSockets: 4 });
    const { OTLPTraceExporter, BasicTracerProvider, AlwaysOnSampler, defaultResource, resourceFromAttributes } =
      otelSdk();
    const exporter = new OTLPTraceExporter({
      url: opts.endpoint,
      headers: { ...opts.headers },
      timeoutMillis: exportTimeoutMs,
      // The gate sends two at a time; headroom because the exporter frees a slot a tick late.
      concurrencyLimit: 4,
      // Pinned: OTEL_EXPORTER_OTLP_COMPRESSION must not change what the collector is sent.
      compression: 'none' as ExporterConfig['compression'],
      httpAgentOptions: () => this.agent,
    });
    this.queue = new SpanQueue(exporter, {
      maxBatchSpans: opts.maxBatchSpans ?? 100,
      maxQueueSpans: opts.maxQueueSpans ?? 4096,
      maxQueueBytes: opts.maxQueueBytes ?? 8 * 1024 * 1024,
      flushIntervalMs: opts.flushIntervalMs ?? 1000,
      exportTimeoutMs: exportTimeoutMs + 1000,
      endpointLabel: `${url.origin}${url.pathname}`,
      logger: opts.logger,
    });
    // close() waits this long for the queue to drain, then gives up on what has not been sent.
    this.closeWaitMs = exportTimeoutMs + 1000;

    const provider = new BasicTracerProvider({
      resource: defaultResource().merge(resourceFromAttributes(resourceAttributes(opts))),
      spanLimits: SPAN_LIMITS,
      // Sampling is decided in onRequest (the caller's flag); every span made here is recorded.
      sampler: new AlwaysOnSampler(),
      spanProcessors: [this.queue],
    });
    this.tracer = provider.getTracer(SCOPE);

    const p = opts.providers;
    if (p instanceof Map) for (const [id, v] of p) this.kinds.set(id, v.api);
    else if (p) for (const [id, api] of Object.entries(p as Record<string, string>)) this.kinds.set(id, api);
    this.respectSampling = opts.respectParentSampling ?? true;
  }

  /** Exported, failed and dropped span counts. */
  get stats(): TracingStats {
    return this.queue.stats;
  }

  /** Estimated bytes (OTLP JSON) of spans waiting for export, bounded by `maxQueueBytes`. */
  get queuedBytes(): number {
    return this.queue.queuedBytes;
  }

  /** Spans waiting for export, bounded by `maxQueueSpans`. */
  get queuedSpans(): number {
    return this.queue.queuedSpans;
  }

  onRequest(
    record: RequestRecord,
    detail: { attempts: readonly AttemptRecord[]; traceparent?: string; startEpochMs: number },
  ): void {
    try {
      const parent = parseTraceparent(detail.traceparent);
      if (parent && !parent.sampled && this.respectSampling) return;
      const spans = requestSpans(record, detail, this.kinds);
      const callerContext = parent
        ? trace.setSpanContext(ROOT_CONTEXT, {
            traceId: parent.traceId,
            spanId: parent.spanId,
            traceFlags: TraceFlags.SAMPLED,
            isRemote: true,
          })
        : ROOT_CONTEXT;
      this.queue.together(() => {
        const server = this.start(spans.server, SpanKind.SERVER, callerContext);
        const inServer = trace.setSpan(ROOT_CONTEXT, server);
        for (const a of spans.attempts) this.start(a, SpanKind.CLIENT, inServer).end(a.end);
        server.end(spans.server.end);
      });
    } catch {
      // Tracing never breaks a request.
    }
  }

  /** Exports everything queued now and waits for every export under way. Never rejects. */
  flush(): Promise<void> {
    return this.queue.forceFlush();
  }

  /** Exports what is queued (waiting at most about one export timeout); later requests are dropped. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.closeWaitMs);
      timer.unref();
    });
    await Promise.race([this.queue.shutdown(), deadline]);
    clearTimeout(timer);
    this.queue.stop();
    this.agent.destroy();
  }

  /** Starts a span with the spec's times, attributes, events and status; the caller ends it. */
  private start(spec: SpanSpec, kind: SpanKind, parent: Context): Span {
    const span = this.tracer.startSpan(spec.name, { kind, startTime: spec.start }, parent);
    span.setAttributes(spec.attributes);
    for (const e of spec.events) span.addEvent(e.name, e.time);
    if (spec.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: spec.error });
    return span;
  }
}

/** service.name, service.version and the configured extras over the SDK's own (telemetry.sdk.*). */
function resourceAttributes(opts: OtlpTracingOptions): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  const set = (key: string, v: string | number | boolean | undefined) => {
    if (typeof v === 'string') {
      if (v !== '') out[key] = boundField(v, MAX_STRING);
    } else if (typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) out[key] = v;
  };
  for (const [k, v] of Object.entries(opts.resourceAttributes ?? {})) set(k, v);
  set('service.name', opts.serviceName);
  set('service.version', opts.serviceVersion);
  return out;
}
