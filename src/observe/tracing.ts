/**
 * Traces, off unless configured: one SERVER span per finished request and one CLIENT child span
 * per upstream attempt, built after the fact from the request record's timestamps and sent to an
 * OTLP/HTTP collector as JSON (`Content-Type: application/json`, the OTLP JSON encoding:
 * resourceSpans → scopeSpans → spans, hex trace/span ids, nanosecond timestamps as strings).
 *
 * Attributes follow the OpenTelemetry GenAI semantic conventions where they apply
 * (gen_ai.operation.name, gen_ai.provider.name / gen_ai.system, gen_ai.request.model,
 * gen_ai.response.model, gen_ai.usage.*), HTTP ones for the status, `gateway.*` for the rest.
 * An incoming W3C `traceparent` is honoured (same trace, parent = the caller's span); a malformed
 * one is ignored and the request starts a new trace.
 *
 * Written by hand rather than with the OpenTelemetry SDK: spans here are made from recorded
 * timestamps with known ids, and the current SDK and exporter releases require Node >= 22.
 *
 * Export (batched, bounded in spans and bytes, failures counted and never reaching the request
 * path) is otlp-export.ts. String attributes and span names are bounded (bound-field.ts).
 */

import { randomBytes } from 'node:crypto';
import { boundField } from './bound-field.js';
import type { Logger } from './logger.js';
import { OtlpSpanExport, type TracingStats } from './otlp-export.js';
import type { AttemptRecord, RequestRecord, Telemetry } from './record.js';

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
  /** Serialised spans queued beyond this many bytes are dropped (and counted). Default 8 MiB. */
  maxQueueBytes?: number;
  /** Per export request. Default 10000. */
  exportTimeoutMs?: number;
  /**
   * A caller's traceparent whose sampled flag is 0: drop the request's spans (the OpenTelemetry
   * parent-based default). Set false to record them anyway. Default true.
   */
  respectParentSampling?: boolean;
  /** Export failures are logged here at `warn`, once per outage (the first failure after a success). */
  logger?: Pick<Logger, 'log'>;
}

export interface TraceParent {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** Parses a W3C traceparent header; undefined when it is missing or malformed. */
export function parseTraceparent(header: string | undefined): TraceParent | undefined {
  if (typeof header !== 'string' || header.length > 512) return undefined;
  const m = TRACEPARENT.exec(header.trim());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === 'ff') return undefined;
  // Version 00 has exactly four fields; later versions may append more (forward compatible).
  if (version === '00' && rest !== undefined) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 };
}

// ---- OTLP JSON shapes (the subset written here) ----

export type OtlpAnyValue =
  | { stringValue: string }
  | { intValue: number | string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: OtlpAnyValue[] } };

export interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}

export interface OtlpEvent {
  timeUnixNano: string;
  name: string;
  attributes?: OtlpKeyValue[];
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 2 SERVER, 3 CLIENT. */
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  events?: OtlpEvent[];
  /** code 0 UNSET, 1 OK, 2 ERROR. */
  status?: { code: number; message?: string };
}

export const SPAN_KIND_SERVER = 2;
export const SPAN_KIND_CLIENT = 3;
export const STATUS_ERROR = 2;

/** Epoch milliseconds (possibly fractional) → Unix nanoseconds as a decimal string (exact beyond 2^53). */
export function unixNano(ms: number): string {
  const whole = Math.floor(ms);
  const frac = Math.round((ms - whole) * 1e6);
  return (BigInt(whole) * 1_000_000n + BigInt(frac)).toString();
}

const MAX_STRING = 1024;
const MAX_NAME = 256;

class Attrs {
  readonly list: OtlpKeyValue[] = [];
  str(key: string, v: string | undefined): this {
    if (v !== undefined && v !== '') this.list.push({ key, value: { stringValue: boundField(v, MAX_STRING) } });
    return this;
  }
  int(key: string, v: number | undefined): this {
    if (typeof v === 'number' && Number.isFinite(v)) this.list.push({ key, value: { intValue: Math.trunc(v) } });
    return this;
  }
  dbl(key: string, v: number | undefined): this {
    if (typeof v === 'number' && Number.isFinite(v)) this.list.push({ key, value: { doubleValue: v } });
    return this;
  }
  bool(key: string, v: boolean | undefined): this {
    if (typeof v === 'boolean') this.list.push({ key, value: { boolValue: v } });
    return this;
  }
  strs(key: string, v: string[] | undefined): this {
    if (v && v.length > 0)
      this.list.push({ key, value: { arrayValue: { values: v.map((s) => ({ stringValue: s })) } } });
    return this;
  }
}

