/**
 * Expands what a Responses request refers to instead of sending: `previous_response_id` and
 * `item_reference` input items naming responses the gateway holds (stored-responses.ts, kind
 * `gateway`) become the items themselves, so any model can continue the conversation. A reference
 * held by a provider stays as it is (the provider expands it; a translated attempt then refuses it
 * by name). A reference the gateway issued but no longer has, or that another key owns, is a 400
 * naming the field: never silently dropped.
 */

import { GatewayError } from '../core/errors.js';
import { parseIssuedItemId } from '../formats/openai-responses-ids.js';
import type { StoredResponse } from './stored-responses.js';

export type LoadResponse = (id: string) => Promise<StoredResponse | undefined>;

/** The expanded body, or undefined when the request refers to nothing the gateway holds. */
export async function expandReferences(
  body: Record<string, unknown>,
  load: LoadResponse,
): Promise<Record<string, unknown> | undefined> {
  const cache = new Map<string, Promise<StoredResponse | undefined>>();
  const cachedLoad = (id: string) => {
    let p = cache.get(id);
    if (!p) {
      p = load(id);
      cache.set(id, p);
    }
    return p;
  };
  let changed = false;
  let history: unknown[] = [];
  const previous = body.previous_response_id;
  if (typeof previous === 'string') {
    const doc = await cachedLoad(previous);
    if (!doc) {
      throw new GatewayError('previous_response_not_found', `Previous response with id '${previous}' not found.`, {
        param: 'previous_response_id',
      });
    }
    if (doc.held === 'gateway') {
      history = [...doc.input, ...outputOf(doc)];
      changed = true;
    }
  }
  const input = body.input;
  const items: unknown[] = typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : [];
  if (Array.isArray(input)) {
    for (let i = 0; i < input.length; i++) {
      const ref = referencedId(input[i]);
      const issued = ref === undefined ? undefined : parseIssuedItemId(ref);
      if (ref === undefined || !issued) {
        items.push(input[i]);
        continue;
      }
      const doc = await cachedLoad(issued.responseId);
      const item = doc?.held === 'gateway' ? outputOf(doc)[issued.index] : undefined;
      if (item === undefined) {
        throw new GatewayError('previous_response_not_found', `Item with id '${ref}' not found.`, {
          param: `input[${i}].id`,
        });
      }
      items.push(item);
      changed = true;
    }
  }
  if (!changed) return undefined;
  const { previous_response_id: _dropped, ...rest } = body;
  const keepPrevious = history.length === 0 && typeof previous === 'string' ? { previous_response_id: previous } : {};
  return { ...rest, ...keepPrevious, input: [...history, ...(Array.isArray(input) || history.length ? items : [])] };
}

/**
 * Whether expandReferences could change the body: it names a previous response, or an input item
 * refers to an item id the gateway issued. Most requests name neither (a first turn, `store:
 * false` callers such as Codex), and skip the asynchronous expansion altogether.
 */
export function mayReferToStored(body: Record<string, unknown>): boolean {
  if (typeof body.previous_response_id === 'string') return true;
  const input = body.input;
  if (!Array.isArray(input)) return false;
  for (const item of input) {
    const ref = referencedId(item);
    if (ref !== undefined && parseIssuedItemId(ref)) return true;
  }
  return false;
}

/** The id an `item_reference` input item names (its `type` may be omitted: `{id}` alone). */
function referencedId(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const o = item as Record<string, unknown>;
  if (typeof o.id !== 'string') return undefined;
  if (o.type === 'item_reference') return o.id;
  return o.type === undefined && Object.keys(o).length === 1 ? o.id : undefined;
}

function outputOf(doc: Extract<StoredResponse, { held: 'gateway' }>): unknown[] {
  const output = doc.response.output;
  return Array.isArray(output) ? output : [];
}
