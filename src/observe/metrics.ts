/**
 * Prometheus metrics made from the finished-request records (one `onRequest` per request), plus
 * an in-flight gauge and gauges read at scrape time (budgets left, targets cooling down).
 *
 * Each instance has its own prom-client Registry, so several gateways in one process (tests)
 * never collide. Label values are bounded: models and providers outside the configured set
 * become "other" (a caller may send any model string), statuses are 3-digit codes, and no
 * correlation id, key or key id is ever a label.
 */

import { createRequire } from 'node:module';
import type { Counter, Registry } from 'prom-client';
import type { GatewayConfig } from '../config/types.js';
import { GatheredCounts, GatheredLevels } from './gathered-counts.js';
import { GatheredHistogram } from './gathered-histogram.js';
import type { AttemptRecord, RequestRecord, Telemetry } from './record.js';

/** Label value for anything outside an allow-list. */
export const OTHER = 'other';
/** Label value when the record has no value (e.g. a request refused before routing). */
export const NONE = 'none';

export interface BudgetRemaining {
  id: string;
  remainingUsd: number;
}

export interface GatewayMetricsOptions {
  /** Model ids and alias ids that may appear as `model` label values; others become "other". */
  models?: Iterable<string>;
  /** Provider ids that may appear as `provider` label values; others become "other". */
  providers?: Iterable<string>;
  /** Guardrail ids that may appear as `guardrail` label values; default: any (they come from config). */
  guardrails?: Iterable<string>;
  /** Endpoints that may appear as `endpoint` label values; default: any (they come from the route table). */
  endpoints?: Iterable<string>;
  /** Also collect prom-client's default process metrics (CPU, memory, event loop lag, GC). Default false. */
  processMetrics?: boolean;
  /**
   * Read at every scrape: each budget's remaining USD (gateway_budget_remaining_usd{budget}). An id
   * listed more than once (a budget with one instance per key) reports its smallest remaining value.
   */
  budgets?: () => readonly BudgetRemaining[] | Promise<readonly BudgetRemaining[]>;
  /** How long a scrape waits for `budgets` before leaving the budget series out. Default 2000. */
  budgetsTimeoutMs?: number;
  /** Read at every scrape: the targets whose circuit is open or half-open, e.g. `() => breakers.cooling()`. */
  cooling?: () => readonly string[];
  /** Read at every scrape: spans the trace exporter has dropped so far (queue full, collector slow). */
  traceSpansDropped?: () => number;
  /** Read at every scrape: estimated bytes (OTLP JSON) of spans waiting for export (bounded). */
  traceQueueBytes?: () => number;
}

/** Request duration (whole request, seconds). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];
/** Time to first token: interactive range. */
const TTFT_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20, 30];
/** Gateway overhead: sub-millisecond resolution. */
const OVERHEAD_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

type TokenKind = 'input' | 'output' | 'cache_read' | 'cache_write';
const OUTCOMES = new Set(['pending', 'ok', 'failed', 'abandoned']);
const FAULTS = new Set(['caller', 'policy', 'provider', 'gateway']);
const GUARDRAIL_ACTIONS = new Set(['block', 'redact', 'log']);
const DIRECTIONS = new Set(['input', 'output']);

/** The label allow-lists of a config: model ids and alias ids, provider ids, guardrail ids. */
export function labelAllowList(
  config: GatewayConfig,
): Pick<GatewayMetricsOptions, 'models' | 'providers' | 'guardrails'> {
  return {
    models: [...config.models.keys(), ...config.aliases.keys()],
    providers: [...config.providers.keys()],
    guardrails: config.guardrails.map((g) => g.id),
  };
}

/**
 * prom-client is loaded by the first GatewayMetrics: a gateway without `observability.metrics`
 * does not carry it (about 1.5 MB of heap). It is CommonJS, so it loads synchronously.
 */
const requireCjs = createRequire(import.meta.url);
let promClient: typeof import('prom-client') | undefined;

