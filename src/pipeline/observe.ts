import type { Stage } from './compose.js';

/**
 * Starts the clock; ↩ after the response has been written, one structured log line with what
 * happened. Key ids only, never keys; no prompt or completion text.
 */
export const observe: Stage = async (ctx, next) => {
  try {
    await next();
  } finally {
    for (const done of ctx.onDone.splice(0)) {
      try {
        await done();
      } catch (err) {
        ctx.runtime.logger.log('error', 'settling the request failed', { correlation_id: ctx.id, error: (err as Error).message });
      }
    }
    const ms = (t: number | undefined) => (t === undefined ? undefined : Math.round((t - ctx.startedAt) * 100) / 100);
    const err = ctx.error;
    const level = !err ? 'info' : err.status >= 500 ? 'error' : 'warn';
    ctx.runtime.logger.log(level, 'request', {
      correlation_id: ctx.id,
      endpoint: ctx.endpoint,
      status: ctx.status ?? err?.status,
      key_id: ctx.principal?.keyId,
      role: ctx.principal?.role,
      model: ctx.chat?.model,
      provider: ctx.served?.provider.id,
      served_model: ctx.served?.model.id,
      attempts: ctx.attempts,
      fallback: ctx.served?.fallback,
      byok: ctx.byok,
      stream: ctx.chat?.stream,
      input_tokens: ctx.usage?.inputTokens,
      output_tokens: ctx.usage?.outputTokens,
      cache_read_tokens: ctx.usage?.cacheReadTokens,
      cache_write_tokens: ctx.usage?.cacheWriteTokens,
      cost_usd: ctx.costNano !== undefined ? ctx.costNano / 1e9 : undefined,
      latency_ms: ms(performance.now()),
      upstream_first_byte_ms: ms(ctx.firstByteAt),
      client_aborted: ctx.signal.aborted || undefined,
      error_code: err?.code,
      error: err && err.status >= 500 && err.code === 'internal_error' ? String((err.cause as Error | undefined)?.stack ?? err.cause) : undefined,
    });
  }
};
