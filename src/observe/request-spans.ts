/**
 * What the spans of one finished request say: names, times and attributes, made from the request
 * record after the fact. tracing.ts turns them into OpenTelemetry SDK spans.
 *
 * Attributes follow the OpenTelemetry GenAI semantic conventions where they apply
 * (gen_ai.operation.name, gen_ai.provider.name / gen_ai.system, gen_ai.request.model,
 * gen_ai.response.model, gen_ai.usage.*), HTTP ones for the status, `gateway.*` for the rest.
 * Absent values are left out rather than sent empty.
 */

import type { Attributes, HrTime } from '@opentelemetry/api';
import { boundField } from './bound-field.js';
import type { AttemptRecord, RequestRecord } from './record.js';

/** Characters kept of a string attribute; span names are cut shorter. */
export const MAX_STRING = 1024;
const MAX_NAME = 256;

export interface SpanSpec {
  name: string;
  start: HrTime;
  end: HrTime;
  attributes: Attributes;
  events: Array<{ name: string; time: HrTime }>;
  /** Set: the span's status is ERROR with this message. */
  error?: string;
}

export interface RequestSpans {
  server: SpanSpec;
  /** One per upstream attempt, in order: children of `server`. */
  attempts: SpanSpec[];
}

/** Epoch milliseconds (possibly fractional) → [seconds, nanoseconds], exact to the nanosecond. */
export function hrTimeOf(ms: number): HrTime {
  const whole = Math.floor(ms);
  const msInSecond = whole % 1000;
  let nanos = msInSecond * 1e6 + Math.round((ms - whole) * 1e6);
  let seconds = (whole - msInSecond) / 1000;
  if (nanos >= 1e9) {
    seconds += 1;
    nanos -= 1e9;
  }
  return [seconds, nanos];
}

/** Builds an attribute map, skipping absent values; caller text is bounded (a copy, see bound-field.ts). */
class Attrs {
  readonly map: Attributes = {};
  str(key: string, v: string | undefined): this {
    if (v !== undefined && v !== '') this.map[key] = boundField(v, MAX_STRING);
    return this;
  }
  int(key: string, v: number | undefined): this {
    if (typeof v === 'number' && Number.isFinite(v)) this.map[key] = Math.trunc(v);
    return this;
  }
  dbl(key: string, v: number | undefined): this {
    if (typeof v === 'number' && Number.isFinite(v)) this.map[key] = v;
    return this;
  }
  bool(key: string, v: boolean | undefined): this {
    if (typeof v === 'boolean') this.map[key] = v;
    return this;
  }
  strs(key: string, v: string[] | undefined): this {
    if (v && v.length > 0) this.map[key] = v;
    return this;
  }
}

/** The GenAI operation of an endpoint; undefined for endpoints that are not model calls. */
function operationOf(endpoint: string): string | undefined {
  const path = endpoint.split(' ').pop() ?? '';
  if (path.endsWith('/embeddings')) return 'embeddings';
  return path.endsWith('/chat/completions') || path.endsWith('/messages') ? 'chat' : undefined;
}

const clip = (s: string) => boundField(s, MAX_NAME);
const finite = (n: number | undefined): n is number => n !== undefined && Number.isFinite(n);

/**
 * The spans of one finished request. `kinds`: provider id → API kind, for gen_ai.provider.name;
 * providers not in it are named by their id.
 */
export function requestSpans(
  r: RequestRecord,
  detail: { attempts: readonly AttemptRecord[]; startEpochMs: number },
  kinds: ReadonlyMap<string, string>,
): RequestSpans {
  const latency = Number.isFinite(r.latency_ms) ? Math.max(0, r.latency_ms) : 0;
  const start = Number.isFinite(detail.startEpochMs) ? detail.startEpochMs : Date.now() - latency;
  const end = start + latency;
  const op = operationOf(r.endpoint);
  const [method, route] = r.endpoint.includes(' ') ? r.endpoint.split(' ', 2) : [undefined, r.endpoint];
  const providerName = r.provider !== undefined ? (kinds.get(r.provider) ?? r.provider) : undefined;
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
  const server: SpanSpec = {
    name: clip(op ? (r.model ? `${op} ${r.model}` : op) : r.endpoint),
    start: hrTimeOf(start),
    end: hrTimeOf(end),
    attributes: a.map,
    events: finite(r.ttft_ms) ? [{ name: 'gateway.first_byte_sent', time: hrTimeOf(start + r.ttft_ms) }] : [],
    error: errorType,
  };

  const attempts = detail.attempts.map((at, i): SpanSpec => {
    const aStart = Number.isFinite(at.startMs) ? at.startMs : start;
    const aEnd = Math.max(aStart, finite(at.endMs) ? at.endMs : end);
    const kind = kinds.get(at.provider) ?? at.provider;
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
    return {
      name: clip(`${op ?? 'chat'} ${at.model}`),
      start: hrTimeOf(aStart),
      end: hrTimeOf(aEnd),
      attributes: attrs.map,
      events: finite(at.firstByteMs) ? [{ name: 'gateway.first_byte_received', time: hrTimeOf(at.firstByteMs) }] : [],
      // Only a failed attempt has ERROR status; error.type may still say why another one stopped.
      error: failed ? aError : undefined,
    };
  });
  return { server, attempts };
}