const seconds = (ms: number) => ms / 1000;
const finite = (n: number | undefined): n is number => typeof n === 'number' && Number.isFinite(n);

export class GatewayMetrics implements Telemetry {
  readonly registry: Registry;

  private models = new Set<string>();
  private providers = new Set<string>();
  private guardrailIds?: Set<string>;
  private endpointIds?: Set<string>;
  private budgetValues = new Map<string, number>();

  private readonly requests: Counter<'endpoint' | 'model' | 'provider' | 'status' | 'fault'>;
  private readonly tokens: Counter<'model' | 'provider' | 'kind'>;
  private readonly cost: Counter<'model' | 'provider'>;
  private readonly requestDuration: GatheredHistogram<'endpoint' | 'stream'>;
  private readonly upstreamDuration: GatheredHistogram<'provider'>;
  private readonly ttft: GatheredHistogram<'provider'>;
  private readonly overhead: GatheredHistogram<'endpoint'>;
  private readonly guardrailActions: Counter<'guardrail' | 'action' | 'direction'>;
  private readonly attemptsTotal: Counter<'provider' | 'outcome'>;
  // What each request adds to the counters and the in-flight gauge, gathered until a scrape.
  private readonly requestCounts = new GatheredCounts(['endpoint', 'model', 'provider', 'status', 'fault'] as const);
  private readonly tokenCounts = new GatheredCounts(['model', 'provider', 'kind'] as const);
  private readonly costCounts = new GatheredCounts(['model', 'provider'] as const);
  private readonly attemptCounts = new GatheredCounts(['provider', 'outcome'] as const);
  private readonly inFlightLevels = new GatheredLevels();

