/**
 * The fake upstream's OpenAI Responses API, driven directly (no gateway) by the official `openai` SDK:
 * answers from Content (text, reasoning, function and custom tool calls, structured output, usage),
 * streams in the documented order, the refusals of the real API, the state it keeps (store,
 * previous_response_id, item references, reasoning sent back, retrieve / delete / input_items,
 * input_tokens) and the reply options. Every stream the SDK receives goes through responsesOrderViolations.
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, SCRIPTED, startFakeUpstream } from '../helpers/fake-upstream.js';
import { responsesOrderViolations, sseMessages } from '../helpers/responses-order.js';

let up: FakeUpstream;
let client: OpenAI;
/** The raw text of every event stream the SDK received. */
const streams: string[] = [];

/** A fetch that keeps a copy of each event-stream body before the SDK reads it. */
const keepStreams: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return res;
  const text = await res.text();
  streams.push(text);
  return new Response(text, { status: res.status, headers: res.headers });
};

beforeAll(async () => {
  up = await startFakeUpstream();
  client = new OpenAI({ apiKey: 'sk-test', baseURL: `${up.url}/v1`, maxRetries: 0, fetch: keepStreams });
});
afterEach(() => {
  for (const s of streams.splice(0)) expect(responsesOrderViolations(sseMessages(s))).toEqual([]);
  up.reset();
});
afterAll(() => up.close());

