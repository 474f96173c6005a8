import type { MemberOffsets } from '../core/json-splice.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CancelSignal } from '../core/cancel.js';
import type { ChatRequest, Usage } from '../core/canonical.js';
import type { EmbeddingsRequest } from '../core/embeddings.js';
import type { Principal, RelayedOutput, Reply } from '../core/reply.js';
import { GatewayError } from '../core/errors.js';
import type { GatewayConfig } from '../config/types.js';
import type { WireFormat } from '../formats/types.js';
import type { Candidate, Resolution } from '../routing/resolve-model.js';
import type { Logger } from '../observe/logger.js';
import type { TelemetryHub } from '../observe/telemetry.js';
import type { AttemptRecord, GuardrailHit } from '../observe/record.js';
import type { Breakers } from '../routing/cooldown.js';
import type { ReconcileQueue } from '../state/reconcile.js';
import type { StateStore } from '../state/store.js';
import type { UpstreamPool } from '../upstream/client.js';

/** Shared, long-lived parts of the gateway a request may use. */
export interface GatewayRuntime {
  config: GatewayConfig;
  upstream: UpstreamPool;
  logger: Logger;
  /** When this gateway started (the `created` of configured models). */
  startedAtEpochMs: number;
  /** Circuit breakers of targets and provider credentials (per process). */
  breakers: Breakers;
  /** The state store: budget and rate-limit counters (embedded or Redis). */
  store: StateStore;
  /** Metrics and traces. */
  telemetry: TelemetryHub;
  /** Settlements waiting for the store to come back. */
  reconcile: ReconcileQueue;
}

export interface RequestContext {
  readonly id: string;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly runtime: GatewayRuntime;
  /** The config snapshot for this whole request. */
  readonly config: GatewayConfig;
  /** The caller's wire format (errors and responses are rendered in it). */
  readonly format: WireFormat;
  readonly endpoint: string;
  readonly startedAt: number;
  /** Date.now() when the request arrived (records and traces use epoch times). */
  readonly startedAtEpochMs: number;
  /** Aborted when the client goes away before the response is complete. */
  readonly signal: CancelSignal;

  rawBody?: Buffer;
  /** Where rawBody's members are, from its strict parse; cleared by whatever replaces rawBody. */
  rawMembers?: MemberOffsets;
  body?: unknown;
  /** Canonical view of the request (policies read this; pass-through forwards rawBody). */
  chat?: ChatRequest;
  /** An embeddings request as read (POST /v1/embeddings; its upstream gets rawBody). */
  embeddings?: EmbeddingsRequest;
  principal?: Principal;
  /** Output guardrails apply: the reply is made from canonical events (no byte pass-through). */
  outputGuarded?: boolean;
  resolution?: Resolution;
  /** Headers added to whatever response goes out (success or error). */
  responseHeaders: Record<string, string>;
  reply?: Reply;

  // Outcome, for observation.
  served?: Candidate;
  /** What the request cost, once settled (nano-USD). */
  costNano?: number;
  /** Run once the response has been written or abandoned (settling reservations); errors are logged. */
  onDone: Array<() => Promise<void>>;
  /** True when the caller's own provider key served the request. */
  byok?: boolean;
  /** A stream's generated text relayed so far, and whether it completed (bills a cut stream). */
  relayed?: RelayedOutput;
  attempts: number;
  usage?: Usage;
  status?: number;
  error?: GatewayError;
  /** performance.now() when the first byte of a stream went to the caller. */
  firstByteSentAt?: number;
  /** What a translated request, or a pass-through edit, left out (x-gateway-dropped-fields), for the log line. */
  droppedFields?: string[];
  /** What a pass-through edit replaced by the form the model takes (x-gateway-rewritten-fields), for the log line. */
  rewrittenFields?: string[];
  /** Every upstream attempt, in order (for the log line, metrics and traces). */
  attemptLog: AttemptRecord[];
  /** Time spent waiting between retries. */
  backoffMs: number;
  /** Guardrail actions taken (never the matched text). */
  guardrailHits: GuardrailHit[];
}

/**
 * A request past `authorise`, whatever its endpoint: its body read, its principal known, its
 * model resolved. The stages after it take this type or a narrower one (pipeline/compose.ts,
 * routedStage, embeddingsStage), so what the earlier stages set is checked once at that boundary
 * instead of asserted at every use.
 */
export interface AuthorisedContext extends RequestContext {
  rawBody: Buffer;
  body: unknown;
  principal: Principal;
  resolution: Resolution;
}

/** A chat model request (chat completions, messages, count_tokens) past `authorise`. */
export interface RoutedContext extends AuthorisedContext {
  chat: ChatRequest;
}

/** An embeddings request past `authorise`. */
export interface EmbeddingsContext extends AuthorisedContext {
  embeddings: EmbeddingsRequest;
}

function isAuthorised(ctx: RequestContext): boolean {
  return ctx.rawBody !== undefined && ctx.principal !== undefined && ctx.resolution !== undefined;
}

export function asRouted(ctx: RequestContext): RoutedContext {
  if (!isAuthorised(ctx) || ctx.chat === undefined) {
    throw new GatewayError('internal_error', 'A stage that needs a routed request ran before authorise.');
  }
  return ctx as RoutedContext;
}

export function asEmbeddings(ctx: RequestContext): EmbeddingsContext {
  if (!isAuthorised(ctx) || ctx.embeddings === undefined) {
    throw new GatewayError('internal_error', 'A stage that needs an embeddings request ran before authorise.');
  }
  return ctx as EmbeddingsContext;
}

/** The model id or alias the request names, once its body has been read. */
export function requestedModel(ctx: RequestContext): string | undefined {
  return ctx.chat?.model ?? ctx.embeddings?.model;
}

/** The model name the caller sent: what every response names. */
export function callerModel(ctx: AuthorisedContext): string {
  return ctx.resolution.id;
}
