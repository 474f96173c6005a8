import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AttemptRecord, RequestRecord } from '../../../src/observe/record.js';
import { hrTimeOf } from '../../../src/observe/request-spans.js';
import { OtlpTracing, parseTraceparent } from '../../../src/observe/tracing.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../helpers/otlp-receiver.js';

// OTLP wire values: span kinds SERVER and CLIENT, status ERROR.
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;
const STATUS_ERROR = 2;

const T0 = Date.UTC(2025, 0, 1, 12, 0, 0) + 0.25;
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_SPAN = 'b7ad6b7169203331';
/** Epoch milliseconds (possibly fractional) → Unix nanoseconds, exactly. */
const ns = (ms: number) => BigInt(Math.floor(ms)) * 1_000_000n + BigInt(Math.round((ms - Math.floor(ms)) * 1e6));

function record(over: Partial<RequestRecord> = {}): RequestRecord {
  return {
    correlation_id: '01JCORR0000000000000000001',
    time: new Date(T0).toISOString(),
    endpoint: 'POST /v1/chat/completions',
    key_id: 'team-a-key',
    model: 'team/fast',
    provider: 'anthropic',
    served_model: 'anthropic/claude-haiku',
    attempts: 2,
    fallback: true,
    status: 200,
    stream: true,
    input_tokens: 120,
    output_tokens: 30,
    cost_usd: 0.0042,
    latency_ms: 900.5,
    upstream_ms: 850,
    ttft_ms: 400,
    overhead_ms: 0.5,
    ...over,
  };
}

const ATTEMPTS: AttemptRecord[] = [
  {
    provider: 'openai',
    model: 'openai/gpt-4o-mini',
    startMs: T0 + 2,
    firstByteMs: T0 + 150,
    endMs: T0 + 152,
    outcome: 'failed',
    status: 503,
    errorCode: 'upstream_error',
    byok: false,
  },
  {
    provider: 'anthropic',
    model: 'anthropic/claude-haiku',
    startMs: T0 + 200,
    firstByteMs: T0 + 390,
    endMs: T0 + 899,
    outcome: 'ok',
    status: 200,
    byok: false,
  },
];

const PROVIDERS = new Map([
  ['openai', { api: 'openai' }],
  ['anthropic', { api: 'anthropic' }],
  ['local', { api: 'mock' }],
]);

