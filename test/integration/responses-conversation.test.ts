/**
 * Conversation state of POST /v1/responses when the gateway translates (an Anthropic-format
 * upstream, the mock): every answer is stored under `resp_<correlation id>` for the key that made
 * it, later turns expand `previous_response_id` and `item_reference`s from it (what the upstream
 * receives is the whole conversation), `store: false` keeps nothing, another key sees nothing,
 * and GET / DELETE / input_items serve the stored response.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeUpstream, SCRIPTED, startFakeUpstream } from '../helpers/fake-upstream.js';
import { SCRIPTED_KEY, SCRIPTED_LIMITED_KEY, scriptedGateway } from '../helpers/gateway-config.js';
import { readSse } from '../helpers/sse.js';
import { configOf, startGateway, type RunningGateway } from '../helpers/start-gateway.js';

let up: FakeUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  up = await startFakeUpstream(SCRIPTED);
  gw = await startGateway(configOf(scriptedGateway(up.url)));
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
});
beforeEach(() => up.reset());

const RESP_ID = /^resp_[0-9A-HJKMNP-TV-Z]{26}$/;

function call(path: string, init: { method?: string; body?: unknown; key?: string } = {}) {
  return fetch(`${gw.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { authorization: `Bearer ${init.key ?? SCRIPTED_KEY}`, 'content-type': 'application/json' },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

async function create(body: Record<string, unknown>, key?: string): Promise<Record<string, any>> {
  const res = await call('/v1/responses', { body, key });
  const json = await res.json();
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json;
}

/** The Anthropic messages the upstream received last, as role: text lines. */
function upstreamTurns(): string[] {
  const body = up.last('/v1/messages')!.body as { messages: Array<{ role: string; content: unknown }> };
  return body.messages.map((m) => {
    const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as any[]);
    return `${m.role}: ${parts.map((p) => (p.type === 'text' ? p.text : p.type)).join(' | ')}`;
  });
}

