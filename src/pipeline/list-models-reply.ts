import { GatewayError } from '../core/errors.js';
import { listModels, type ModelListEntry } from '../routing/list-models.js';
import type { Stage } from './compose.js';
import type { RequestContext } from '../request/context.js';

/**
 * GET /v1/models for the caller's role: the OpenAI list shape, or the Anthropic one (with paging)
 * when the caller sent `anthropic-version`. Both carry each entry's context window; the OpenAI
 * entries also its kind (chat or embedding).
 */
export const listModelsReply: Stage = async (ctx) => {
  const entries = listModels(ctx.config, ctx.principal!.role);
  ctx.reply = {
    kind: 'json',
    status: 200,
    body: ctx.format.id === 'anthropic-messages' ? anthropicList(ctx, entries) : openaiList(ctx, entries),
  };
};

function openaiList(ctx: RequestContext, entries: ModelListEntry[]) {
  return { object: 'list', data: entries.map((m) => openaiModel(ctx, m)) };
}

/** One entry in the OpenAI shape (the list's entries and GET /v1/models/{id}). */
export function openaiModel(ctx: RequestContext, m: ModelListEntry) {
  return {
    id: m.id,
    object: 'model',
    created: Math.floor(ctx.runtime.startedAtEpochMs / 1000),
    owned_by: m.owner,
    kind: m.modelKind,
    context_window: m.contextWindow,
    ...(m.maxOutputTokens !== undefined ? { max_output_tokens: m.maxOutputTokens } : {}),
    ...(m.kind === 'alias' ? { targets: m.targets } : {}),
  };
}

/**
 * One entry in the Anthropic shape (ModelInfo: `type`, `id`, `display_name`, `created_at`, plus
 * the documented `max_input_tokens` and `max_tokens`).
 * @see https://docs.anthropic.com/en/api/models
 */
export function anthropicModel(ctx: RequestContext, m: ModelListEntry) {
  return {
    type: 'model',
    id: m.id,
    display_name: m.id,
    created_at: new Date(ctx.runtime.startedAtEpochMs).toISOString(),
    max_input_tokens: m.contextWindow,
    // The configured output limit; without one, the context window bounds it.
    max_tokens: m.maxOutputTokens ?? m.contextWindow,
  };
}

/** @see https://docs.anthropic.com/en/api/models-list */
function anthropicList(ctx: RequestContext, entries: ModelListEntry[]) {
  const q = new URL(ctx.req.url ?? '/', 'http://x').searchParams;
  const limitRaw = q.get('limit');
  const limit = limitRaw === null ? 20 : Number(limitRaw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new GatewayError('invalid_request', "'limit' must be an integer between 1 and 1000.", { param: 'limit' });
  }
  const afterId = q.get('after_id');
  const beforeId = q.get('before_id');
  const indexOf = (id: string, param: string) => {
    const i = entries.findIndex((e) => e.id === id);
    if (i === -1) throw new GatewayError('invalid_request', `'${param}' names no model in this list.`, { param });
    return i;
  };
  let page: ModelListEntry[];
  let hasMore: boolean;
  if (beforeId !== null) {
    const end = indexOf(beforeId, 'before_id');
    const start = Math.max(0, end - limit);
    page = entries.slice(start, end);
    hasMore = start > 0;
  } else {
    const start = afterId !== null ? indexOf(afterId, 'after_id') + 1 : 0;
    page = entries.slice(start, start + limit);
    hasMore = start + limit < entries.length;
  }
  return {
    data: page.map((m) => anthropicModel(ctx, m)),
    has_more: hasMore,
    first_id: page[0]?.id ?? null,
    last_id: page.at(-1)?.id ?? null,
  };
}