/** The GenAI operation of an endpoint; undefined for endpoints that are not model calls. */
function operationOf(endpoint: string): string | undefined {
  const path = endpoint.split(' ').pop() ?? '';
  return path.endsWith('/chat/completions') || path.endsWith('/messages') ? 'chat' : undefined;
}

const spanId = () => randomBytes(8).toString('hex');
const traceId = () => randomBytes(16).toString('hex');
const clip = (s: string) => boundField(s, MAX_NAME);

export type { TracingStats } from './otlp-export.js';

export class OtlpTracing implements Telemetry {
  private readonly kinds: Map<string, string>;
  private readonly respectSampling: boolean;
  private readonly exporter: OtlpSpanExport;

  constructor(opts: OtlpTracingOptions) {
    const res = new Attrs().str('service.name', opts.serviceName).str('service.version', opts.serviceVersion);
    res.str('telemetry.sdk.language', 'nodejs').str('telemetry.sdk.name', 'gateway');
    for (const [k, v] of Object.entries(opts.resourceAttributes ?? {})) {
      if (typeof v === 'string') res.str(k, v);
      else if (typeof v === 'boolean') res.bool(k, v);
      else if (Number.isInteger(v)) res.int(k, v);
      else res.dbl(k, v);
    }
    this.exporter = new OtlpSpanExport({
      ...opts,
      resource: { attributes: res.list },
      maxBatchSpans: Math.max(1, opts.maxBatchSpans ?? 100),
      maxQueueSpans: opts.maxQueueSpans ?? 4096,
      maxQueueBytes: opts.maxQueueBytes ?? 8 * 1024 * 1024,
      flushIntervalMs: opts.flushIntervalMs ?? 1000,
      exportTimeoutMs: opts.exportTimeoutMs ?? 10_000,
    });
    this.kinds = new Map();
    const p = opts.providers;
    if (p instanceof Map) for (const [id, v] of p) this.kinds.set(id, v.api);
    else if (p) for (const [id, api] of Object.entries(p as Record<string, string>)) this.kinds.set(id, api);
    this.respectSampling = opts.respectParentSampling ?? true;
  }

  /** Exported, failed and dropped span counts. */
  get stats(): TracingStats {
    return this.exporter.stats;
  }

  /** Bytes of serialised spans waiting for export (bounded by `maxQueueBytes`). */
  get queuedBytes(): number {
    return this.exporter.queuedBytes;
  }

  onRequest(
    record: RequestRecord,
    detail: { attempts: readonly AttemptRecord[]; traceparent?: string; startEpochMs: number },
  ): void {
    try {
      const spans = this.spansOf(record, detail);
      if (spans.length > 0) this.exporter.enqueue(spans);
    } catch {
      // Tracing never breaks a request.
    }
  }

  /** Exports everything queued now and waits for every export under way. Never rejects. */
  flush(): Promise<void> {
    return this.exporter.flush();
  }

  close(): Promise<void> {
    return this.exporter.close();
  }

