/**
 * What happened to one request, in one flat record: the log line, the metrics and the trace are
 * all made from it (one place that decides what a request's outcome, fault and timings are).
 * Key ids only, never keys; no prompt or completion text.
 */

import type { GatewayError } from '../core/errors.js';
import { boundField } from './bound-field.js';
import { isoTime } from './iso-time.js';

/** Who a failure is to blame on. */
export type FaultDomain = 'caller' | 'policy' | 'provider' | 'gateway';

export interface AttemptRecord {
  provider: string;
  model: string;
  /** Epoch ms. */
  startMs: number;
  /** Epoch ms of the first response byte from the provider. */
  firstByteMs?: number;
  /** Epoch ms; for a committed stream, when it ended. */
  endMs?: number;
  outcome: 'pending' | 'ok' | 'failed' | 'abandoned';
  status?: number;
  errorCode?: string;
  byok: boolean;
}

export interface GuardrailHit {
  guardrail: string;
  action: 'block' | 'redact' | 'log';
  direction: 'input' | 'output';
  /** Detector name, "regex", "keyword", "max_input_tokens" or "webhook"; never the matched text. */
  label?: string;
}

export interface RequestRecord {
  /** ISO time the request arrived; the first key, so the log line joins the record's JSON as it is (logger.ts). */
  time: string;
  correlation_id: string;
  endpoint: string;
  key_id?: string;
  role?: string;
  /** The model id or alias the caller asked for. */
  model?: string;
  provider?: string;
  served_model?: string;
  attempts: number;
  fallback?: boolean;
  status: number;
  error_code?: string;
  fault?: FaultDomain;
  stream?: boolean;
  input_tokens?: number;
  output_tokens?: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  cost_usd?: number;
  latency_ms: number;
  /** Time spent waiting on providers (all attempts). */
  upstream_ms?: number;
  /** Streams: request start to the first byte sent to the caller. */
  ttft_ms?: number;
  /** latency − upstream time − backoff waits: what the gateway itself added. */
  overhead_ms?: number;
  byok?: boolean;
  client_aborted?: boolean;
  guardrails?: GuardrailHit[];
  /** What a request left out (the x-gateway-dropped-fields header): field names, never values. */
  dropped_fields?: string[];
  /** What a pass-through edit replaced by the form the model takes (x-gateway-rewritten-fields): field names. */
  rewritten_fields?: string[];
}

const CALLER_CODES = new Set([
  'invalid_json',
  'invalid_request',
  'body_too_large',
  'headers_too_large',
  'request_timeout',
  'missing_api_key',
  'invalid_api_key',
  'model_not_found',
  'route_not_found',
  'method_not_allowed',
  'provider_key_not_allowed',
  'provider_key_required',
  'provider_key_rejected',
]);
const POLICY_CODES = new Set([
  'model_not_allowed',
  'tool_not_allowed',
  'budget_exceeded',
  'rate_limit_exceeded',
  'guardrail_blocked',
]);
const PROVIDER_CODES = new Set(['upstream_error', 'upstream_unavailable', 'upstream_timeout', 'no_available_provider']);

export function faultDomain(err: GatewayError | undefined, clientAborted: boolean): FaultDomain | undefined {
  // Whatever failed after the caller left (the cancelled upstream call) is a consequence of leaving.
  if (clientAborted || err?.code === 'client_disconnected') return 'caller';
  if (!err) return undefined;
  if (CALLER_CODES.has(err.code)) return 'caller';
  if (POLICY_CODES.has(err.code)) return 'policy';
  if (PROVIDER_CODES.has(err.code)) return 'provider';
  return 'gateway';
}

const round = (ms: number) => Math.round(ms * 100) / 100;

export interface RecordInput {
  id: string;
  endpoint: string;
  startedAtEpochMs: number;
  /** performance.now() values. */
  startedAt: number;
  endedAt: number;
  firstByteSentAt?: number;
  backoffMs: number;
  attempts: readonly AttemptRecord[];
  status: number;
  error?: GatewayError;
  clientAborted: boolean;
  keyId?: string;
  role?: string;
  model?: string;
  servedProvider?: string;
  servedModel?: string;
  fallback?: boolean;
  stream?: boolean;
  usage?: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number };
  costNano?: number;
  byok?: boolean;
  guardrails: readonly GuardrailHit[];
  droppedFields?: readonly string[];
  rewrittenFields?: readonly string[];
}

export function buildRecord(i: RecordInput): RequestRecord {
  const latency = i.endedAt - i.startedAt;
  const endEpoch = i.startedAtEpochMs + latency;
  let upstream: number | undefined;
  for (const a of i.attempts) upstream = (upstream ?? 0) + ((a.endMs ?? endEpoch) - a.startMs);
  return {
    time: isoTime(i.startedAtEpochMs),
    correlation_id: i.id,
    endpoint: i.endpoint,
    key_id: i.keyId,
    role: i.role,
    // The caller's own text: bounded before the log, the metrics and the traces see it.
    model: i.model !== undefined ? boundField(i.model) : undefined,
    provider: i.servedProvider,
    served_model: i.servedModel,
    attempts: i.attempts.length,
    fallback: i.fallback,
    status: i.status,
    error_code: i.error?.code,
    fault: faultDomain(i.error, i.clientAborted),
    stream: i.stream,
    input_tokens: i.usage?.inputTokens,
    output_tokens: i.usage?.outputTokens,
    cache_read_tokens: i.usage?.cacheReadTokens,
    cache_write_tokens: i.usage?.cacheWriteTokens,
    cost_usd: i.costNano !== undefined ? i.costNano / 1e9 : undefined,
    latency_ms: round(latency),
    upstream_ms: upstream !== undefined ? round(upstream) : undefined,
    ttft_ms: i.firstByteSentAt !== undefined && i.stream ? round(i.firstByteSentAt - i.startedAt) : undefined,
    overhead_ms: round(Math.max(0, latency - (upstream ?? 0) - i.backoffMs)),
    byok: i.byok,
    client_aborted: i.clientAborted || undefined,
    guardrails: i.guardrails.length > 0 ? [...i.guardrails] : undefined,
    // Names from the caller's body and anthropic-beta header: bounded like the model name.
    dropped_fields:
      i.droppedFields && i.droppedFields.length > 0
        ? i.droppedFields.slice(0, 64).map((f) => boundField(f))
        : undefined,
    // The gateway's own names (`thinking`), not the caller's.
    rewritten_fields: i.rewrittenFields && i.rewrittenFields.length > 0 ? [...i.rewrittenFields] : undefined,
  };
}

/** A consumer of finished requests (metrics, traces). Must not throw or block. */
export interface Telemetry {
  onRequest(
    record: RequestRecord,
    detail: { attempts: readonly AttemptRecord[]; traceparent?: string; startEpochMs: number },
  ): void;
  close(): Promise<void>;
}
