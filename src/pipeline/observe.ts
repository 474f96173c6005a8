import { atEndOfTurn } from '../observe/end-of-turn.js';
import { buildRecord, type RequestRecord } from '../observe/record.js';
import type { Stage } from './compose.js';
import { redactForRequest } from '../request/secrets.js';
import { type RequestContext, requestedModel } from '../request/context.js';

/**
 * Starts the clock; ↩ once the response has been written (or abandoned): runs the request's
 * settlements (ctx.onDone), then makes its one record and hands it to the log, the metrics and
 * the traces. Key ids only, never keys; no prompt or completion text.
 */
export const observe: Stage = async (ctx, next) => {
  ctx.runtime.telemetry.requestStarted(ctx.endpoint);
  try {
    await next();
  } finally {
    // Each task taken off the list as it runs (no copy of the list; one added meanwhile runs too).
    for (let done = ctx.onDone.shift(); done !== undefined; done = ctx.onDone.shift()) {
      try {
        await done();
      } catch (err) {
        ctx.runtime.logger.log('error', 'settling the request failed', {
          correlation_id: ctx.id,
          error: (err as Error).message,
        });
      }
    }
    ctx.runtime.telemetry.requestEnded(ctx.endpoint);
    report(ctx);
  }
};

function recordOf(ctx: RequestContext): RequestRecord {
  return buildRecord({
    id: ctx.id,
    endpoint: ctx.endpoint,
    startedAtEpochMs: ctx.startedAtEpochMs,
    startedAt: ctx.startedAt,
    endedAt: performance.now(),
    firstByteSentAt: ctx.firstByteSentAt,
    backoffMs: ctx.backoffMs,
    attempts: ctx.attemptLog,
    status: ctx.status ?? ctx.error?.status ?? 0,
    error: ctx.error,
    clientAborted: ctx.signal.aborted,
    keyId: ctx.principal?.keyId,
    role: ctx.principal?.role,
    model: requestedModel(ctx),
    servedProvider: ctx.served?.provider.id,
    servedModel: ctx.served?.model.id,
    fallback: ctx.served?.fallback,
    stream: ctx.embeddings ? false : ctx.chat?.stream,
    usage: ctx.usage,
    costNano: ctx.costNano,
    byok: ctx.byok,
    guardrails: ctx.guardrailHits,
    droppedFields: ctx.droppedFields,
    rewrittenFields: ctx.rewrittenFields,
  });
}

/**
 * The log line (level by outcome) and every telemetry sink, at the end of the turn; no record when
 * nothing reads it.
 */
function report(ctx: RequestContext): void {
  const err = ctx.error;
  const level = !err ? 'info' : err.status >= 500 ? 'error' : 'warn';
  const logger = ctx.runtime.logger;
  const logged = logger.enabled(level);
  const telemetry = ctx.runtime.telemetry;
  if (!logged && !telemetry.active) return;
  const record = recordOf(ctx);
  const fields = logged ? lineFields(ctx, record) : undefined;
  const detail = {
    attempts: ctx.attemptLog,
    traceparent: headerValue(ctx.req.headers.traceparent),
    startEpochMs: ctx.startedAtEpochMs,
  };
  // Made now, written and counted with the rest of this turn's (observe/end-of-turn.ts).
  atEndOfTurn(() => {
    if (fields) logger.log(level, 'request', fields);
    telemetry.onRequest(record, detail);
  });
}

/**
 * The log line's fields: the record as it is (no copy of ~25 fields per line), unless an internal
 * error's stack or the prompt joins it.
 */
function lineFields(ctx: RequestContext, record: RequestRecord): Record<string, unknown> {
  const err = ctx.error;
  const internal = err?.code === 'internal_error';
  // Prompts only when the config opts in (they may hold personal data).
  // A request a guardrail blocked is never written out (ctx.chat is the redacted one otherwise).
  const { chat, embeddings } = ctx;
  const logPrompt =
    ctx.config.observability.log.includePrompts && (chat || embeddings) && err?.code !== 'guardrail_blocked';
  if (!internal && !logPrompt) return record as unknown as Record<string, unknown>;
  const fields: Record<string, unknown> = { ...record };
  if (internal) fields.error = redactForRequest(ctx, String((err.cause as Error | undefined)?.stack ?? err.cause));
  if (logPrompt)
    fields.prompt = chat ? { system: chat.system, messages: chat.messages } : { input: embeddings!.inputs };
  return fields;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