const json = { authorization: 'Bearer sk-test', 'content-type': 'application/json' };
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = json) {
  const res = await fetch(`${up.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
}
const post = (body: unknown) => call('POST', '/v1/responses', body);

const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};
const PATCH = { type: 'custom' as const, name: 'apply_patch' };

describe('answers', () => {
  it('echoes the last user text, with the usage set for OpenAI, and records the call', async () => {
    up.usage.openai = { prompt: 30, cached: 10, completion: 7 };
    const r = await client.responses.create({ model: 'gpt-4o', input: 'hello there', instructions: 'be brief' });
    expect(r.status).toBe('completed');
    expect(r.output_text).toBe('echo: hello there');
    expect(r.output).toEqual([
      {
        id: 'msg_fake1',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'echo: hello there' }],
      },
    ]);
    expect(r.usage).toEqual({
      input_tokens: 30,
      input_tokens_details: { cached_tokens: 10, cache_write_tokens: 0 },
      output_tokens: 7,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 37,
    });
    expect(r).toMatchObject({ id: 'resp_fake1', object: 'response', model: 'gpt-4o', instructions: 'be brief' });
    expect(r).toMatchObject({ store: true, previous_response_id: null, tool_choice: 'auto', tools: [] });
    expect(up.calls.map((c) => [c.method, c.path, c.format, c.endpoint, c.status])).toEqual([
      ['POST', '/v1/responses', 'responses', 'responses', 200],
    ]);
    expect(up.last()!.headers['x-request-id']).toBeUndefined();
  });

  it('thinking: a reasoning item, summary and encrypted_content only when asked, reasoning tokens', async () => {
    up.setHandler({ thinking: 'weigh it', text: 'the answer' });
    const asked = await client.responses.create({
      model: 'gpt-5',
      input: 'q',
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
    });
    expect(asked.output[0]).toEqual({
      id: 'rs_fake1',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'weigh it' }],
      encrypted_content: expect.any(String),
    });
    expect(asked.output[1]).toMatchObject({ type: 'message', content: [{ text: 'the answer' }] });
    expect(asked.usage?.output_tokens_details).toEqual({ reasoning_tokens: 2 });
    expect(asked.usage?.output_tokens).toBe(4);
    const plain = await client.responses.create({ model: 'gpt-5', input: 'q' });
    expect(plain.output[0]).toEqual({ id: 'rs_fake2', type: 'reasoning', summary: [] });
  });

  it('tool calls: function_call items, custom_tool_call items for custom tools', async () => {
    up.setHandler({
      toolCalls: [
        { name: 'get_weather', args: { city: 'Paris' } },
        { name: 'apply_patch', args: { input: '*** Begin Patch' } },
      ],
    });
    const r = await client.responses.create({ model: 'gpt-4o', input: 'go', tools: [WEATHER, PATCH] });
    expect(r.output).toEqual([
      {
        id: 'fc_fake1_0',
        type: 'function_call',
        status: 'completed',
        arguments: '{"city":"Paris"}',
        call_id: 'call_fake1_0',
        name: 'get_weather',
      },
      {
        id: 'ctc_fake1_1',
        type: 'custom_tool_call',
        call_id: 'call_fake1_1',
        name: 'apply_patch',
        input: '*** Begin Patch',
      },
    ]);
  });

  it('strict defaults: a forced tool called with sampled arguments, json_schema gets sampled JSON', async () => {
    const forced = await client.responses.create({
      model: 'gpt-4o',
      input: 'go',
      tools: [WEATHER, PATCH],
      tool_choice: { type: 'function', name: 'get_weather' },
    });
    expect(forced.output).toMatchObject([
      { type: 'function_call', name: 'get_weather', arguments: '{"city":"sample"}' },
    ]);
    const custom = await client.responses.create({
      model: 'gpt-4o',
      input: 'go',
      tools: [PATCH],
      tool_choice: 'required',
    });
    expect(custom.output).toMatchObject([{ type: 'custom_tool_call', name: 'apply_patch', input: 'sample' }]);
    const format = {
      type: 'json_schema' as const,
      name: 'out',
      schema: { type: 'object', properties: { n: { type: 'integer' } } },
    };
    const structured = await client.responses.create({ model: 'gpt-4o', input: 'go', text: { format } });
    expect(structured.output_text).toBe('{"n":1}');
  });

  it("finish 'length': an incomplete response, its message incomplete", async () => {
    up.setHandler({ text: 'one two three', finish: 'length' });
    const r = await client.responses.create({ model: 'gpt-4o', input: 'go', max_output_tokens: 16 });
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(r.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
    expect(r.max_output_tokens).toBe(16);
  });
});

describe('streams', () => {
  it('create({stream: true}): the documented events, numbered, deltas adding up', async () => {
    const stream = await client.responses.create({ model: 'gpt-4o', input: 'hi there', stream: true });
    const types: string[] = [];
    let text = '';
    for await (const e of stream) {
      expect(e.sequence_number).toBe(types.length);
      types.push(e.type);
      if (e.type === 'response.output_text.delta') text += e.delta;
    }
    expect(text).toBe('echo: hi there');
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(3).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(streams).toHaveLength(1);
  });

  it('responses.stream(): reasoning, text, function and custom calls accumulate into the final response', async () => {
    up.setHandler({
      thinking: 'first think',
      text: 'calling',
      toolCalls: [
        { name: 'get_weather', args: { city: 'Paris' } },
        { name: 'apply_patch', args: '*** Begin Patch\n*** End Patch' },
      ],
    });
    const stream = client.responses.stream({
      model: 'o4-mini',
      input: 'go',
      tools: [WEATHER, PATCH],
      reasoning: { summary: 'detailed' },
    });
    let args = '';
    stream.on('response.function_call_arguments.delta', (e) => (args += e.delta));
    const final = await stream.finalResponse();
    expect(args).toBe('{"city":"Paris"}');
    expect(final.output.map((o) => o.type)).toEqual(['reasoning', 'message', 'function_call', 'custom_tool_call']);
    expect(final.output[3]).toMatchObject({ input: '*** Begin Patch\n*** End Patch' });
    expect(final.output_text).toBe('calling');
    const completed = JSON.parse(String(sseMessages(streams[0]!).at(-1)!.data)).response;
    expect((await call('GET', `/v1/responses/${final.id}`)).body).toEqual(completed);
  });

  it('an incomplete stream ends with response.incomplete', async () => {
    up.setHandler({ text: 'one two', finish: 'length' });
    const stream = await client.responses.create({ model: 'gpt-4o', input: 'go', stream: true });
    let last = '';
    for await (const e of stream) last = e.type;
    expect(last).toBe('response.incomplete');
  });

  it('an in-stream error is an `error` event numbered after what came before; the SDK throws it', async () => {
    up.script({ kind: 'error', inStream: true, after: 5, message: 'boom', type: 'server_error', text: 'a b c' });
    const stream = await client.responses.create({ model: 'gpt-4o', input: 'go', stream: true });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const e of stream) seen.push(e.type);
      })(),
    ).rejects.toThrow('boom');
    expect(seen).toHaveLength(5);
    const events = sseMessages(streams[0]!);
    expect(JSON.parse(String(events.at(-1)!.data))).toEqual({
      type: 'error',
      sequence_number: 5,
      error: { type: 'server_error', code: 'server_error', message: 'boom', param: null },
    });
    expect(up.last()!.error).toBe('boom');
  });

  it("drop mid-stream, after 'body': everything but the terminal event, then the socket is cut", async () => {
    up.script({ kind: 'drop', after: 'body', text: 'a b' });
    const res = await fetch(`${up.url}/v1/responses`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ model: 'gpt-4o', input: 'go', stream: true }),
    });
    const text = await res.text().catch(() => up.last()!.responseText);
    expect(responsesOrderViolations(sseMessages(text))).toEqual([
      'stream ended without a terminal event (response.completed, response.incomplete, response.failed, error)',
    ]);
    expect(sseMessages(text).at(-1)!.event).toBe('response.output_item.done');
    expect(up.responses.get('resp_fake1')).toBeUndefined();
  });

  it('hang after n events: the stream stays open until the caller leaves', async () => {
    up.script({ kind: 'hang', after: 2 });
    const ac = new AbortController();
    const res = await fetch(`${up.url}/v1/responses`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ model: 'gpt-4o', input: 'go', stream: true }),
      signal: ac.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    for (let i = 0; i < 20 && !text.includes('response.in_progress'); i++)
      text += new TextDecoder().decode((await reader.read()).value);
    expect(sseMessages(text).map((m) => m.event)).toEqual(['response.created', 'response.in_progress']);
    expect(up.open).toBe(1);
    ac.abort();
    for (let i = 0; i < 100 && up.open > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(up.open).toBe(0);
  });

  it('held calls wait for the release; scripted statuses come first, then the handler', async () => {
    const release = up.hold();
    const pending = client.responses.create({ model: 'gpt-4o', input: 'later' });
    await up.waitForCalls(1);
    expect(up.open).toBe(1);
    release();
    expect((await pending).output_text).toBe('echo: later');
    up.script(429);
    const err = await client.responses.create({ model: 'gpt-4o', input: 'x' }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.error).toEqual({ message: 'scripted 429', type: 'requests', param: null, code: 'rate_limit_exceeded' });
    expect((await client.responses.create({ model: 'gpt-4o', input: 'x' })).output_text).toBe('echo: x');
  });

  it('SCRIPTED plays Responses conversations: a tool loop through previous_response_id, and a cut stream', async () => {
    const scripted = await startFakeUpstream(SCRIPTED);
    try {
      const c = new OpenAI({ apiKey: 'sk-test', baseURL: `${scripted.url}/v1`, maxRetries: 0, fetch: keepStreams });
      const first = await c.responses.create({ model: 'gpt-4o', input: 'weather please', tools: [WEATHER] });
      expect(first.output).toMatchObject([
        { type: 'function_call', name: 'get_weather', arguments: '{"city":"Paris"}' },
      ]);
      const callId = (first.output[0] as OpenAI.Responses.ResponseFunctionToolCall).call_id;
      const second = await c.responses.create({
        model: 'gpt-4o',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: callId, output: '18C' }],
        tools: [WEATHER],
      });
      expect(second.output_text).toBe('tool said: 18C');
      const sys = await c.responses.create({ model: 'gpt-4o', instructions: 'be brief', input: 'hi' });
      expect(sys.output_text).toBe('[sys:be brief] echo: hi');
      const cut = await c.responses.create({ model: 'gpt-4o', input: 'cut here', stream: true });
      await expect(
        (async () => {
          for await (const _ of cut);
        })(),
      ).rejects.toThrow('boom');
      expect(sseMessages(streams.at(-1)!).map((m) => m.event)).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'error',
      ]);
    } finally {
      await scripted.close();
    }
  });
});

describe('state', () => {
  it('retrieve, input_items (paged, both orders), delete, then 404 in the OpenAI shape', async () => {
    const r = await client.responses.create({
      model: 'gpt-4o',
      input: [
        { role: 'developer', content: 'be brief' },
        { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      ],
    });
    expect(await client.responses.retrieve(r.id)).toEqual(r);
    const asc: unknown[] = [];
    for await (const item of client.responses.inputItems.list(r.id, { order: 'asc', limit: 1 })) asc.push(item);
    expect(asc).toEqual([
      {
        id: 'msg_in_fake1_0',
        type: 'message',
        role: 'developer',
        content: [{ type: 'input_text', text: 'be brief' }],
      },
      { id: 'msg_in_fake1_1', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
    ]);
    const page = await call('GET', `/v1/responses/${r.id}/input_items`, undefined, json);
    expect(page.body).toMatchObject({ object: 'list', first_id: 'msg_in_fake1_1', last_id: 'msg_in_fake1_0' });
    expect(page.body.has_more).toBe(false);

    expect((await call('DELETE', `/v1/responses/${r.id}`)).body).toEqual({
      id: r.id,
      object: 'response.deleted',
      deleted: true,
    });
    const gone = await client.responses.retrieve(r.id).catch((e) => e);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    expect(gone.error).toEqual({
      message: `Response with id '${r.id}' not found.`,
      type: 'invalid_request_error',
      param: null,
      code: null,
    });
    expect((await call('GET', `/v1/responses/${r.id}/input_items`)).status).toBe(404);
    expect((await call('DELETE', `/v1/responses/${r.id}`)).status).toBe(404);
    expect(up.calls.map((c) => c.endpoint)).toEqual([
      'responses',
      'retrieve',
      'input_items',
      'input_items',
      'input_items',
      'delete',
      'retrieve',
      'input_items',
      'delete',
    ]);
  });

  it('store: false keeps nothing', async () => {
    const r = await client.responses.create({ model: 'gpt-4o', input: 'x', store: false });
    expect(JSON.parse(up.last()!.responseText).store).toBe(false);
    expect((await call('GET', `/v1/responses/${r.id}`)).status).toBe(404);
    const next = await post({ model: 'gpt-4o', input: 'y', previous_response_id: r.id });
    expect(next.status).toBe(400);
    expect(next.body.error.code).toBe('previous_response_not_found');
  });

  it('previous_response_id: a tool loop continues; unknown ids, unanswered calls, stray outputs refused', async () => {
    up.script({ toolCalls: [{ name: 'get_weather', args: { city: 'Rome' }, id: 'call_w' }] });
    const first = await client.responses.create({ model: 'gpt-4o', input: 'weather?', tools: [WEATHER] });
    const output = { type: 'function_call_output' as const, call_id: 'call_w', output: '18C' };
    const second = await client.responses.create({ model: 'gpt-4o', previous_response_id: first.id, input: [output] });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output_text).toBe('echo: tool result: 18C');

    expect((await post({ model: 'gpt-4o', input: 'x', previous_response_id: 'resp_nope' })).body).toEqual({
      error: {
        message: "Previous response with id 'resp_nope' not found.",
        type: 'invalid_request_error',
        param: 'previous_response_id',
        code: 'previous_response_not_found',
      },
    });
    const unanswered = await post({ model: 'gpt-4o', input: 'and?', previous_response_id: first.id });
    expect(unanswered.status).toBe(400);
    expect(unanswered.body.error.message).toBe('No tool output found for function call call_w.');
    const stray = await post({ model: 'gpt-4o', input: [{ ...output, call_id: 'call_x' }] });
    expect(stray.body.error).toEqual({
      message: 'No tool call found for function call output with call_id call_x.',
      type: 'invalid_request_error',
      param: 'input',
      code: null,
    });
    // In one input: the call, then its output.
    const call_ = { type: 'function_call', call_id: 'call_y', name: 'get_weather', arguments: '{}' };
    expect((await post({ model: 'gpt-4o', input: [call_, { ...output, call_id: 'call_y' }] })).status).toBe(200);
    expect((await post({ model: 'gpt-4o', input: [{ ...output, call_id: 'call_y' }, call_] })).status).toBe(400);
  });

  it('item_reference resolves stored items; an unknown id is a 404', async () => {
    const first = await client.responses.create({ model: 'gpt-4o', input: 'hi' });
    const ref = await post({
      model: 'gpt-4o',
      input: [
        { type: 'item_reference', id: first.output[0]!.id },
        { role: 'user', content: 'again' },
      ],
    });
    expect(ref.status).toBe(200);
    expect(
      (await post({ model: 'gpt-4o', input: [{ id: 'msg_in_fake1_0' }, { role: 'user', content: 'x' }] })).status,
    ).toBe(200);
    const unknown = await post({ model: 'gpt-4o', input: [{ type: 'item_reference', id: 'msg_nope' }] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe("Item with id 'msg_nope' not found.");
  });

  it('reasoning sent back: by stored id, or with the encrypted_content issued; nothing else', async () => {
    up.setHandler({ thinking: 'hmm', text: 'ok' });
    const stored = await client.responses.create({ model: 'gpt-5', input: 'q' });
    const kept = stored.output[0] as OpenAI.Responses.ResponseReasoningItem;
    const user = { role: 'user', content: 'next' };
    expect((await post({ model: 'gpt-5', input: [kept, user] })).status).toBe(200);

    const stateless = await client.responses.create({
      model: 'gpt-5',
      input: 'q',
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    const sealed = stateless.output[0] as OpenAI.Responses.ResponseReasoningItem;
    const { id: _id, ...withoutId } = sealed;
    expect((await post({ model: 'gpt-5', store: false, input: [withoutId, user] })).status).toBe(200);
    const tampered = await post({
      model: 'gpt-5',
      input: [{ ...sealed, encrypted_content: `x${sealed.encrypted_content}` }, user],
    });
    expect(tampered.status).toBe(400);
    expect(tampered.body.error.code).toBe('invalid_encrypted_content');
    const lost = await post({ model: 'gpt-5', input: [{ ...sealed, encrypted_content: null }, user] });
    expect(lost.status).toBe(404);
    expect(lost.body.error.message).toBe(
      `Item with id '${sealed.id}' not found. Items are not persisted when \`store\` is set to false. Try again ` +
        'with `store` set to true, or remove this item from your input.',
    );
  });

  it('input_tokens counts a Responses body (the count the fake is given, else characters / 4)', async () => {
    const r = await client.responses.inputTokens.count({ model: 'gpt-4o', input: 'count me' });
    expect(r).toEqual({ object: 'response.input_tokens', input_tokens: Math.ceil(up.last()!.rawBody.length / 4) });
    expect(up.last()!.endpoint).toBe('count_tokens');
    const scripted = await startFakeUpstream(SCRIPTED);
    try {
      const res = await fetch(`${scripted.url}/v1/responses/input_tokens`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ model: 'gpt-4o', input: [{ role: 'user', content: 'a' }] }),
      });
      expect(await res.json()).toEqual({ object: 'response.input_tokens', input_tokens: 1001 });
    } finally {
      await scripted.close();
    }
  });
});

