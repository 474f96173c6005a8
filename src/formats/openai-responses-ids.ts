/**
 * Ids of what the gateway issues to Responses callers when it translates: the response is
 * `resp_<ULID>` (the request's correlation id) and each output item `<prefix>_<ULID>_<index>`,
 * so an `item_reference` names its response and its place in that response's output, and a
 * stream and the stored response (encoded separately) give every item the same id.
 */

/** Item id prefixes by output item type, as OpenAI names its own. */
export const ITEM_PREFIX = {
  message: 'msg',
  function_call: 'fc',
  custom_tool_call: 'ctc',
  reasoning: 'rs',
} as const;

export type IssuedItemType = keyof typeof ITEM_PREFIX;

export function responseIdFor(correlationId: string): string {
  return `resp_${correlationId}`;
}

/** The id of output item `index` of response `responseId` (`resp_X` → `<prefix>_X_<index>`). */
export function itemIdFor(type: IssuedItemType, responseId: string, index: number): string {
  const base = responseId.startsWith('resp_') ? responseId.slice(5) : responseId;
  return `${ITEM_PREFIX[type]}_${base}_${index}`;
}

const ISSUED = /^(?:msg|fc|ctc|rs)_([0-9A-HJKMNP-TV-Z]{26})_(\d{1,4})$/;

/** The response and output index of an item id the gateway issued; undefined for any other id. */
export function parseIssuedItemId(id: string): { responseId: string; index: number } | undefined {
  const m = ISSUED.exec(id);
  return m ? { responseId: `resp_${m[1]}`, index: Number(m[2]) } : undefined;
}