  constructor(opts: GatewayMetricsOptions = {}) {
    promClient ??= requireCjs('prom-client') as typeof import('prom-client');
    const { collectDefaultMetrics, Counter, Gauge, Registry } = promClient;
    this.registry = new Registry();
    this.setLabelAllowList(opts);
    const registers = [this.registry];
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry });

    this.requests = new Counter({
      name: 'gateway_requests_total',
      help: 'Finished requests by endpoint, requested model, serving provider, HTTP status and fault domain.',
      labelNames: ['endpoint', 'model', 'provider', 'status', 'fault'],
      registers,
      collect: () => this.requestCounts.flushInto(this.requests),
    });
    this.tokens = new Counter({
      name: 'gateway_tokens_total',
      help: 'Tokens reported by providers, by serving model and provider.',
      labelNames: ['model', 'provider', 'kind'],
      registers,
      collect: () => this.tokenCounts.flushInto(this.tokens),
    });
    this.cost = new Counter({
      name: 'gateway_cost_usd_total',
      help: 'Cost of served requests in USD, by serving model and provider.',
      labelNames: ['model', 'provider'],
      registers,
      collect: () => this.costCounts.flushInto(this.cost),
    });
    this.requestDuration = new GatheredHistogram({
      name: 'gateway_request_duration_seconds',
      help: 'Whole request duration, arrival to last byte written.',
      labelNames: ['endpoint', 'stream'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.upstreamDuration = new GatheredHistogram({
      name: 'gateway_upstream_duration_seconds',
      help: 'Duration of each upstream attempt (start to end of its response).',
      labelNames: ['provider'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.ttft = new GatheredHistogram({
      name: 'gateway_time_to_first_token_seconds',
      help: 'Streams: request arrival to the first byte sent to the caller.',
      labelNames: ['provider'],
      buckets: TTFT_BUCKETS,
      registers,
    });
    this.overhead = new GatheredHistogram({
      name: 'gateway_overhead_seconds',
      help: 'Time the gateway itself added: latency minus upstream time minus backoff waits.',
      labelNames: ['endpoint'],
      buckets: OVERHEAD_BUCKETS,
      registers,
    });
    const levels = this.inFlightLevels;
    new Gauge({
      name: 'gateway_requests_in_flight',
      help: 'Requests being handled now.',
      labelNames: ['endpoint'],
      registers,
      collect() {
        for (const [endpoint, n] of levels.values) this.set({ endpoint }, n);
      },
    });
    this.guardrailActions = new Counter({
      name: 'gateway_guardrail_actions_total',
      help: 'Guardrail hits by guardrail, action and direction.',
      labelNames: ['guardrail', 'action', 'direction'],
      registers,
    });
    this.attemptsTotal = new Counter({
      name: 'gateway_upstream_attempts_total',
      help: 'Upstream attempts by provider and outcome.',
      labelNames: ['provider', 'outcome'],
      registers,
      collect: () => this.attemptCounts.flushInto(this.attemptsTotal),
    });

    const budgetValues = this.budgetValues;
    const budgetsFn = opts.budgets;
    const budgetsTimeoutMs = opts.budgetsTimeoutMs ?? 2000;
    new Gauge({
      name: 'gateway_budget_remaining_usd',
      help: 'USD left in each budget for its current period.',
      labelNames: ['budget'],
      registers,
      async collect() {
        this.reset();
        let fromFn: readonly BudgetRemaining[] = [];
        if (budgetsFn) {
          // A store that is down or slow must not break or stall the scrape: no budget series then.
          let timer: NodeJS.Timeout | undefined;
          try {
            fromFn = await Promise.race([
              Promise.resolve().then(budgetsFn),
              new Promise<never>((_, reject) => {
                timer = setTimeout(() => reject(new Error('timeout')), budgetsTimeoutMs);
              }),
            ]);
          } catch {
            fromFn = [];
          } finally {
            clearTimeout(timer);
          }
        }
        const values = new Map(budgetValues);
        // Several instances of one budget (each_key_of_role): the one closest to running out.
        const seen = new Set<string>();
        for (const b of fromFn) {
          if (!finite(b.remainingUsd)) continue;
          values.set(b.id, seen.has(b.id) ? Math.min(values.get(b.id)!, b.remainingUsd) : b.remainingUsd);
          seen.add(b.id);
        }
        for (const [id, usd] of values) if (finite(usd)) this.set({ budget: id }, usd);
      },
    });
    const coolingFn = opts.cooling;
    new Gauge({
      name: 'gateway_targets_in_cooldown',
      help: 'Targets (models or provider credentials) whose circuit breaker is open or half-open.',
      registers,
      collect() {
        let n = 0;
        try {
          n = coolingFn ? coolingFn().length : 0;
        } catch {
          n = 0;
        }
        this.set(n);
      },
    });
    const droppedFn = opts.traceSpansDropped;
    if (droppedFn) {
      new Counter({
        name: 'gateway_trace_spans_dropped_total',
        help: 'Spans not exported because the trace queue was full (a slow or unreachable collector).',
        registers,
        collect() {
          this.reset();
          this.inc(Math.max(0, droppedFn()));
        },
      });
    }
    const queueBytesFn = opts.traceQueueBytes;
    if (queueBytesFn) {
      new Gauge({
        name: 'gateway_trace_queue_bytes',
        help: 'Estimated bytes (OTLP JSON) of spans waiting for export (bounded: beyond it spans are dropped).',
        registers,
        collect() {
          this.set(Math.max(0, queueBytesFn()));
        },
      });
    }
  }

  /** Replaces the label allow-lists (after a config reload). Omitted lists are left as they are. */
  setLabelAllowList(opts: Pick<GatewayMetricsOptions, 'models' | 'providers' | 'guardrails' | 'endpoints'>): void {
    if (opts.models) this.models = new Set(opts.models);
    if (opts.providers) this.providers = new Set(opts.providers);
    if (opts.guardrails) this.guardrailIds = new Set(opts.guardrails);
    if (opts.endpoints) this.endpointIds = new Set(opts.endpoints);
  }

  /** Sets one budget's remaining USD (alternative to the `budgets` option); kept until changed or removed. */
  setBudgetRemaining(id: string, usd: number): void {
    this.budgetValues.set(id, usd);
  }

  removeBudget(id: string): void {
    this.budgetValues.delete(id);
  }

  requestStarted(endpoint: string): void {
    this.inFlightLevels.add(this.endpoint(endpoint), 1);
  }

  requestEnded(endpoint: string): void {
    this.inFlightLevels.add(this.endpoint(endpoint), -1);
  }

  onRequest(
    record: RequestRecord,
    detail: { attempts: readonly AttemptRecord[]; traceparent?: string; startEpochMs: number },
  ): void {
    try {
      this.observe(record, detail.attempts, detail.startEpochMs);
    } catch {
      // Metrics never break a request.
    }
  }

  /** The text exposition for GET /metrics. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  async close(): Promise<void> {
    this.registry.clear();
  }

  private observe(r: RequestRecord, attempts: readonly AttemptRecord[], startEpochMs: number): void {
    const endpoint = this.endpoint(r.endpoint);
    const provider = this.provider(r.provider);
    const model = this.model(r.model);
    const code = status(r.status);
    const fault = r.fault && FAULTS.has(r.fault) ? r.fault : NONE;
    this.requestCounts.add(1, endpoint, model, provider, code, fault);

    const servedModel = this.model(r.served_model ?? r.model);
    this.addTokens(servedModel, provider, 'input', r.input_tokens);
    this.addTokens(servedModel, provider, 'output', r.output_tokens);
    this.addTokens(servedModel, provider, 'cache_read', r.cache_read_tokens);
    this.addTokens(servedModel, provider, 'cache_write', r.cache_write_tokens);
    if (finite(r.cost_usd) && r.cost_usd > 0) this.costCounts.add(r.cost_usd, servedModel, provider);

    if (finite(r.latency_ms))
      this.requestDuration.observe(seconds(Math.max(0, r.latency_ms)), endpoint, r.stream ? 'true' : 'false');
    if (finite(r.overhead_ms)) this.overhead.observe(seconds(Math.max(0, r.overhead_ms)), endpoint);
    if (r.stream && finite(r.ttft_ms)) this.ttft.observe(seconds(Math.max(0, r.ttft_ms)), provider);

    const endEpoch = startEpochMs + (finite(r.latency_ms) ? r.latency_ms : 0);
    for (const a of attempts) {
      const p = this.provider(a.provider);
      this.attemptCounts.add(1, p, OUTCOMES.has(a.outcome) ? a.outcome : OTHER);
      const end = a.endMs ?? endEpoch;
      if (finite(a.startMs) && finite(end)) this.upstreamDuration.observe(seconds(Math.max(0, end - a.startMs)), p);
    }

    for (const g of r.guardrails ?? []) {
      this.guardrailActions.inc({
        guardrail: this.guardrailIds && !this.guardrailIds.has(g.guardrail) ? OTHER : g.guardrail,
        action: GUARDRAIL_ACTIONS.has(g.action) ? g.action : OTHER,
        direction: DIRECTIONS.has(g.direction) ? g.direction : OTHER,
      });
    }
  }

  private addTokens(model: string, provider: string, kind: TokenKind, n: number | undefined): void {
    if (finite(n) && n > 0) this.tokenCounts.add(n, model, provider, kind);
  }

  private model(m: string | undefined): string {
    if (m === undefined || m === '') return NONE;
    return this.models.has(m) ? m : OTHER;
  }

  private provider(p: string | undefined): string {
    if (p === undefined || p === '') return NONE;
    return this.providers.has(p) ? p : OTHER;
  }

  private endpoint(e: string): string {
    return this.endpointIds && !this.endpointIds.has(e) ? OTHER : e;
  }
}

function status(s: number): string {
  return Number.isInteger(s) && s >= 100 && s <= 599 ? String(s) : s === 0 ? NONE : OTHER;
}