async function waitFor(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A collector that accepts connections, reads what it is sent and never answers. */
async function startHangingCollector(): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((s) => {
    connections++;
    sockets.add(s);
    s.resume();
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('parseTraceparent', () => {
  it('accepts a valid header and reads the sampled flag', () => {
    expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_SPAN}-01`)).toEqual({
      traceId: TRACE_ID,
      spanId: PARENT_SPAN,
      sampled: true,
    });
    expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_SPAN}-00`)?.sampled).toBe(false);
    expect(parseTraceparent(` 00-${TRACE_ID}-${PARENT_SPAN}-01 `)?.traceId).toBe(TRACE_ID);
    // A later version may carry more fields.
    expect(parseTraceparent(`01-${TRACE_ID}-${PARENT_SPAN}-01-extra`)?.traceId).toBe(TRACE_ID);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['garbage', 'hello'],
    ['upper case', `00-${TRACE_ID.toUpperCase()}-${PARENT_SPAN}-01`],
    ['short trace id', `00-${TRACE_ID.slice(2)}-${PARENT_SPAN}-01`],
    ['zero trace id', `00-${'0'.repeat(32)}-${PARENT_SPAN}-01`],
    ['zero span id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE_ID}-${PARENT_SPAN}-01`],
    ['version 00 with extra fields', `00-${TRACE_ID}-${PARENT_SPAN}-01-extra`],
    ['non-hex flags', `00-${TRACE_ID}-${PARENT_SPAN}-zz`],
  ])('rejects %s', (_name, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });
});

describe('hrTimeOf', () => {
  it('is exact for epoch milliseconds with a fraction', () => {
    expect(hrTimeOf(1735732800000.25)).toEqual([1735732800, 250000]);
    expect(hrTimeOf(999.9999999)).toEqual([1, 0]); // the fraction rounds up into the next second
    expect(hrTimeOf(1735732800123)).toEqual([1735732800, 123000000]);
  });
});

describe('OtlpTracing', () => {
  let receiver: OtlpReceiver;
  const tracers: OtlpTracing[] = [];
  const tracer = (over: Partial<ConstructorParameters<typeof OtlpTracing>[0]> = {}) => {
    const t = new OtlpTracing({
      endpoint: receiver.tracesUrl,
      serviceName: 'gateway-test',
      serviceVersion: '9.9.9',
      providers: PROVIDERS,
      flushIntervalMs: 50,
      ...over,
    });
    tracers.push(t);
    return t;
  };

  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(async () => {
    await Promise.all(tracers.splice(0).map((t) => t.close()));
    await receiver.close();
  });

  it('exports a SERVER span per request with one CLIENT child per attempt, in the caller trace', async () => {
    const t = tracer();
    t.onRequest(record(), { attempts: ATTEMPTS, traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01`, startEpochMs: T0 });
    const spans = await receiver.waitForSpans(3);
    expect(spans).toHaveLength(3);

    const server = spans.find((s) => s.kind === SPAN_KIND_SERVER)!;
    const clients = spans.filter((s) => s.kind === SPAN_KIND_CLIENT);
    expect(server).toBeDefined();
    expect(clients).toHaveLength(2);

    // Trace context from the caller's traceparent.
    expect(server.traceId).toBe(TRACE_ID);
    expect(server.parentSpanId).toBe(PARENT_SPAN);
    expect(server.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(server.spanId).not.toBe(PARENT_SPAN);
    for (const c of clients) {
      expect(c.traceId).toBe(TRACE_ID);
      expect(c.parentSpanId).toBe(server.spanId);
      expect(c.spanId).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(3);

    // Names and GenAI attributes.
    expect(server.name).toBe('chat team/fast');
    expect(server.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.system': 'anthropic',
      'gen_ai.request.model': 'team/fast',
      'gen_ai.response.model': 'anthropic/claude-haiku',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'http.response.status_code': 200,
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'gateway.correlation_id': '01JCORR0000000000000000001',
      'gateway.cost_usd': 0.0042,
      'gateway.attempts': 2,
      'gateway.fallback': true,
      'gateway.stream': true,
    });
    expect(server.attributes['error.type']).toBeUndefined();
    expect(server.status.code).not.toBe(STATUS_ERROR);
    expect(server.resource).toMatchObject({ 'service.name': 'gateway-test', 'service.version': '9.9.9' });

    // Timestamps: the request's start → start + latency; the attempts' own times.
    expect(server.startTimeUnixNano).toBe(ns(T0));
    expect(server.endTimeUnixNano).toBe(ns(T0 + 900.5));
    expect(server.events.map((e) => e.name)).toContain('gateway.first_byte_sent');
    expect(server.events.find((e) => e.name === 'gateway.first_byte_sent')!.timeUnixNano).toBe(ns(T0 + 400));

    const [first, second] = [...clients].sort((a, b) => Number(a.startTimeUnixNano - b.startTimeUnixNano));
    expect(first.name).toBe('chat openai/gpt-4o-mini');
    expect(first.startTimeUnixNano).toBe(ns(T0 + 2));
    expect(first.endTimeUnixNano).toBe(ns(T0 + 152));
    expect(first.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'openai/gpt-4o-mini',
      'gateway.provider': 'openai',
      'gateway.attempt': 1,
      'gateway.attempt.outcome': 'failed',
      'http.response.status_code': 503,
      'error.type': 'upstream_error',
    });
    expect(first.status.code).toBe(STATUS_ERROR);

    expect(second.name).toBe('chat anthropic/claude-haiku');
    expect(second.startTimeUnixNano).toBe(ns(T0 + 200));
    expect(second.endTimeUnixNano).toBe(ns(T0 + 899));
    expect(second.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gateway.attempt': 2,
      'gateway.attempt.outcome': 'ok',
      'http.response.status_code': 200,
    });
    expect(second.attributes['error.type']).toBeUndefined();
    expect(second.status.code).not.toBe(STATUS_ERROR);
    expect(second.events.find((e) => e.name === 'gateway.first_byte_received')!.timeUnixNano).toBe(ns(T0 + 390));

    // Children lie within the server span.
    for (const c of clients) {
      expect(c.startTimeUnixNano >= server.startTimeUnixNano).toBe(true);
      expect(c.endTimeUnixNano <= server.endTimeUnixNano).toBe(true);
    }

    // OTLP/HTTP JSON on the wire.
    expect(receiver.exports[0].contentType).toBe('application/json');
  });

  it('marks a failed request ERROR with error.type and the fault domain', async () => {
    const t = tracer();
    t.onRequest(
      record({
        status: 503,
        error_code: 'upstream_unavailable',
        fault: 'provider',
        served_model: undefined,
        provider: undefined,
        input_tokens: undefined,
        output_tokens: undefined,
        cost_usd: undefined,
        ttft_ms: undefined,
      }),
      { attempts: [ATTEMPTS[0]], startEpochMs: T0 },
    );
    const spans = await receiver.waitForSpans(2);
    const server = spans.find((s) => s.kind === SPAN_KIND_SERVER)!;
    expect(server.status).toMatchObject({ code: STATUS_ERROR, message: 'upstream_unavailable' });
    expect(server.attributes).toMatchObject({
      'error.type': 'upstream_unavailable',
      'gateway.fault': 'provider',
      'http.response.status_code': 503,
    });
    expect(server.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
    expect(server.attributes['gen_ai.response.model']).toBeUndefined();
  });

  it('starts a new trace when there is no traceparent or it is malformed', async () => {
    const t = tracer();
    t.onRequest(record({ correlation_id: 'a' }), {
      attempts: [ATTEMPTS[1]],
      traceparent: `00-${TRACE_ID}-nothexnothexnoth-01`,
      startEpochMs: T0,
    });
    t.onRequest(record({ correlation_id: 'b' }), { attempts: [], startEpochMs: T0 });
    const spans = await receiver.waitForSpans(3);
    const servers = spans.filter((s) => s.kind === SPAN_KIND_SERVER);
    expect(servers).toHaveLength(2);
    for (const s of servers) {
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(s.traceId).not.toBe(TRACE_ID);
      expect(s.parentSpanId).toBeUndefined();
    }
    expect(servers[0].traceId).not.toBe(servers[1].traceId);
    const a = servers.find((s) => s.attributes['gateway.correlation_id'] === 'a')!;
    const child = spans.find((s) => s.kind === SPAN_KIND_CLIENT)!;
    expect(child.traceId).toBe(a.traceId);
    expect(child.parentSpanId).toBe(a.spanId);
  });

  it('names providers of unknown kind by their id, and non-chat endpoints by their route', async () => {
    const t = tracer();
    t.onRequest(record({ provider: 'local', served_model: 'local/echo' }), {
      attempts: [{ ...ATTEMPTS[1], provider: 'local', model: 'local/echo' }],
      startEpochMs: T0,
    });
    t.onRequest(record({ provider: 'self-hosted', correlation_id: 'x' }), { attempts: [], startEpochMs: T0 });
    t.onRequest(record({ endpoint: 'GET /v1/models', model: undefined, provider: undefined, correlation_id: 'm' }), {
      attempts: [],
      startEpochMs: T0,
    });
    const spans = await receiver.waitForSpans(4);
    const local = spans.find((s) => s.kind === SPAN_KIND_SERVER && s.attributes['gateway.provider'] === 'local')!;
    expect(local.attributes['gen_ai.provider.name']).toBe('mock');
    expect(spans.find((s) => s.kind === SPAN_KIND_CLIENT)!.attributes['gen_ai.provider.name']).toBe('mock');
    const selfHosted = spans.find((s) => s.attributes['gateway.correlation_id'] === 'x')!;
    expect(selfHosted.attributes['gen_ai.provider.name']).toBe('self-hosted');
    const models = spans.find((s) => s.attributes['gateway.correlation_id'] === 'm')!;
    expect(models.name).toBe('GET /v1/models');
    expect(models.attributes['gen_ai.operation.name']).toBeUndefined();
  });

  it('drops the spans of a request whose caller did not sample it (parent-based), unless told not to', async () => {
    const t = tracer();
    t.onRequest(record({ correlation_id: 'unsampled' }), {
      attempts: ATTEMPTS,
      traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-00`,
      startEpochMs: T0,
    });
    t.onRequest(record({ correlation_id: 'sampled' }), { attempts: [], startEpochMs: T0 });
    await t.flush();
    expect(receiver.spans.map((s) => s.attributes['gateway.correlation_id'])).toEqual(['sampled']);

    const all = tracer({ respectParentSampling: false });
    all.onRequest(record({ correlation_id: 'unsampled' }), {
      attempts: [],
      traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-00`,
      startEpochMs: T0,
    });
    await all.flush();
    expect(receiver.spans.find((s) => s.attributes['gateway.correlation_id'] === 'unsampled')?.traceId).toBe(TRACE_ID);
  });

  it('batches: many requests go out in exports of at most maxBatchSpans spans', async () => {
    const t = tracer({ maxBatchSpans: 10, flushIntervalMs: 60_000 });
    for (let i = 0; i < 25; i++) t.onRequest(record({ correlation_id: `r${i}` }), { attempts: [], startEpochMs: T0 });
    // Two full batches go out without waiting for the (long) interval.
    await receiver.waitForSpans(20);
    await t.flush();
    expect(receiver.spans).toHaveLength(25);
    for (const e of receiver.exports)
      expect(e.body.resourceSpans[0].scopeSpans[0].spans.length).toBeLessThanOrEqual(10);
    expect(t.stats).toMatchObject({ exported: 25, failed: 0, dropped: 0 });
  });

  it('exports on the interval without an explicit flush', async () => {
    const t = tracer({ flushIntervalMs: 30 });
    t.onRequest(record(), { attempts: [], startEpochMs: T0 });
    await receiver.waitForSpans(1);
    expect(t.stats.exported).toBe(1);
  });

  it('close() exports what is queued, and later requests are dropped', async () => {
    const t = tracer({ flushIntervalMs: 60_000 });
    t.onRequest(record(), { attempts: ATTEMPTS, startEpochMs: T0 });
    await t.close();
    expect(receiver.spans).toHaveLength(3);
    t.onRequest(record(), { attempts: [], startEpochMs: T0 });
    expect(t.stats.dropped).toBe(1);
    await t.close();
  });

  it('sends the configured headers', async () => {
    const t = tracer({ headers: { authorization: 'Bearer collector-token' } });
    t.onRequest(record(), { attempts: [], startEpochMs: T0 });
    await t.flush();
    expect(receiver.exports[0].headers.authorization).toBe('Bearer collector-token');
  });

  it('a collector answering with an error is counted and logged once, never thrown', async () => {
    // 500 is not retried by the exporter (429, 502, 503 and 504 are: see the next test).
    receiver.respondWith(500);
    const logged: Array<{ level: string; msg: string; fields?: Record<string, unknown> }> = [];
    const t = tracer({
      headers: { authorization: 'Bearer collector-token' },
      logger: { log: (level, msg, fields) => logged.push({ level, msg, fields }) },
    });
    t.onRequest(record(), { attempts: [], startEpochMs: T0 });
    await t.flush();
    t.onRequest(record(), { attempts: [], startEpochMs: T0 });
    await t.flush();
    expect(t.stats.failed).toBe(2);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      level: 'warn',
      msg: 'trace export failed',
      fields: { error: 'HTTP 500', spans: 1 },
    });
    expect(JSON.stringify(logged)).not.toContain('collector-token');
    expect(JSON.stringify(logged)).not.toContain('refused'); // the response body stays out of the log

    receiver.respondWith(200);
    t.onRequest(record(), { attempts: [], startEpochMs: T0 });
    await t.flush();
    expect(t.stats.exported).toBe(1);
  });

  it('a collector answering 503 is retried within the export timeout', async () => {
    receiver.respondWith(503);
    const t = tracer({ exportTimeoutMs: 5000 });
    t.onRequest(record(), { attempts: [], startEpochMs: T0 });
    await waitFor(() => receiver.exports.length >= 1);
    receiver.respondWith(200);
    await t.flush();
    expect(receiver.exports.length).toBeGreaterThanOrEqual(2);
    expect(receiver.spans).toHaveLength(1);
    expect(t.stats).toMatchObject({ exported: 1, failed: 0 });
  });

  it('a collector that is down never throws into the request path', async () => {
    // A port nobody listens on: bind one, then free it.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((r) => probe.close(() => r()));

    const logged: string[] = [];
    const t = tracer({
      endpoint: `http://127.0.0.1:${port}/v1/traces`,
      // Refused connections are retried with backoff until the export timeout: keep it short.
      exportTimeoutMs: 500,
      logger: { log: (_l, msg) => logged.push(msg) },
    });
    expect(() => t.onRequest(record(), { attempts: ATTEMPTS, traceparent: 'garbage', startEpochMs: T0 })).not.toThrow();
    await expect(t.flush()).resolves.toBeUndefined();
    await waitFor(() => t.stats.failed === 3);
    expect(logged).toEqual(['trace export failed']);
    await expect(t.close()).resolves.toBeUndefined();
  });

  it('never throws from onRequest, whatever the record holds', () => {
    const t = tracer();
    expect(() =>
      t.onRequest({ ...record(), latency_ms: NaN } as RequestRecord, {
        attempts: [{ ...ATTEMPTS[0], startMs: NaN, endMs: undefined }],
        startEpochMs: NaN,
      }),
    ).not.toThrow();
  });

  it('refuses a non-http endpoint at construction', () => {
    expect(() => new OtlpTracing({ endpoint: 'ftp://example.com/v1/traces', serviceName: 'x' })).toThrow(/http/);
  });

  it('registers nothing globally: a host application keeps its own OpenTelemetry setup', () => {
    tracer();
    expect(trace.getTracer('probe').startSpan('x').isRecording()).toBe(false);
  });

  it('bounds the queue in spans: a request that does not fit is dropped whole (no orphans), counted', async () => {
    const t = tracer({ maxQueueSpans: 5, maxBatchSpans: 5, flushIntervalMs: 60_000 });
    t.onRequest(record({ correlation_id: 'fits' }), { attempts: ATTEMPTS, startEpochMs: T0 });
    t.onRequest(record({ correlation_id: 'too-many' }), { attempts: ATTEMPTS, startEpochMs: T0 });
    t.onRequest(record({ correlation_id: 'single' }), { attempts: [], startEpochMs: T0 });
    expect(t.queuedSpans).toBe(4);
    expect(t.stats.dropped).toBe(3);
    await t.flush();
    expect(t.queuedSpans).toBe(0);
    expect(t.queuedBytes).toBe(0);
    expect(receiver.spans).toHaveLength(4);
    expect(receiver.spans.map((s) => s.attributes['gateway.correlation_id']).filter(Boolean)).toEqual(
      expect.arrayContaining(['fits', 'single']),
    );
    const ids = new Set(receiver.spans.map((s) => s.spanId));
    for (const s of receiver.spans.filter((s) => s.kind === SPAN_KIND_CLIENT))
      expect(ids.has(s.parentSpanId!)).toBe(true);
  });

  it('bounds the queue in bytes, estimated close to the OTLP JSON the collector receives', async () => {
    const t = tracer({ flushIntervalMs: 60_000 });
    t.onRequest(record({ model: 'm'.repeat(900) }), { attempts: ATTEMPTS, startEpochMs: T0 });
    const estimated = t.queuedBytes;
    await t.flush();
    const sent = receiver.exports[0].body.resourceSpans[0].scopeSpans[0].spans as unknown[];
    const actual = sent.reduce((n: number, span) => n + Buffer.byteLength(JSON.stringify(span)), 0);
    expect(estimated).toBeGreaterThanOrEqual(actual * 0.8);
    expect(estimated).toBeLessThanOrEqual(actual * 1.25);

    const bound = Math.ceil(estimated * 1.5);
    const small = tracer({ maxQueueBytes: bound, flushIntervalMs: 60_000 });
    small.onRequest(record({ model: 'm'.repeat(900) }), { attempts: ATTEMPTS, startEpochMs: T0 });
    small.onRequest(record({ model: 'm'.repeat(900) }), { attempts: ATTEMPTS, startEpochMs: T0 });
    expect(small.queuedBytes).toBe(estimated);
    expect(small.stats.dropped).toBe(3);
  });

  it('sends two exports at a time; waiting batches count against the bound; close() is bounded', async () => {
    const hanging = await startHangingCollector();
    try {
      const t = tracer({ endpoint: hanging.url, maxBatchSpans: 1, flushIntervalMs: 10, exportTimeoutMs: 1000 });
      for (let i = 0; i < 6; i++) t.onRequest(record({ correlation_id: `h${i}` }), { attempts: [], startEpochMs: T0 });
      await waitFor(() => hanging.connections() >= 2);
      await new Promise((r) => setTimeout(r, 200));
      expect(hanging.connections()).toBe(2);
      expect(t.queuedSpans).toBe(4);
      const started = Date.now();
      await t.close();
      // About one export timeout (+1 s) however much is queued, not one timeout per batch.
      expect(Date.now() - started).toBeLessThan(4000);
      await waitFor(() => t.stats.failed === 6);
      expect(t.queuedSpans).toBe(0);
    } finally {
      await hanging.close();
    }
  });
});
