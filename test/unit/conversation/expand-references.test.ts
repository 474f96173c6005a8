import { describe, expect, it } from 'vitest';
import { expandReferences, mayReferToStored } from '../../../src/conversation/expand-references.js';
import type { StoredResponse } from '../../../src/conversation/stored-responses.js';
import { itemIdFor, responseIdFor } from '../../../src/formats/openai-responses-ids.js';

const RESP = responseIdFor('01JD0000000000000000000000');
const ISSUED_MSG = itemIdFor('message', RESP, 0);
const held: StoredResponse = {
  v: 1,
  held: 'gateway',
  owner: 'k1',
  input: [{ type: 'message', role: 'user', content: 'hi' }],
  ownFrom: 0,
  response: { output: [{ id: ISSUED_MSG, type: 'message', role: 'assistant', content: [] }] },
};

const user = { type: 'message', role: 'user', content: 'hello' };
/** Bodies that name nothing the gateway issued: mayReferToStored is false for each. */
const plain: Record<string, unknown>[] = [
  { model: 'm', input: 'hello' },
  { model: 'm', input: [user] },
  { model: 'm', input: [] },
  { model: 'm' },
  { model: 'm', input: [user, { type: 'item_reference', id: 'msg_provider_kept_this' }] },
  { model: 'm', input: [{ id: 'rs_abc' }] },
  { model: 'm', input: [{ type: 'message', id: ISSUED_MSG, role: 'assistant', content: [] }] },
  { model: 'm', input: [null, 3, 'text'] },
  { model: 'm', previous_response_id: null, input: [user] },
];
/** Bodies that do. */
const referring: Record<string, unknown>[] = [
  { model: 'm', previous_response_id: RESP, input: [user] },
  { model: 'm', previous_response_id: 'resp_someone_else', input: 'next' },
  { model: 'm', input: [user, { type: 'item_reference', id: ISSUED_MSG }] },
  { model: 'm', input: [{ id: ISSUED_MSG }] },
];

describe('mayReferToStored', () => {
  it('is false for bodies that refer to nothing the gateway issued, and expandReferences agrees', async () => {
    for (const body of plain) {
      expect(mayReferToStored(body), JSON.stringify(body)).toBe(false);
      let loads = 0;
      const out = await expandReferences(body, async () => {
        loads++;
        return held;
      });
      expect(out, JSON.stringify(body)).toBeUndefined();
      expect(loads).toBe(0);
    }
  });

  it('is true for a previous response id or a reference to an issued item', async () => {
    for (const body of referring) expect(mayReferToStored(body), JSON.stringify(body)).toBe(true);
    const out = await expandReferences(referring[3], async (id) => (id === RESP ? held : undefined));
    expect(out?.input).toEqual([held.response.output].flat());
  });
});
