/**
 * The state the OpenAI Responses API keeps, as the fake upstream (fake-upstream.ts) plays it. A
 * response created with `store` (the default) is kept with the items it was given and the items it
 * produced, so that previous_response_id, item_reference items and reasoning ids resolve
 * (upstream-rules.ts checks them through ResponsesLookup), and GET / DELETE /v1/responses/{id} and
 * GET /v1/responses/{id}/input_items answer as the real API does. Shares no code with src/.
 * @see https://platform.openai.com/docs/api-reference/responses
 */

import type { ResponsesLookup } from './upstream-rules.js';

type Item = Record<string, any>;

interface Stored {
  response: Item;
  /** This request's own input items, each with an id (a reference replaced by the item it names). */
  input: Item[];
  /** The conversation before this response's output: the previous response's, then `input`. */
  context: Item[];
}

/** Id prefixes of the items the fake names itself, by item type. */
const ID_PREFIX: Record<string, string> = {
  message: 'msg',
  function_call: 'fc',
  function_call_output: 'fco',
  custom_tool_call: 'ctc',
  custom_tool_call_output: 'ctco',
  reasoning: 'rs',
};

export class ResponsesStore implements ResponsesLookup {
  private readonly responses = new Map<string, Stored>();
  private readonly items = new Map<string, Item>();

  conversation(responseId: string): Item[] | undefined {
    const s = this.responses.get(responseId);
    return s ? [...s.context, ...s.response.output] : undefined;
  }

  item(id: string): Item | undefined {
    return this.items.get(id);
  }

  /** The stored response object, as GET /v1/responses/{id} answers it. */
  get(responseId: string): Item | undefined {
    return this.responses.get(responseId)?.response;
  }

  /** Keeps the response the fake answered to a create request (unless `store: false`). */
  save(body: Item, response: Item): void {
    if (body.store === false) return;
    const input = this.inputItems(body.input, String(response.id));
    const before = typeof body.previous_response_id === 'string' ? this.conversation(body.previous_response_id) : [];
    this.responses.set(response.id, { response, input, context: [...(before ?? []), ...input] });
    for (const item of [...input, ...response.output]) if (typeof item.id === 'string') this.items.set(item.id, item);
  }

  /** Forgets a response and its items; false when it was not stored. */
  delete(responseId: string): boolean {
    const s = this.responses.get(responseId);
    if (!s) return false;
    for (const item of [...s.input, ...s.response.output]) this.items.delete(item.id);
    return this.responses.delete(responseId);
  }

  /** GET /v1/responses/{id}/input_items: `order` (default desc), `after` (an item id), `limit` (default 20). */
  inputItemList(responseId: string, query: URLSearchParams): Item | undefined {
    const s = this.responses.get(responseId);
    if (!s) return undefined;
    const all = query.get('order') === 'asc' ? [...s.input] : [...s.input].reverse();
    const after = query.get('after');
    const from = after === null ? 0 : all.findIndex((i) => i.id === after) + 1;
    const limit = Math.min(100, Math.max(1, Number(query.get('limit') ?? 20) || 20));
    const data = all.slice(from, from + limit);
    return {
      object: 'list',
      data,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: from + limit < all.length,
    };
  }

  clear(): void {
    this.responses.clear();
    this.items.clear();
  }

  /** A request's input as the API lists it: messages with content parts, every item with an id. */
  private inputItems(input: unknown, responseId: string): Item[] {
    const tag = responseId.replace(/^resp_/, '');
    const given: Item[] =
      typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input : [];
    return given.map((item, i) => {
      const type = item.type ?? ('role' in item ? 'message' : 'item_reference');
      if (type === 'item_reference') return this.items.get(item.id) ?? item;
      const named = { ...item, type, id: item.id ?? `${ID_PREFIX[type] ?? 'item'}_in_${tag}_${i}` };
      if (type !== 'message' || typeof item.content !== 'string') return named;
      const part = item.role === 'assistant' ? 'output_text' : 'input_text';
      return { ...named, content: [{ type: part, text: item.content }] };
    });
  }
}