describe('refusals, as the real API words them', () => {
  const base = { model: 'gpt-4o', input: 'x' };
  const refusals: Array<
    [string, Record<string, unknown>, { param: string | null; code: string | null; message?: string }]
  > = [
    [
      'unknown parameter',
      { ...base, foo: 1 },
      { param: 'foo', code: 'unknown_parameter', message: "Unknown parameter: 'foo'." },
    ],
    ['no model', { input: 'x' }, { param: 'model', code: 'missing_required_parameter' }],
    [
      'max_output_tokens below 16',
      { ...base, max_output_tokens: 10 },
      { param: 'max_output_tokens', code: 'integer_below_min_value' },
    ],
    ['temperature above 2', { ...base, temperature: 2.5 }, { param: 'temperature', code: 'decimal_above_max_value' }],
    [
      'temperature on a reasoning model',
      { ...base, model: 'gpt-5', temperature: 0.2 },
      { param: 'temperature', code: 'unsupported_parameter' },
    ],
    [
      'reasoning on a model that does not reason',
      { ...base, reasoning: { effort: 'low' } },
      { param: 'reasoning.effort', code: 'unsupported_parameter' },
    ],
    [
      'an unknown effort',
      { ...base, model: 'o3', reasoning: { effort: 'huge' } },
      { param: 'reasoning.effort', code: 'invalid_value' },
    ],
    [
      'encrypted content on a model that does not reason',
      { ...base, include: ['reasoning.encrypted_content'] },
      { param: 'include', code: null },
    ],
    [
      'a function tool without parameters',
      { ...base, tools: [{ type: 'function', name: 'f' }] },
      { param: 'tools[0].parameters', code: 'missing_required_parameter' },
    ],
    [
      'a chat-format tool',
      { ...base, tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] },
      { param: 'tools[0].name', code: 'missing_required_parameter' },
    ],
    [
      'a custom tool without name',
      { ...base, tools: [{ type: 'custom' }] },
      { param: 'tools[0].name', code: 'missing_required_parameter' },
    ],
    [
      'an unknown tool type',
      { ...base, tools: [{ type: 'calculator' }] },
      { param: 'tools[0].type', code: 'invalid_value' },
    ],
    [
      'tool_choice naming an absent tool',
      { ...base, tools: [WEATHER], tool_choice: { type: 'function', name: 'nope' } },
      { param: 'tool_choice', code: null },
    ],
    [
      "tool_choice 'any'",
      { ...base, tools: [WEATHER], tool_choice: 'any' },
      { param: 'tool_choice', code: 'invalid_value' },
    ],
    [
      'json_schema without a name',
      { ...base, text: { format: { type: 'json_schema', schema: {} } } },
      { param: 'text.format.name', code: 'missing_required_parameter' },
    ],
    [
      "json_object without 'json' in the input",
      { ...base, text: { format: { type: 'json_object' } } },
      { param: 'input', code: null },
    ],
    ['an input that is a number', { ...base, input: 3 }, { param: 'input', code: 'invalid_type' }],
    [
      'an unknown item type',
      { ...base, input: [{ type: 'note', text: 'x' }] },
      { param: 'input[0].type', code: 'invalid_value' },
    ],
    [
      'a function_call without call_id',
      { ...base, input: [{ type: 'function_call', name: 'f', arguments: '{}' }] },
      { param: 'input[0].call_id', code: 'missing_required_parameter' },
    ],
    [
      'input_text in an assistant message',
      { ...base, input: [{ role: 'assistant', content: [{ type: 'input_text', text: 'x' }] }] },
      { param: 'input[0].content[0].type', code: 'invalid_value' },
    ],
    [
      'a reasoning item without summary',
      { ...base, model: 'gpt-5', input: [{ type: 'reasoning', id: 'rs_1' }] },
      { param: 'input[0].summary', code: 'missing_required_parameter' },
    ],
    [
      'stream_options without stream',
      { ...base, stream_options: { include_obfuscation: false } },
      { param: 'stream_options', code: null },
    ],
    ['background mode (not played by the fake)', { ...base, background: true }, { param: 'background', code: null }],
  ];
  it.each(refusals)('400: %s', async (_name, body, expected) => {
    const r = await post(body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param: expected.param, code: expected.code });
    if (expected.message) expect(r.body.error.message).toBe(expected.message);
    expect(up.last()!.status).toBe(400);
    expect(up.rejected).toHaveLength(1);
  });

  it('no key: 401; bad JSON: 400; unknown paths: 404; input_tokens takes its own parameters', async () => {
    expect((await call('POST', '/v1/responses', base, { 'content-type': 'application/json' })).status).toBe(401);
    expect((await call('POST', '/v1/responses', '{"model":', json)).status).toBe(400);
    expect((await call('POST', '/v1/responses/resp_1/cancel', {})).status).toBe(404);
    const count = await call('POST', '/v1/responses/input_tokens', { ...base, stream: true });
    expect(count.body.error).toMatchObject({ param: 'stream', code: 'unknown_parameter' });
  });

  it('accept.unknownFields lets unknown top-level parameters through', async () => {
    const lenient = await startFakeUpstream({ accept: { unknownFields: true } });
    try {
      const res = await fetch(`${lenient.url}/v1/responses`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ ...base, foo: 1 }),
      });
      expect(res.status).toBe(200);
    } finally {
      await lenient.close();
    }
  });
});