describe('Responses conversation state (translated)', () => {
  it('stores the answer under resp_<ULID>; previous_response_id sends the whole conversation up', async () => {
    const first = await create({ model: 'ant/m', input: 'My name is Ada.' });
    expect(first.id).toMatch(RESP_ID);
    expect(first.output[0].id).toBe(`msg_${first.id.slice(5)}_0`);
    const answer = first.output[0].content[0].text as string;

    const second = await create({ model: 'ant/m', input: 'What is my name?', previous_response_id: first.id });
    expect(second.id).toMatch(RESP_ID);
    expect(second.id).not.toBe(first.id);
    expect([first.store, second.previous_response_id]).toEqual([true, first.id]);
    expect(upstreamTurns()).toEqual(['user: My name is Ada.', `assistant: ${answer}`, 'user: What is my name?']);

    // A chain: the third turn sees all five messages.
    await create({ model: 'ant/m', input: 'And again?', previous_response_id: second.id });
    expect(upstreamTurns()).toHaveLength(5);
    expect(upstreamTurns()[4]).toBe('user: And again?');
  });

  it('item_reference items expand to the stored output items', async () => {
    const first = await create({ model: 'ant/m', input: 'Remember 42.' });
    const ref = first.output[0].id as string;
    await create({
      model: 'ant/m',
      input: [
        { role: 'user', content: 'Remember 42.' },
        { type: 'item_reference', id: ref },
        { role: 'user', content: 'Which number?' },
      ],
    });
    expect(upstreamTurns()).toEqual([
      'user: Remember 42.',
      `assistant: ${first.output[0].content[0].text}`,
      'user: Which number?',
    ]);
  });

  it('a reference the gateway does not have is a 400 naming the field, never dropped', async () => {
    const calls = up.calls.length;
    let res = await call('/v1/responses', {
      body: { model: 'ant/m', input: 'x', previous_response_id: 'resp_01JZZZZZZZZZZZZZZZZZZZZZZZ' },
    });
    let body = await res.json();
    expect(res.status).toBe(400);
    expect(body.error).toMatchObject({ param: 'previous_response_id', code: 'previous_response_not_found' });
    res = await call('/v1/responses', {
      body: {
        model: 'ant/m',
        input: [
          { role: 'user', content: 'x' },
          { type: 'item_reference', id: 'msg_01JZZZZZZZZZZZZZZZZZZZZZZZ_0' },
        ],
      },
    });
    body = await res.json();
    expect(res.status).toBe(400);
    expect(body.error.param).toBe('input[1].id');
    expect(up.calls.length).toBe(calls);
  });

  it('another key sees nothing: its references are 400, its GET and DELETE 404', async () => {
    const mine = await create({ model: 'local/echo', input: 'secret plans' });
    const res = await call('/v1/responses', {
      key: SCRIPTED_LIMITED_KEY,
      body: { model: 'local/echo', input: 'tell me', previous_response_id: mine.id },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.param).toBe('previous_response_id');
    for (const method of ['GET', 'DELETE']) {
      const r = await call(`/v1/responses/${mine.id}`, { method, key: SCRIPTED_LIMITED_KEY });
      expect(r.status).toBe(404);
      expect((await r.json()).error.message).not.toContain('secret');
    }
    expect((await call(`/v1/responses/${mine.id}`)).status).toBe(200); // still there for its owner
  });

  it('store: false keeps nothing', async () => {
    const r = await create({ model: 'local/echo', input: 'hi', store: false });
    expect(r.id).toMatch(RESP_ID);
    expect(r.store).toBe(false);
    expect((await call(`/v1/responses/${r.id}`)).status).toBe(404);
    const next = await call('/v1/responses', { body: { model: 'local/echo', input: 'x', previous_response_id: r.id } });
    expect(next.status).toBe(400);
  });

  it('GET returns the response as it was answered; input_items lists the input; DELETE removes it', async () => {
    const first = await create({ model: 'ant/m', input: 'one' });
    const second = await create({
      model: 'ant/m',
      input: [
        { role: 'user', content: 'one' },
        { type: 'item_reference', id: first.output[0].id },
        { role: 'user', content: 'two' },
      ],
    });
    const got = await (await call(`/v1/responses/${second.id}`)).json();
    expect(got).toEqual(second);
    // A continuation lists only its own input, as the API does.
    const third = await create({ model: 'ant/m', input: 'three', previous_response_id: second.id });
    const own = await (await call(`/v1/responses/${third.id}/input_items`)).json();
    expect(own.data).toHaveLength(1);
    expect(own.data[0].content).toEqual([{ type: 'input_text', text: 'three' }]);

    const items = await (await call(`/v1/responses/${second.id}/input_items?order=asc`)).json();
    expect(items.object).toBe('list');
    expect(items.data.map((i: any) => i.type ?? i.role)).toHaveLength(3);
    expect(items.data[0]).toMatchObject({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'one' }],
    });
    expect(items.data[1].id).toBe(first.output[0].id);
    expect(items.has_more).toBe(false);
    const page = await (await call(`/v1/responses/${second.id}/input_items?limit=1`)).json();
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'two' }],
    });
    expect(page.has_more).toBe(true);

    const del = await call(`/v1/responses/${second.id}`, { method: 'DELETE' });
    expect(await del.json()).toEqual({ id: second.id, object: 'response.deleted', deleted: true });
    expect((await call(`/v1/responses/${second.id}`)).status).toBe(404);
  });

  it('a stream is stored under the id its events carry, with the same item ids', async () => {
    const res = await call('/v1/responses', { body: { model: 'ant/m', input: 'stream me', stream: true } });
    expect(res.status).toBe(200);
    const events = (await readSse(res)).map((e) => JSON.parse(e.data));
    const done = events.at(-1);
    expect(done.type).toBe('response.completed');
    expect(done.response.id).toMatch(RESP_ID);
    expect(events[0].response.id).toBe(done.response.id);
    const stored = await (await call(`/v1/responses/${done.response.id}`)).json();
    expect(stored.output.map((o: any) => o.id)).toEqual(done.response.output.map((o: any) => o.id));
    expect(stored.output[0].content[0].text).toBe(done.response.output[0].content[0].text);
  });

  it('paths under /v1/responses that do not exist are a 404 in the OpenAI shape', async () => {
    for (const [method, path] of [
      ['GET', '/v1/responses/a/b/c'],
      ['POST', '/v1/responses/x/cancel'],
      ['GET', '/v1/responses/'],
    ]) {
      const r = await call(path, { method, ...(method === 'POST' ? { body: {} } : {}) });
      expect([404, 405]).toContain(r.status);
      expect((await r.json()).error).toMatchObject({ message: expect.any(String) });
    }
  });
});
