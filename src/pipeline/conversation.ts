/**
 * Conversation state of the Responses API (conversation/): before the request is routed,
 * `previous_response_id` and `item_reference`s the gateway holds are expanded into the body; on
 * the way out, the response is stored for the next turn (unless `store: false`). A translated
 * answer is stored whole (the provider kept nothing: it was sent `store: false`) under the id
 * the caller gets, `resp_<correlation id>`; a passed-through one only as a record of its owner
 * and provider. Runs after parseBody; its way out runs after the output guard, so what is stored
 * is what the caller got.
 */

import type { StreamEvent } from '../core/canonical.js';
import { GatewayError } from '../core/errors.js';
import { StreamFolder } from '../core/fold-stream.js';
import { responseIdFor } from '../formats/openai-responses-ids.js';
import { expandReferences, mayReferToStored } from '../conversation/expand-references.js';
import { loadResponse, saveResponse, type StoredResponse } from '../conversation/stored-responses.js';
import { HTTP_PROVIDERS } from '../providers/registry.js';
import type { RequestContext } from '../request/context.js';
import { StoreUnavailableError } from '../state/store.js';
import type { Stage } from './compose.js';

/** For POST /v1/responses: expand, then store what was answered. */
export const conversation: Stage = async (ctx, next) => {
  const body = ctx.body as Record<string, unknown>;
  // The caller's own input items (references expand one for one), as input_items lists them.
  const own = inputItems(body).length;
  if (mayReferToStored(body)) await expand(ctx, false);
  await next();
  const kept = keepAnswer(ctx, own);
  if (kept) await kept;
};

/** For POST /v1/responses/input_tokens: the expanded conversation is what gets counted. */
export const conversationForCounting: Stage = async (ctx, next) => {
  if (mayReferToStored(ctx.body as Record<string, unknown>)) await expand(ctx, true);
  await next();
};

async function expand(ctx: RequestContext, forCounting: boolean): Promise<void> {
  const owner = ctx.principal!.keyId;
  const body = ctx.body as Record<string, unknown>;
  const expanded = await storeCall(() => expandReferences(body, (id) => loadResponse(ctx.runtime.store, id, owner)));
  if (!expanded) return;
  ctx.body = expanded;
  ctx.rawBody = Buffer.from(JSON.stringify(expanded));
  ctx.rawMembers = undefined;
  const chat = ctx.format.decodeRequest(expanded, forCounting ? { forCounting } : undefined);
  // The response still names the reference the caller sent.
  ctx.chat = { ...chat, echo: { ...chat.echo, previous_response_id: body.previous_response_id ?? null } };
}

/**
 * Stores the answer as the caller gets it: a complete one before it is written (so the next turn
 * finds it), a stream just before its last event goes out. Returns the store's write when there is
 * one to wait for (undefined otherwise: `store: false` costs no asynchronous step).
 */
function keepAnswer(ctx: RequestContext, own: number): Promise<void> | undefined {
  const reply = ctx.reply;
  const chat = ctx.chat;
  if (!reply || !chat || ctx.error) return undefined;
  const keep = (ctx.body as { store?: unknown }).store !== false;
  const owner = ctx.principal!.keyId;
  const ttl = ctx.config.state.responsesTtlMs;
  const save = (id: string, doc: StoredResponse) => storeCall(() => saveResponse(ctx.runtime.store, id, doc, ttl));
  const providerHeld = ctx.served !== undefined && HTTP_PROVIDERS[ctx.served.provider.api]?.speaks === ctx.format.id;
  if (providerHeld) {
    if (!keep) return undefined;
    const record = (respId: string | undefined) =>
      respId
        ? save(respId, { v: 1, held: 'provider', owner, provider: ctx.served!.provider.id, model: chat.model })
        : Promise.resolve();
    if (reply.kind === 'json' && reply.status < 300) return record(jsonResponseId(reply.body));
    if (reply.kind === 'response') return record(reply.response.id);
    if (reply.kind === 'sse') ctx.reply = { ...reply, chunks: recordingChunks(reply.chunks, record) };
    return undefined;
  }
  // Translated (or answered by the mock): the gateway names the response, and holds it unless
  // the caller said `store: false`.
  const id = responseIdFor(ctx.id);
  let hold: Hold | undefined;
  if (keep) {
    const input = inputItems(ctx.body as Record<string, unknown>);
    hold = (response) => {
      const encoded = ctx.format.encodeResponse(response, chat) as Record<string, unknown>;
      return save(id, { v: 1, held: 'gateway', owner, input, ownFrom: input.length - own, response: encoded });
    };
  }
  if (reply.kind === 'response') {
    const response = { ...reply.response, id };
    ctx.reply = { kind: 'response', response };
    return hold?.(response);
  }
  if (reply.kind === 'events') ctx.reply = { kind: 'events', events: keptStream(reply.events, id, hold) };
  return undefined;
}

type Hold = (response: StreamFolder['response']) => Promise<void>;

/**
 * A translated stream under the gateway's id, stored (when `hold` is given) once it completes,
 * before its last event goes out; nothing is folded for a stream that is not stored.
 */
async function* keptStream(
  events: AsyncIterable<StreamEvent>,
  id: string,
  hold: Hold | undefined,
): AsyncGenerator<StreamEvent> {
  const folder = hold ? new StreamFolder() : undefined;
  for await (const ev of events) {
    const out = ev.type === 'message_start' ? { ...ev, id } : ev;
    if (folder) {
      folder.push(out);
      if (out.type === 'message_stop') await hold!(folder.response);
    }
    yield out;
  }
}

/** The `id` of a passed-through JSON response body. */
function jsonResponseId(body: Buffer | string | object): string | undefined {
  let parsed: unknown = body;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    try {
      parsed = JSON.parse(body.toString());
    } catch {
      return undefined;
    }
  }
  const id = (parsed as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : undefined;
}

/** Relays SSE chunks, recording the response id found in the first `response.created` event. */
async function* recordingChunks(
  chunks: AsyncIterable<string | Uint8Array>,
  record: (id: string | undefined) => Promise<void>,
): AsyncGenerator<string | Uint8Array> {
  let seen = '';
  let done = false;
  let looked = 0;
  for await (const chunk of chunks) {
    if (!done) {
      // response.created is the first event: a few chunks at most (bounded rescans).
      seen += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const id = CREATED_ID.exec(seen)?.[1];
      if (id || ++looked >= 8 || seen.length > 65_536) {
        done = true;
        seen = '';
        await record(id);
      }
    }
    yield chunk;
  }
}

const CREATED_ID = /"type":\s*"response\.created"[\s\S]*?"id":\s*"(resp_[A-Za-z0-9_-]{1,200})"/;

/** The input items of a Responses body (a string input is one user message). */
function inputItems(body: Record<string, unknown>): unknown[] {
  const input = body.input;
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? input : [];
}

/** The store down while a conversation needs it: 503, the request is not served half-remembered. */
export async function storeCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StoreUnavailableError) {
      throw new GatewayError('state_store_unavailable', 'The conversation store is unavailable. Try again later.', {
        cause: err,
      });
    }
    throw err;
  }
}
