/**
 * Observability end to end, over real sockets: the request log line field by field (and no key
 * material anywhere), /metrics scraped and parsed, traces received by a local OTLP/HTTP receiver
 * (incoming traceparent honoured), /health and /ready.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, youSaid, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { formatsGateway, PROVIDER_SECRET, TEST_KEY } from '../helpers/gateway-config.js';
import { authHeaders, configOf, type RunningGateway, startGateway } from '../helpers/start-gateway.js';

const ADMIN = 'metrics-admin-key-0001';
const BYOK = 'sk-caller-own-key-777777';

let upstream: FakeUpstream;
let receiver: OtlpReceiver;
let gw: RunningGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream({ handler: youSaid });
  receiver = await startOtlpReceiver();
  const spec = formatsGateway(
    upstream.url,
    `
observability:
  metrics: { admin_key: ${ADMIN} }
  traces: { otlp_endpoint: ${receiver.tracesUrl}, service_name: gw-test }
`,
  );
  spec.providers.up!.byok = 'optional';
  gw = await startGateway(configOf(spec));
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
  await receiver.close();
});

const chat = (body: object, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...authHeaders(), ...headers },
    body: JSON.stringify(body),
  });

function requestLines(): Array<Record<string, any>> {
  return gw.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
}

describe('request log', () => {
  it('one JSON line per request with every field, and no key material', async () => {
    const res = await chat(
      { model: 'up/gpt-test', messages: [{ role: 'user', content: 'hello' }] },
      { 'x-provider-api-key': BYOK },
    );
    expect(res.status).toBe(200);
    const id = res.headers.get('x-correlation-id');
    await new Promise((r) => setTimeout(r, 20));
    const line = requestLines().find((l) => l.correlation_id === id)!;
    expect(line).toMatchObject({
      level: 'info',
      endpoint: 'POST /v1/chat/completions',
      status: 200,
      key_id: 'dev',
      role: 'developer',
      model: 'up/gpt-test',
      provider: 'up',
      served_model: 'up/gpt-test',
      attempts: 1,
      fallback: false,
      byok: true,
      stream: false,
    });
    for (const f of ['time', 'latency_ms', 'upstream_ms', 'overhead_ms', 'input_tokens', 'output_tokens'])
      expect(line[f], f).toBeDefined();
    expect(line.latency_ms).toBeGreaterThanOrEqual(line.upstream_ms);
    expect(line.fault).toBeUndefined();
    expect(line.prompt).toBeUndefined(); // prompts only when the config opts in

    const bad = await chat({ model: 'nope/none', messages: [{ role: 'user', content: 'x' }] });
    const badLine = requestLines().find((l) => l.correlation_id === bad.headers.get('x-correlation-id'))!;
    expect(badLine).toMatchObject({ level: 'warn', status: 404, error_code: 'model_not_found', fault: 'caller' });

    const all = gw.logs.join('\n');
    for (const secret of [TEST_KEY, PROVIDER_SECRET, BYOK, ADMIN]) expect(all).not.toContain(secret);
  });
});

describe('/metrics', () => {
  it('needs the admin key, then serves Prometheus text with bounded labels', async () => {
    expect((await fetch(`${gw.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${gw.url}/metrics`, { headers: { authorization: 'Bearer wrong-key-000000' } })).status).toBe(
      401,
    );
    await chat({ model: 'up/gpt-test', messages: [{ role: 'user', content: 'count me' }] });
    await chat({ model: `made-up/model-${Date.now()}`, messages: [{ role: 'user', content: 'x' }] });
    const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    const sample = (name: string, labels: Record<string, string>) =>
      text
        .split('\n')
        .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    const ok = sample('gateway_requests_total', {
      endpoint: 'POST /v1/chat/completions',
      model: 'up/gpt-test',
      provider: 'up',
      status: '200',
    });
    expect(ok).toBeDefined();
    expect(Number(ok!.split(' ').at(-1))).toBeGreaterThanOrEqual(1);
    expect(sample('gateway_requests_total', { model: 'other', status: '404', fault: 'caller' })).toBeDefined();
    expect(text).toMatch(/^gateway_request_duration_seconds_bucket\{/m);
    expect(text).toMatch(/^gateway_overhead_seconds_count\{/m);
    expect(text).toMatch(/^gateway_tokens_total\{.*kind="input".*\} \d+/m);
    expect(text).toMatch(/^gateway_requests_in_flight\{/m);
    expect(text).not.toMatch(/[0-9A-HJKMNP-TV-Z]{26}/); // no correlation ids as labels
    for (const secret of [TEST_KEY, PROVIDER_SECRET, ADMIN]) expect(text).not.toContain(secret);
  });
});

describe('attempt outcomes', () => {
  it('a stream the caller read to its end counts as an ok attempt, also when the gateway encoded it', async () => {
    // Mock (canonical events) and translated (Anthropic caller, OpenAI upstream) streams: the encoder
    // stops reading at the format's end marker, which must still count as a completed stream.
    const mock = await chat({ model: 'local/echo', stream: true, messages: [{ role: 'user', content: 'one' }] });
    expect(await mock.text()).toContain('[DONE]');
    const translated = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { ...authHeaders(), 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'up/gpt-test',
        max_tokens: 64,
        stream: true,
        messages: [{ role: 'user', content: 'two' }],
      }),
    });
    expect(await translated.text()).toContain('message_stop');
    await new Promise((r) => setTimeout(r, 20));
    const text = await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    const attempts = text.split('\n').filter((l) => l.startsWith('gateway_upstream_attempts_total{'));
    for (const provider of ['local', 'up']) {
      expect(attempts.some((l) => l.includes(`provider="${provider}"`) && l.includes('outcome="ok"'))).toBe(true);
      expect(attempts.filter((l) => l.includes(`provider="${provider}"`) && l.includes('outcome="abandoned"'))).toEqual(
        [],
      );
    }
  });
});

describe('traces', () => {
  it("one server span per request with a client span per attempt, in the caller's trace", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const res = await chat(
      { model: 'up/gpt-test', messages: [{ role: 'user', content: 'trace me' }] },
      { traceparent: `00-${traceId}-${parent}-01` },
    );
    const id = res.headers.get('x-correlation-id');
    let server: (typeof receiver.spans)[number] | undefined;
    for (let i = 0; i < 100 && !server; i++) {
      await new Promise((r) => setTimeout(r, 50));
      server = receiver.spans.find((s) => s.attributes['gateway.correlation_id'] === id);
    }
    expect(server).toBeDefined();
    expect(server!.traceId).toBe(traceId);
    expect(server!.parentSpanId).toBe(parent);
    expect(server!.name).toBe('chat up/gpt-test');
    expect(server!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'up/gpt-test',
      'http.response.status_code': 200,
    });
    expect(server!.resource['service.name']).toBe('gw-test');
    const child = receiver.spans.find((s) => s.parentSpanId === server!.spanId);
    expect(child).toBeDefined();
    expect(child!.traceId).toBe(traceId);
    expect(child!.startTimeUnixNano >= server!.startTimeUnixNano).toBe(true);
  });
});

describe('/health and /ready', () => {
  it('answer without authentication', async () => {
    expect(await (await fetch(`${gw.url}/health`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${gw.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', store: 'memory' });
  });
});
