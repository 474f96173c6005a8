/**
 * Stored Responses API responses, in the state store (embedded or Redis), one document per
 * response, readable only by the gateway key that created it: to any other key it does not exist.
 *
 * Two kinds. `gateway`: the request was translated, so the provider kept nothing; the document
 * holds the input items the model saw and the response object the caller got, and later turns
 * expand `previous_response_id` / `item_reference` from it. `provider`: the request passed
 * through to a Responses provider, which holds the conversation; the document only records the
 * owner and the provider, so the gateway can check who may use the id and where to send
 * GET / DELETE for it.
 */

import type { DocStore } from '../state/store.js';

export type StoredResponse =
  /** `input`: the whole conversation the model saw; from `ownFrom` on, this request's own items. */
  | { v: 1; held: 'gateway'; owner: string; input: unknown[]; ownFrom: number; response: Record<string, unknown> }
  /** `model`: the name the caller used, which the provider's copy is renamed to when read. */
  | { v: 1; held: 'provider'; owner: string; provider: string; model: string };

const key = (id: string): string => `resp:${id}`;

/** The response `id` as `owner` may see it; undefined when absent, expired or another key's. */
export async function loadResponse(store: DocStore, id: string, owner: string): Promise<StoredResponse | undefined> {
  const text = await store.getDoc(key(id));
  if (text === undefined) return undefined;
  let doc: StoredResponse;
  try {
    doc = JSON.parse(text) as StoredResponse;
  } catch {
    return undefined; // not written by this code: nobody's
  }
  return doc?.v === 1 && doc.owner === owner ? doc : undefined;
}

export function saveResponse(store: DocStore, id: string, doc: StoredResponse, ttlMs: number): Promise<void> {
  return store.putDoc(key(id), JSON.stringify(doc), ttlMs);
}

/** Deletes the response when `owner` may see it; false otherwise. */
export async function deleteResponse(store: DocStore, id: string, owner: string): Promise<boolean> {
  if (!(await loadResponse(store, id, owner))) return false;
  return store.deleteDoc(key(id));
}
