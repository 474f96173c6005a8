import { describe, expect, it } from 'vitest';
import { GatewayMetrics, labelAllowList } from '../../../src/observe/metrics.js';
import type { AttemptRecord, RequestRecord } from '../../../src/observe/record.js';
import type { GatewayConfig } from '../../../src/config/types.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text exposition format (samples only; HELP/TYPE kept separately). */
function parse(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      types.set(name, type);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`unparseable line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: m[3] === '+Inf' ? Infinity : Number(m[3]) });
  }
  return { samples, types };
}

function find(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = find(samples, name, labels);
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

function record(over: Partial<RequestRecord> = {}): RequestRecord {
  return {
    correlation_id: '01JCORRELATIONIDSECRET000',
    time: new Date(T0).toISOString(),
    endpoint: 'POST /v1/chat/completions',
    key_id: 'team-a-key',
    role: 'dev',
    model: 'openai/gpt-4o-mini',
    provider: 'openai',
    served_model: 'openai/gpt-4o-mini',
    attempts: 1,
    status: 200,
    stream: false,
    input_tokens: 100,
    output_tokens: 20,
    cost_usd: 0.0012,
    latency_ms: 250,
    upstream_ms: 240,
    overhead_ms: 0.4,
    ...over,
  };
}

function attempt(over: Partial<AttemptRecord> = {}): AttemptRecord {
  return {
    provider: 'openai',
    model: 'openai/gpt-4o-mini',
    startMs: T0 + 5,
    firstByteMs: T0 + 100,
    endMs: T0 + 245,
    outcome: 'ok',
    status: 200,
    byok: false,
    ...over,
  };
}

const ALLOW = {
  models: ['openai/gpt-4o-mini', 'anthropic/claude-haiku', 'team/fast'],
  providers: ['openai', 'anthropic', 'mock'],
};

describe('GatewayMetrics', () => {
  it('counts requests with bounded labels and the status as a 3-digit code', async () => {
    const m = new GatewayMetrics(ALLOW);
    m.onRequest(record(), { attempts: [attempt()], startEpochMs: T0 });
    m.onRequest(record(), { attempts: [attempt()], startEpochMs: T0 });
    m.onRequest(
      record({
        model: 'team/fast',
        provider: 'anthropic',
        served_model: 'anthropic/claude-haiku',
        status: 502,
        error_code: 'upstream_error',
        fault: 'provider',
      }),
      {
        attempts: [attempt({ outcome: 'failed', status: 500, errorCode: 'upstream_error' })],
        startEpochMs: T0,
      },
    );
    const { samples, types } = parse((await m.render()).body);
    expect(types.get('gateway_requests_total')).toBe('counter');
    expect(
      value(samples, 'gateway_requests_total', {
        endpoint: 'POST /v1/chat/completions',
        model: 'openai/gpt-4o-mini',
        provider: 'openai',
        status: '200',
        fault: 'none',
      }),
    ).toBe(2);
    expect(
      value(samples, 'gateway_requests_total', {
        model: 'team/fast',
        provider: 'anthropic',
        status: '502',
        fault: 'provider',
      }),
    ).toBe(1);
  });

  it('maps models and providers outside the configured set to "other", and absent ones to "none"', async () => {
    const m = new GatewayMetrics(ALLOW);
    m.onRequest(
      record({
        model: 'caller-invented/model-123',
        served_model: undefined,
        provider: 'rogue',
        input_tokens: 5,
        output_tokens: 0,
        cost_usd: undefined,
      }),
      {
        attempts: [attempt({ provider: 'rogue', model: 'x' })],
        startEpochMs: T0,
      },
    );
    m.onRequest(
      record({
        model: undefined,
        provider: undefined,
        served_model: undefined,
        status: 401,
        error_code: 'invalid_api_key',
        fault: 'caller',
        input_tokens: undefined,
        output_tokens: undefined,
        cost_usd: undefined,
      }),
      {
        attempts: [],
        startEpochMs: T0,
      },
    );
    const { body } = await m.render();
    const { samples } = parse(body);
    expect(value(samples, 'gateway_requests_total', { model: 'other', provider: 'other', status: '200' })).toBe(1);
    expect(
      value(samples, 'gateway_requests_total', { model: 'none', provider: 'none', status: '401', fault: 'caller' }),
    ).toBe(1);
    expect(value(samples, 'gateway_tokens_total', { model: 'other', provider: 'other', kind: 'input' })).toBe(5);
    expect(value(samples, 'gateway_upstream_attempts_total', { provider: 'other', outcome: 'ok' })).toBe(1);
    expect(body).not.toContain('caller-invented');
    expect(body).not.toContain('rogue');
  });

  it('counts tokens by kind and cost by serving model and provider', async () => {
    const m = new GatewayMetrics(ALLOW);
    const r = record({
      model: 'team/fast',
      provider: 'anthropic',
      served_model: 'anthropic/claude-haiku',
      input_tokens: 1000,
      output_tokens: 50,
      cache_read_tokens: 300,
      cache_write_tokens: 7,
      cost_usd: 0.25,
    });
    m.onRequest(r, { attempts: [], startEpochMs: T0 });
    m.onRequest(r, { attempts: [], startEpochMs: T0 });
    const { samples, types } = parse((await m.render()).body);
    const l = { model: 'anthropic/claude-haiku', provider: 'anthropic' };
    expect(value(samples, 'gateway_tokens_total', { ...l, kind: 'input' })).toBe(2000);
    expect(value(samples, 'gateway_tokens_total', { ...l, kind: 'output' })).toBe(100);
    expect(value(samples, 'gateway_tokens_total', { ...l, kind: 'cache_read' })).toBe(600);
    expect(value(samples, 'gateway_tokens_total', { ...l, kind: 'cache_write' })).toBe(14);
    expect(types.get('gateway_cost_usd_total')).toBe('counter');
    expect(value(samples, 'gateway_cost_usd_total', l)).toBeCloseTo(0.5, 9);
  });

  it(
    'observes durations in seconds: request, per-attempt upstream, time to first token (streams), overhead (sub-ms ' +
      'buckets)',
    async () => {
      const m = new GatewayMetrics(ALLOW);
      m.onRequest(record({ stream: true, latency_ms: 1500, ttft_ms: 300, overhead_ms: 0.3 }), {
        attempts: [
          attempt({ outcome: 'failed', status: 503, startMs: T0 + 1, endMs: T0 + 201 }),
          attempt({ startMs: T0 + 250, endMs: T0 + 1450 }),
        ],
        startEpochMs: T0,
      });
      m.onRequest(record({ stream: false, latency_ms: 40, ttft_ms: undefined, overhead_ms: 2 }), {
        attempts: [attempt({ startMs: T0, endMs: undefined, outcome: 'abandoned' })],
        startEpochMs: T0,
      });
      const { samples, types } = parse((await m.render()).body);
      expect(types.get('gateway_request_duration_seconds')).toBe('histogram');

      expect(
        value(samples, 'gateway_request_duration_seconds_count', {
          endpoint: 'POST /v1/chat/completions',
          stream: 'true',
        }),
      ).toBe(1);
      expect(value(samples, 'gateway_request_duration_seconds_sum', { stream: 'true' })).toBeCloseTo(1.5, 9);
      expect(value(samples, 'gateway_request_duration_seconds_bucket', { stream: 'true', le: '1' })).toBe(0);
      expect(value(samples, 'gateway_request_duration_seconds_bucket', { stream: 'true', le: '2.5' })).toBe(1);
      expect(value(samples, 'gateway_request_duration_seconds_bucket', { stream: 'false', le: '0.05' })).toBe(1);

      // One observation per attempt; an attempt without an end lasts to the request's end.
      expect(value(samples, 'gateway_upstream_duration_seconds_count', { provider: 'openai' })).toBe(3);
      expect(value(samples, 'gateway_upstream_duration_seconds_sum', { provider: 'openai' })).toBeCloseTo(
        0.2 + 1.2 + 0.04,
        6,
      );
      expect(value(samples, 'gateway_upstream_attempts_total', { provider: 'openai', outcome: 'failed' })).toBe(1);
      expect(value(samples, 'gateway_upstream_attempts_total', { provider: 'openai', outcome: 'ok' })).toBe(1);
      expect(value(samples, 'gateway_upstream_attempts_total', { provider: 'openai', outcome: 'abandoned' })).toBe(1);

      // Only the stream has a time to first token.
      expect(value(samples, 'gateway_time_to_first_token_seconds_count', { provider: 'openai' })).toBe(1);
      expect(value(samples, 'gateway_time_to_first_token_seconds_sum', { provider: 'openai' })).toBeCloseTo(0.3, 9);

      const overheadLe = find(samples, 'gateway_overhead_seconds_bucket')
        .map((s) => Number(s.labels.le))
        .filter(Number.isFinite);
      expect(overheadLe.some((le) => le < 0.001)).toBe(true);
      expect(
        value(samples, 'gateway_overhead_seconds_bucket', { endpoint: 'POST /v1/chat/completions', le: '0.0005' }),
      ).toBe(1);
      expect(
        value(samples, 'gateway_overhead_seconds_bucket', { endpoint: 'POST /v1/chat/completions', le: '0.0025' }),
      ).toBe(2);
      expect(value(samples, 'gateway_overhead_seconds_count', { endpoint: 'POST /v1/chat/completions' })).toBe(2);
    },
  );

  it('tracks requests in flight per endpoint', async () => {
    const m = new GatewayMetrics(ALLOW);
    m.requestStarted('POST /v1/messages');
    m.requestStarted('POST /v1/messages');
    m.requestStarted('GET /v1/models');
    m.requestEnded('POST /v1/messages');
    m.requestEnded('GET /v1/models');
    const { samples, types } = parse((await m.render()).body);
    expect(types.get('gateway_requests_in_flight')).toBe('gauge');
    expect(value(samples, 'gateway_requests_in_flight', { endpoint: 'POST /v1/messages' })).toBe(1);
    expect(value(samples, 'gateway_requests_in_flight', { endpoint: 'GET /v1/models' })).toBe(0);
  });

  it('counts guardrail actions by guardrail, action and direction', async () => {
    const m = new GatewayMetrics({ ...ALLOW, guardrails: ['pii', 'secrets'] });
    m.onRequest(
      record({
        guardrails: [
          { guardrail: 'pii', action: 'redact', direction: 'input', label: 'email' },
          { guardrail: 'pii', action: 'redact', direction: 'input', label: 'phone' },
          { guardrail: 'secrets', action: 'block', direction: 'output', label: 'regex' },
          { guardrail: 'renamed-since', action: 'log', direction: 'input' },
        ],
      }),
      { attempts: [], startEpochMs: T0 },
    );
    const { samples } = parse((await m.render()).body);
    expect(
      value(samples, 'gateway_guardrail_actions_total', { guardrail: 'pii', action: 'redact', direction: 'input' }),
    ).toBe(2);
    expect(
      value(samples, 'gateway_guardrail_actions_total', { guardrail: 'secrets', action: 'block', direction: 'output' }),
    ).toBe(1);
    expect(
      value(samples, 'gateway_guardrail_actions_total', { guardrail: 'other', action: 'log', direction: 'input' }),
    ).toBe(1);
  });

  it('reads budgets and cooling targets at scrape time; setBudgetRemaining sets one budget', async () => {
    let cooling = ['openai/gpt-4o-mini', 'credential:anthropic'];
    let remaining = 7.5;
    const m = new GatewayMetrics({
      ...ALLOW,
      cooling: () => cooling,
      budgets: async () => [{ id: 'global-monthly', remainingUsd: remaining }],
    });
    m.setBudgetRemaining('team-a', 12.25);
    let { samples, types } = parse((await m.render()).body);
    expect(types.get('gateway_budget_remaining_usd')).toBe('gauge');
    expect(value(samples, 'gateway_budget_remaining_usd', { budget: 'global-monthly' })).toBe(7.5);
    expect(value(samples, 'gateway_budget_remaining_usd', { budget: 'team-a' })).toBe(12.25);
    expect(value(samples, 'gateway_targets_in_cooldown')).toBe(2);

    cooling = [];
    remaining = 0;
    m.removeBudget('team-a');
    ({ samples } = parse((await m.render()).body));
    expect(value(samples, 'gateway_budget_remaining_usd', { budget: 'global-monthly' })).toBe(0);
    expect(value(samples, 'gateway_budget_remaining_usd', { budget: 'team-a' })).toBeUndefined();
    expect(value(samples, 'gateway_targets_in_cooldown')).toBe(0);
  });

  it('a failing budgets callback does not break the scrape', async () => {
    const m = new GatewayMetrics({
      ...ALLOW,
      budgets: () => {
        throw new Error('store down');
      },
    });
    const { samples } = parse((await m.render()).body);
    expect(find(samples, 'gateway_budget_remaining_usd')).toEqual([]);
  });

  it('a budget listed once per key reports the instance closest to running out', async () => {
    const m = new GatewayMetrics({
      ...ALLOW,
      budgets: () => [
        { id: 'per-dev', remainingUsd: 4 },
        { id: 'per-dev', remainingUsd: 1.5 },
        { id: 'per-dev', remainingUsd: 3 },
        { id: 'global', remainingUsd: 100 },
      ],
    });
    const { samples } = parse((await m.render()).body);
    expect(value(samples, 'gateway_budget_remaining_usd', { budget: 'per-dev' })).toBe(1.5);
    expect(value(samples, 'gateway_budget_remaining_usd', { budget: 'global' })).toBe(100);
  });

  it('a budgets callback that never answers leaves the budget series out instead of stalling the scrape', async () => {
    const m = new GatewayMetrics({ ...ALLOW, budgetsTimeoutMs: 50, budgets: () => new Promise<never>(() => {}) });
    m.setBudgetRemaining('static', 2);
    const { samples } = parse((await m.render()).body);
    expect(value(samples, 'gateway_budget_remaining_usd', { budget: 'static' })).toBe(2);
  });

  it('never exposes correlation ids, key ids or roles', async () => {
    const m = new GatewayMetrics(ALLOW);
    m.onRequest(record(), {
      attempts: [attempt()],
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      startEpochMs: T0,
    });
    const { body, contentType } = await m.render();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(body).not.toContain('01JCORRELATIONIDSECRET000');
    expect(body).not.toContain('team-a-key');
    expect(body).not.toContain('0af7651916cd43dd8448eb211c80319c');
    expect(body).not.toMatch(/role="/);
  });

  it('keeps separate registries per instance (two gateways in one process)', async () => {
    const a = new GatewayMetrics({ ...ALLOW, processMetrics: true });
    const b = new GatewayMetrics({ ...ALLOW, processMetrics: true });
    a.onRequest(record(), { attempts: [], startEpochMs: T0 });
    const pa = parse((await a.render()).body).samples;
    const pb = parse((await b.render()).body).samples;
    expect(value(pa, 'gateway_requests_total', { status: '200' })).toBe(1);
    expect(find(pb, 'gateway_requests_total')).toEqual([]);
    expect(find(pa, 'process_cpu_user_seconds_total').length).toBe(1);
    await a.close();
    await b.close();
  });

  it('builds the allow-list from a config: model ids, aliases and providers; a reload can replace it', async () => {
    const config = {
      models: new Map([['openai/gpt-4o-mini', {}]]),
      aliases: new Map([['team/fast', {}]]),
      providers: new Map([['openai', {}]]),
      guardrails: [{ id: 'pii' }],
    } as unknown as GatewayConfig;
    const m = new GatewayMetrics(labelAllowList(config));
    m.onRequest(record({ model: 'team/fast' }), { attempts: [], startEpochMs: T0 });
    m.onRequest(record({ model: 'anthropic/claude-haiku', provider: 'anthropic' }), { attempts: [], startEpochMs: T0 });
    m.setLabelAllowList({ models: ['anthropic/claude-haiku'], providers: ['anthropic'] });
    m.onRequest(record({ model: 'anthropic/claude-haiku', provider: 'anthropic' }), { attempts: [], startEpochMs: T0 });
    const { samples } = parse((await m.render()).body);
    expect(value(samples, 'gateway_requests_total', { model: 'team/fast', provider: 'openai' })).toBe(1);
    expect(value(samples, 'gateway_requests_total', { model: 'other', provider: 'other' })).toBe(1);
    expect(value(samples, 'gateway_requests_total', { model: 'anthropic/claude-haiku', provider: 'anthropic' })).toBe(
      1,
    );
  });

  it('never throws from onRequest, whatever the record holds', () => {
    const m = new GatewayMetrics(ALLOW);
    expect(() =>
      m.onRequest({ ...record(), latency_ms: NaN, status: 0, cost_usd: -1, input_tokens: Infinity } as RequestRecord, {
        attempts: [attempt({ startMs: NaN })],
        startEpochMs: NaN,
      }),
    ).not.toThrow();
  });
});
