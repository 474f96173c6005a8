/**
 * GET /v1/responses/{id}, DELETE /v1/responses/{id}, GET /v1/responses/{id}/input_items: a
 * stored response as the key that created it sees it (conversation/stored-responses.ts). One the
 * gateway holds is answered from the store; one a provider holds is asked of that provider, with
 * its configured key (or the caller's own where the provider takes one). Any other key gets 404,
 * as for an id that never existed.
 */

import { GatewayError } from '../core/errors.js';
import { deleteResponse, loadResponse, type StoredResponse } from '../conversation/stored-responses.js';
import { renameModelIn } from '../formats/response-model.js';
import { HTTP_PROVIDERS } from '../providers/registry.js';
import type { RequestContext } from '../request/context.js';
import { callerProviderKey } from '../routing/byok.js';
import { upstreamHttpError } from '../upstream/http-error.js';
import { storeCall } from './conversation.js';
import type { Stage } from './compose.js';

const PREFIX = '/v1/responses/';

/** The stored-response paths: `{id}` and `{id}/input_items` (an id has no `/`). */
export function storedResponsePath(path: string): string | undefined {
  if (!path.startsWith(PREFIX)) return undefined;
  const rest = path.slice(PREFIX.length);
  if (/^[A-Za-z0-9_-]{1,200}$/.test(rest)) return '/v1/responses/{id}';
  if (/^[A-Za-z0-9_-]{1,200}\/input_items$/.test(rest)) return '/v1/responses/{id}/input_items';
  return undefined;
}

export const storedResponseReply: Stage = async (ctx) => {
  const [path, query = ''] = (ctx.req.url ?? '/').split('?', 2);
  const [id, sub] = path.slice(PREFIX.length).split('/');
  const owner = ctx.principal!.keyId;
  const store = ctx.runtime.store;
  const doc = await storeCall(() => loadResponse(store, id, owner));
  if (!doc) throw new GatewayError('response_not_found', `Response with id '${id}' not found.`);
  if (doc.held === 'provider') {
    await askProvider(ctx, doc, `/responses/${id}${sub ? `/${sub}` : ''}${query ? `?${query}` : ''}`);
    if (ctx.req.method === 'DELETE') await storeCall(() => deleteResponse(store, id, owner));
    return;
  }
  if (ctx.req.method === 'DELETE') {
    await storeCall(() => deleteResponse(store, id, owner));
    ctx.reply = { kind: 'json', status: 200, body: { id, object: 'response.deleted', deleted: true } };
    return;
  }
  if (sub === 'input_items') {
    ctx.reply = {
      kind: 'json',
      status: 200,
      body: inputItemsPage(id, doc.input.slice(doc.ownFrom), new URLSearchParams(query)),
    };
    return;
  }
  ctx.reply = { kind: 'json', status: 200, body: doc.response };
};

/**
 * A page of a gateway-held response's input items (its request's own, references expanded, not
 * those of the responses it continues), as OpenAI lists them: newest first unless
 * `order=asc`, `limit` 1–100 (default 20), `after` an item id. Items without an id of their own
 * are named by their place; messages are listed with their content as parts (listedItem).
 */
function inputItemsPage(responseId: string, input: unknown[], q: URLSearchParams): Record<string, unknown> {
  const limit = Number(q.get('limit') ?? 20);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new GatewayError('invalid_request', 'limit must be an integer from 1 to 100.', { param: 'limit' });
  }
  const order = q.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') {
    throw new GatewayError('invalid_request', "order must be 'asc' or 'desc'.", { param: 'order' });
  }
  const base = responseId.replace(/^resp_/, '');
  const items = input.map((item, i) => {
    const o = listedItem((typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>);
    return { ...o, id: typeof o.id === 'string' ? o.id : `item_${base}_in${i}` };
  });
  if (order === 'desc') items.reverse();
  const after = q.get('after');
  const start = after === null ? 0 : items.findIndex((it) => it.id === after) + 1;
  if (after !== null && start === 0) {
    throw new GatewayError('invalid_request', `No input item with id '${after}'.`, { param: 'after' });
  }
  const data = items.slice(start, start + limit);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: start + limit < items.length,
  };
}

/**
 * A message input item as the API lists it (clients read `content` as a list of parts): with its
 * `type`, and a string content as one text part (`output_text` for an assistant's, else `input_text`).
 */
function listedItem(o: Record<string, unknown>): Record<string, unknown> {
  if (typeof o.role !== 'string' || (o.type !== undefined && o.type !== 'message')) return o;
  if (typeof o.content !== 'string') return { ...o, type: 'message' };
  const part = o.role === 'assistant' ? 'output_text' : 'input_text';
  return { ...o, type: 'message', content: [{ type: part, text: o.content }] };
}

/** The same call made of the provider that holds the response; its answer passed on, renamed. */
async function askProvider(
  ctx: RequestContext,
  doc: Extract<StoredResponse, { held: 'provider' }>,
  path: string,
): Promise<void> {
  const provider = ctx.config.providers.get(doc.provider);
  const kind = provider && provider.api !== 'mock' ? HTTP_PROVIDERS[provider.api] : undefined;
  if (!provider || !kind) {
    throw new GatewayError('response_not_found', `Response '${path}' is held by a provider no longer configured.`);
  }
  const callerKey = provider.byok === 'never' ? undefined : callerProviderKey(ctx.req.headers);
  const apiKey = callerKey ?? provider.apiKey;
  const up = await ctx.runtime.upstream.send({
    provider,
    path,
    method: ctx.req.method === 'DELETE' ? 'DELETE' : 'GET',
    headers: {
      ...provider.headers,
      accept: 'application/json',
      'x-correlation-id': ctx.id,
      ...(await kind.authHeaders(apiKey, provider)),
    },
    timeouts: provider.timeouts,
    signal: ctx.signal,
  });
  const text = await up.body.text();
  if (up.status >= 400) {
    let message: string | undefined;
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message;
    } catch {
      message = undefined;
    }
    throw upstreamHttpError(provider, up.status, text, message, { secrets: [apiKey] });
  }
  ctx.reply = { kind: 'json', status: up.status, body: Buffer.from(renameModelIn(text, doc.model)) };
}
