/**
 * Issue 10, point 5: what a caller sends cannot blow up the log or the traces. A 1 MB `model`
 * becomes a bounded, marked field in the JSON log line and in span attributes; the readable log
 * escapes control characters (no forged lines, no terminal escapes); with a collector that never
 * answers, the trace queue stays bounded in bytes and drops (and counts) spans instead of holding
 * memory. Real sockets on 127.0.0.1 (gateway, upstream, collector); the gateway in this process.
 */

import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observe/logger.js';
import type { RequestRecord } from '../../src/observe/record.js';
import { OtlpTracing } from '../../src/observe/tracing.js';
import { createGateway } from '../../src/server/http.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { securityGateway } from '../helpers/gateway-config.js';
import { configOf } from '../helpers/start-gateway.js';
import { jsonReply, post, startRig, type SecurityRig } from './harness.js';

const ONE_MB_MODEL = 'x'.repeat(1024 * 1024);
const MARKER = /…\[truncated \d+ chars\]/;
const ADMIN = 'metrics-admin-key-0001';

const body = (model: string) => JSON.stringify({ model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
const okHandler = (req: { path: string }) => ({ kind: 'json' as const, body: jsonReply(req.path, 'ok') });

/** A collector that accepts connections and reads what it is sent, and never answers. */
async function startHangingCollector(): Promise<{ url: string; bytes: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let received = 0;
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('data', (c: Buffer) => (received += c.length));
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    bytes: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A full garbage collection (for heap measurements): --expose-gc set from inside the process. */
function gcNow(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
}

describe('the JSON log', () => {
  let rig: SecurityRig;
  beforeAll(async () => {
    rig = await startRig(okHandler);
  });
  afterAll(() => rig.close());

  for (const ep of ['openai', 'anthropic'] as const) {
    it(`${ep}: a 1 MB model value is a bounded, marked field, not a 1 MB log line`, async () => {
      rig.gw.logs.length = 0;
      const res = await post(rig.gw.url, ep, body(ONE_MB_MODEL));
      expect(res.status).toBeGreaterThanOrEqual(400);
      const id = res.headers.get('x-correlation-id');
      await res.text();
      const raw = rig.gw.logs.find((l) => l.includes(id!) && l.includes('"msg":"request"'));
      expect(raw).toBeDefined();
      expect(raw!.length).toBeLessThan(8 * 1024);
      const line = JSON.parse(raw!);
      expect(line.model).toMatch(MARKER);
      expect(line.model.startsWith('x'.repeat(1000))).toBe(true);
      expect(line.model.length).toBeLessThan(1100);
    });
  }
});

describe('the readable log', () => {
  it('escapes control characters in caller text: no forged line, no terminal escape', async () => {
    const up = await startFakeUpstream({ handler: okHandler });
    const writes: string[] = [];
    const gateway = createGateway(configOf(securityGateway(up.url)), {
      logger: createLogger({ level: 'debug', format: 'pretty', write: (l) => writes.push(l) }),
    });
    const url = await gateway.listen(0, '127.0.0.1');
    try {
      const evil = 'oa/m\n12:00:00.000  200  POST /v1/chat/completions  forged  1 ms\u001b[31mRED\u001b[0m\r\u2028end';
      for (const ep of ['openai', 'anthropic'] as const) {
        const res = await post(url, ep, body(evil));
        await res.text();
      }
      await new Promise((r) => setTimeout(r, 50));
      const mine = writes.filter((w) => w.includes('forged'));
      expect(mine.length).toBeGreaterThanOrEqual(2);
      for (const w of mine) {
        // One record, one line: the only newline is the one that ends it.
        expect(w.indexOf('\n')).toBe(w.length - 1);
        expect(w).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u2028\u2029]/);
        expect(w).toContain('\\n12:00:00.000');
        expect(w).toContain('\\u001b[31mRED');
        expect(w).toContain('\\r');
      }
    } finally {
      await gateway.close(1000);
      await up.close();
    }
  });
});

describe('traces', () => {
  let receiver: OtlpReceiver;
  let up: FakeUpstream;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    up = await startFakeUpstream({ handler: okHandler });
  });
  afterAll(async () => {
    await receiver.close();
    await up.close();
  });

  it('a 1 MB model value: span attributes and names bounded and marked', async () => {
    const extra = `observability:\n  traces: { otlp_endpoint: ${receiver.tracesUrl}, service_name: gw-bounded }\n`;
    const logs: string[] = [];
    const gateway = createGateway(configOf(securityGateway(up.url, extra)), {
      logger: createLogger({ level: 'debug', write: (l) => logs.push(l) }),
    });
    const url = await gateway.listen(0, '127.0.0.1');
    try {
      const res = await post(url, 'openai', body(ONE_MB_MODEL));
      const id = res.headers.get('x-correlation-id');
      await res.text();
      await receiver.waitForSpans(1, 10_000);
      const span = receiver.spans.find((s) => s.attributes['gateway.correlation_id'] === id);
      expect(span).toBeDefined();
      const model = span!.attributes['gen_ai.request.model'] as string;
      expect(model).toMatch(MARKER);
      expect(model.length).toBeLessThan(1100);
      expect(span!.name.length).toBeLessThan(300);
      expect(span!.name).toMatch(MARKER);
      const exportBytes = JSON.stringify(receiver.exports.at(-1)!.body).length;
      expect(exportBytes).toBeLessThan(16 * 1024);
    } finally {
      await gateway.close(1000);
    }
  });

  it('a collector that never answers + 100 requests with a 1 MB model: ' +
    'memory and the trace queue stay bounded, drops counted in /metrics', async () => {
    const collector = await startHangingCollector();
    const extra =
      `observability:\n  metrics: { admin_key: ${ADMIN} }\n  traces: { otlp_endpoint: ${collector.url}, ` +
      `service_name: gw-hang }\n`;
    const logs: string[] = [];
    const gateway = createGateway(configOf(securityGateway(up.url, extra)), {
      logger: createLogger({ level: 'debug', write: (l) => (logs.length < 1000 ? logs.push(l) : undefined) }),
    });
    const url = await gateway.listen(0, '127.0.0.1');
    try {
      // Warm up (first requests compile code, fill pools), then measure.
      for (let i = 0; i < 5; i++) await (await post(url, 'openai', body('oa/m'))).text();
      gcNow();
      const before = process.memoryUsage().heapUsed;
      const N = 100;
      const started = Date.now();
      let done = 0;
      // Four at a time; bounded in count and in time (60 s).
      await Promise.all(
        Array.from({ length: 4 }, async (_, w) => {
          for (let i = w; i < N && Date.now() - started < 60_000; i += 4) {
            const res = await post(url, i % 2 ? 'anthropic' : 'openai', body(ONE_MB_MODEL + i));
            await res.text();
            done++;
          }
        }),
      );
      logs.length = 0;
      gcNow();
      const grewMb = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
      console.log(`hanging collector, ${done} requests with a 1 MB model: heap +${grewMb.toFixed(1)} MB after GC`);
      expect(done).toBe(N);
      // Holding the model in each queued span would be 100-200 MB.
      expect(grewMb).toBeLessThan(40);

      const metrics = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
      const queueBytes = Number(/^gateway_trace_queue_bytes (\S+)$/m.exec(metrics)?.[1]);
      expect(queueBytes).toBeGreaterThanOrEqual(0);
      expect(queueBytes).toBeLessThanOrEqual(8 * 1024 * 1024);
      expect(metrics).toMatch(/^gateway_trace_spans_dropped_total \d+$/m);
    } finally {
      await gateway.close(1000);
      await collector.close();
    }
  }, 90_000);

  it('the exporter queue is bounded in bytes: over the bound, spans are dropped and counted', async () => {
    const collector = await startHangingCollector();
    const bound = 64 * 1024;
    const tracing = new OtlpTracing({
      endpoint: collector.url,
      serviceName: 'bounded',
      maxQueueBytes: bound,
      maxBatchSpans: 10,
      flushIntervalMs: 20,
      exportTimeoutMs: 30_000,
    });
    try {
      const record = (i: number): RequestRecord => ({
        correlation_id: `01JQUEUE${String(i).padStart(18, '0')}`,
        time: new Date().toISOString(),
        endpoint: 'POST /v1/chat/completions',
        model: ONE_MB_MODEL + i,
        attempts: 0,
        status: 404,
        error_code: 'model_not_found',
        fault: 'caller',
        latency_ms: 1,
      });
      const N = 300;
      for (let i = 0; i < N; i++) {
        tracing.onRequest(record(i), { attempts: [], startEpochMs: Date.now() });
        expect(tracing.queuedBytes).toBeLessThanOrEqual(bound);
        if (i % 50 === 0) await new Promise((r) => setTimeout(r, 30));
      }
      expect(tracing.stats.dropped).toBeGreaterThan(0);
      // Every span is accounted for: sent (and hanging), still queued, or dropped.
      expect(tracing.stats.dropped).toBeLessThan(N);
      expect(collector.bytes()).toBeGreaterThan(0);
    } finally {
      void tracing.close();
      await collector.close();
    }
  });
});