  /** The spans of one finished request (exported for tests and for other sinks). */
  spansOf(
    r: RequestRecord,
    detail: { attempts: readonly AttemptRecord[]; traceparent?: string; startEpochMs: number },
  ): OtlpSpan[] {
    const parent = parseTraceparent(detail.traceparent);
    if (parent && !parent.sampled && this.respectSampling) return [];
    const trace = parent?.traceId ?? traceId();
    const serverId = spanId();
    const latency = Number.isFinite(r.latency_ms) ? Math.max(0, r.latency_ms) : 0;
    const start = Number.isFinite(detail.startEpochMs) ? detail.startEpochMs : Date.now() - latency;
    const end = start + latency;
    const op = operationOf(r.endpoint);
    const [method, route] = r.endpoint.includes(' ') ? r.endpoint.split(' ', 2) : [undefined, r.endpoint];
    const providerName = r.provider !== undefined ? (this.kinds.get(r.provider) ?? r.provider) : undefined;

    const errorType =
      r.error_code ?? (r.client_aborted ? 'client_aborted' : r.status >= 400 ? String(r.status) : undefined);
    const a = new Attrs()
      .str('gen_ai.operation.name', op)
      .str('gen_ai.provider.name', providerName)
      .str('gen_ai.system', providerName)
      .str('gen_ai.request.model', r.model)
      .str('gen_ai.response.model', r.served_model)
      .int('gen_ai.usage.input_tokens', r.input_tokens)
      .int('gen_ai.usage.output_tokens', r.output_tokens)
      .int('gen_ai.usage.cache_read.input_tokens', r.cache_read_tokens)
      .int('gen_ai.usage.cache_creation.input_tokens', r.cache_write_tokens)
      .str('http.request.method', method)
      .str('http.route', route)
      .int('http.response.status_code', r.status > 0 ? r.status : undefined)
      .str('error.type', errorType)
      .str('gateway.correlation_id', r.correlation_id)
      .str('gateway.endpoint', r.endpoint)
      .str('gateway.provider', r.provider)
      .str('gateway.key_id', r.key_id)
      .str('gateway.role', r.role)
      .str('gateway.fault', r.fault)
      .dbl('gateway.cost_usd', r.cost_usd)
      .int('gateway.attempts', r.attempts)
      .bool('gateway.fallback', r.fallback)
      .bool('gateway.stream', r.stream)
      .bool('gateway.byok', r.byok)
      .bool('gateway.client_aborted', r.client_aborted)
      .dbl('gateway.latency_ms', r.latency_ms)
      .dbl('gateway.upstream_ms', r.upstream_ms)
      .dbl('gateway.overhead_ms', r.overhead_ms)
      .dbl('gateway.ttft_ms', r.ttft_ms)
      .strs(
        'gateway.guardrails',
        r.guardrails?.map((g) => `${g.guardrail}:${g.action}:${g.direction}`),
      );
    const events: OtlpEvent[] = [];
    if (r.ttft_ms !== undefined && Number.isFinite(r.ttft_ms))
      events.push({ timeUnixNano: unixNano(start + r.ttft_ms), name: 'gateway.first_byte_sent' });

    const server: OtlpSpan = {
      traceId: trace,
      spanId: serverId,
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      name: clip(op ? (r.model ? `${op} ${r.model}` : op) : r.endpoint),
      kind: SPAN_KIND_SERVER,
      startTimeUnixNano: unixNano(start),
      endTimeUnixNano: unixNano(end),
      attributes: a.list,
      ...(events.length > 0 ? { events } : {}),
      ...(errorType !== undefined ? { status: { code: STATUS_ERROR, message: errorType } } : {}),
    };
    const spans = [server];

    detail.attempts.forEach((at, i) => {
      const aStart = Number.isFinite(at.startMs) ? at.startMs : start;
      const aEnd = Math.max(aStart, at.endMs !== undefined && Number.isFinite(at.endMs) ? at.endMs : end);
      const kind = this.kinds.get(at.provider) ?? at.provider;
      const failed = at.outcome === 'failed';
      const aError =
        at.errorCode ??
        (failed ? (at.status !== undefined && at.status >= 400 ? String(at.status) : 'failed') : undefined);
      const attrs = new Attrs()
        .str('gen_ai.operation.name', op ?? 'chat')
        .str('gen_ai.provider.name', kind)
        .str('gen_ai.system', kind)
        .str('gen_ai.request.model', at.model)
        .int('http.response.status_code', at.status)
        .str('error.type', aError)
        .str('gateway.provider', at.provider)
        .str('gateway.model', at.model)
        .int('gateway.attempt', i + 1)
        .str('gateway.attempt.outcome', at.outcome)
        .bool('gateway.byok', at.byok);
      const aEvents: OtlpEvent[] =
        at.firstByteMs !== undefined && Number.isFinite(at.firstByteMs)
          ? [{ timeUnixNano: unixNano(at.firstByteMs), name: 'gateway.first_byte_received' }]
          : [];
      spans.push({
        traceId: trace,
        spanId: spanId(),
        parentSpanId: serverId,
        name: clip(`${op ?? 'chat'} ${at.model}`),
        kind: SPAN_KIND_CLIENT,
        startTimeUnixNano: unixNano(aStart),
        endTimeUnixNano: unixNano(aEnd),
        attributes: attrs.list,
        ...(aEvents.length > 0 ? { events: aEvents } : {}),
        ...(failed ? { status: { code: STATUS_ERROR, message: aError } } : {}),
      });
    });
    return spans;
  }
}
