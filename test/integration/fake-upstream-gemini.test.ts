/**
 * The fake upstream's Gemini API, driven directly over HTTP (no gateway): the same Content replies as
 * the other formats (text streamed in pieces, thoughts, function calls with their signature, structured
 * output, finish, usage, a blocked prompt, errors with RetryInfo, in-stream errors, cuts), the default
 * strict answer, token counting, the model list, and the refusals of the real API.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, SCRIPTED, startFakeUpstream } from '../helpers/fake-upstream.js';
import { geminiSignature } from '../helpers/gemini-wire.js';

const KEY = 'AIza-fake-upstream-gemini-0001';
const FLASH = '/v1beta/models/gemini-2.5-flash';
let up: FakeUpstream;

beforeAll(async () => {
  up = await startFakeUpstream({ geminiKey: KEY });
});
afterEach(() => up.reset());
afterAll(() => up.close());

async function post(path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': KEY }) {
  const res = await fetch(`${up.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
}
const generate = (body: unknown, model = FLASH) => post(`${model}:generateContent`, body);
const stream = (body: unknown, model = FLASH) => post(`${model}:streamGenerateContent?alt=sse`, body);
/** The chunks of a Gemini stream (each `data:` line, parsed). */
const chunks = (text: string) =>
  text
    .split('\r\n\r\n')
    .filter(Boolean)
    .map((e) => JSON.parse(e.replace(/^data: /, '')));

const user = (text: string) => ({ role: 'user', parts: [{ text }] });
const WEATHER = {
  functionDeclarations: [
    {
      name: 'get_weather',
      parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
    },
  ],
};

describe('answers', () => {
  it('default: echo of the last user text, usage never zero, the call recorded', async () => {
    const r = await generate({ contents: [user('hello there')] });
    expect(r.status).toBe(200);
    const prompt = Math.ceil(JSON.stringify({ contents: [user('hello there')] }).length / 4);
    expect(r.body).toEqual({
      candidates: [
        { content: { parts: [{ text: 'echo: hello there' }], role: 'model' }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: { promptTokenCount: prompt, candidatesTokenCount: 3, totalTokenCount: prompt + 3 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'gemini-fake1',
    });
    expect(up.received.map((c) => [c.format, c.endpoint, c.path, c.status])).toEqual([
      ['gemini', 'chat', `${FLASH}:generateContent`, 200],
    ]);
    expect(up.on(`${FLASH}:generateContent`)).toHaveLength(1);
  });

  it('stream: one chunk per piece, then the finish reason and the usage set for Gemini', async () => {
    up.usage.gemini = { prompt: 20, cached: 5, candidates: 3, thoughts: 0 };
    up.setHandler({ text: ['One, ', 'two, ', 'three.'] });
    const r = await stream({ contents: [user('count')] });
    expect(r.headers.get('content-type')).toContain('text/event-stream');
    const all = chunks(r.text);
    expect(all.map((c) => c.candidates[0].content.parts[0].text)).toEqual(['One, ', 'two, ', 'three.', '']);
    expect(all.map((c) => c.candidates[0].finishReason)).toEqual([undefined, undefined, undefined, 'STOP']);
    expect(all[3].usageMetadata).toEqual({
      promptTokenCount: 20,
      candidatesTokenCount: 3,
      totalTokenCount: 23,
      cachedContentTokenCount: 5,
    });
  });

  it('thinking: thought parts only when includeThoughts asks; the first call signed on a thinking model', async () => {
    const reply = { thinking: 'Let me see.', toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }] };
    up.setHandler(reply);
    const tools = [WEATHER];
    const asked = await generate({
      contents: [user('Weather?')],
      tools,
      generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 100 } },
    });
    const parts = asked.body.candidates[0].content.parts;
    expect(parts).toEqual([
      { text: 'Let me see.', thought: true },
      {
        functionCall: { name: 'get_weather', args: { city: 'Paris' } },
        thoughtSignature: geminiSignature('gemini-fake1', 'get_weather'),
      },
    ]);
    expect(asked.body.usageMetadata).toMatchObject({ candidatesTokenCount: 10, thoughtsTokenCount: 3 });
    const hidden = await generate({ contents: [user('Weather?')], tools });
    expect(hidden.body.candidates[0].content.parts.map((p: any) => Object.keys(p))).toEqual([
      ['functionCall', 'thoughtSignature'],
    ]);
    const older = await generate({ contents: [user('Weather?')], tools }, '/v1beta/models/gemini-2.0-flash');
    expect(older.body.candidates[0].content.parts).toEqual([
      { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
    ]);
  });

  it('a call sent back: with its signature taken, without it (or another) refused on a thinking model', async () => {
    const first = await generate({
      contents: [user('Weather?')],
      tools: [WEATHER],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
    });
    const call = first.body.candidates[0].content.parts[0];
    expect(call.functionCall).toEqual({ name: 'get_weather', args: { city: 'sample' } });
    const turn = (part: unknown) => ({
      contents: [
        user('Weather?'),
        { role: 'model', parts: [part] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: '18C' } } }] },
      ],
      tools: [WEATHER],
    });
    const ok = await generate(turn(call));
    expect(ok.body.candidates[0].content.parts).toEqual([{ text: 'echo: Weather?' }]);
    const missing = await generate(turn({ functionCall: call.functionCall }));
    expect([missing.status, missing.body.error.status, missing.body.error.message]).toEqual([
      400,
      'INVALID_ARGUMENT',
      'Function call is missing a thought_signature in functionCall parts. Function call `get_weather`, position 2.',
    ]);
    const forged = await generate(turn({ ...call, thoughtSignature: 'Zm9yZ2Vk' }));
    expect(forged.body.error.message).toBe('Corrupted thought signature (function call `get_weather`).');
  });

  it('structured output: JSON text sampled from responseJsonSchema, or the reply json', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' }, n: { type: 'integer' } } };
    const config = { responseMimeType: 'application/json', responseJsonSchema: schema };
    const sampled = await generate({ contents: [user('a city')], generationConfig: config });
    expect(JSON.parse(sampled.body.candidates[0].content.parts[0].text)).toEqual({ city: 'sample', n: 1 });
    up.setHandler({ json: { city: 'Paris', n: 2 } });
    const given = await generate({ contents: [user('a city')], generationConfig: config });
    expect(given.body.candidates[0].content.parts).toEqual([{ text: '{"city":"Paris","n":2}' }]);
  });

  it("finish 'length' is MAX_TOKENS; a blocked prompt has promptFeedback and no candidate", async () => {
    up.script({ text: 'cut short', finish: 'length' }, { blocked: 'SAFETY' }, { blocked: 'PROHIBITED_CONTENT' });
    const cut = await generate({ contents: [user('x')] });
    expect(cut.body.candidates[0].finishReason).toBe('MAX_TOKENS');
    const blocked = await generate({ contents: [user('x')] });
    expect(blocked.body.candidates).toBeUndefined();
    expect(blocked.body.promptFeedback).toEqual({ blockReason: 'SAFETY' });
    const streamed = chunks((await stream({ contents: [user('x')] })).text);
    expect(streamed.map((c) => c.promptFeedback)).toEqual([{ blockReason: 'PROHIBITED_CONTENT' }]);
  });
});

describe('errors and cuts', () => {
  it("an error reply in Google's shape; 429's retry hint as RetryInfo, not a header", async () => {
    up.script(
      { kind: 'error', status: 429, message: 'Resource has been exhausted.', headers: { 'retry-after': '7' } },
      { kind: 'error', status: 503 },
    );
    const limited = await generate({ contents: [user('x')] });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeNull();
    expect(limited.body).toEqual({
      error: {
        code: 429,
        message: 'Resource has been exhausted.',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }],
      },
    });
    const down = await generate({ contents: [user('x')] });
    expect(down.body).toEqual({ error: { code: 503, message: 'scripted 503', status: 'UNAVAILABLE' } });
  });

  it('inStream: the chunks before it, then an error chunk; drop mid-stream; hang answers nothing', async () => {
    up.script(
      { kind: 'error', inStream: true, after: 1, text: 'Hel lo', message: 'overloaded', type: 'UNAVAILABLE' },
      { kind: 'drop', after: 'body', text: 'a b' },
    );
    const failed = chunks((await stream({ contents: [user('x')] })).text);
    expect(failed.at(-1)).toEqual({ error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } });
    expect(failed.slice(0, -1).map((c) => c.candidates[0].content.parts[0].text)).toEqual(['Hel ']);
    const res = await fetch(`${up.url}${FLASH}:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [user('x')] }),
    });
    const text = await res.text().catch((e: unknown) => `cut: ${String(e)}`);
    expect(text.includes('finishReason')).toBe(false);
    up.setHandler({ kind: 'hang' });
    const abort = AbortSignal.timeout(200);
    const hung = await fetch(`${up.url}${FLASH}:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY },
      body: JSON.stringify({ contents: [user('x')] }),
      signal: abort,
    }).catch((e: Error) => e.name);
    expect(hung).toBe('TimeoutError');
  });

  it('SCRIPTED: fail 429, weather calls, tool results and `cut` on the Gemini wire', async () => {
    const scripted = await startFakeUpstream({ ...SCRIPTED, geminiKey: KEY });
    const at = (path: string, body: unknown) =>
      fetch(`${scripted.url}${path}`, {
        method: 'POST',
        headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const limited = await at(`${FLASH}:generateContent`, { contents: [user('please fail 429')] });
    expect((await limited.json()).error.details[0].retryDelay).toBe('7s');
    const calls = await (await at(`${FLASH}:generateContent`, { contents: [user('weather')] })).json();
    expect(calls.candidates[0].content.parts[0].functionCall).toEqual({ name: 'get_weather', args: { city: 'Paris' } });
    const cut = chunks(await (await at(`${FLASH}:streamGenerateContent?alt=sse`, { contents: [user('cut')] })).text());
    expect(cut.at(-1).error.status).toBe('INTERNAL');
    const count = await (await at(`${FLASH}:countTokens`, { contents: [user('a'), user('b')] })).json();
    expect(count).toEqual({ totalTokens: 1002 });
    await scripted.close();
  });
});

describe('other routes and refusals', () => {
  it('countTokens: contents or a generateContentRequest naming the model; totalTokens', async () => {
    const body = { generateContentRequest: { model: 'models/gemini-2.5-flash', contents: [user('count me')] } };
    const r = await post(`${FLASH}:countTokens`, body);
    expect(r.body).toEqual({ totalTokens: Math.ceil(JSON.stringify(body).length / 4) });
    expect(up.last()?.endpoint).toBe('count_tokens');
    const wrong = await post(`${FLASH}:countTokens`, { generateContentRequest: { contents: [user('x')] } });
    expect([wrong.status, wrong.body.error.message]).toEqual([
      400,
      'generateContentRequest.model must be models/gemini-2.5-flash',
    ]);
  });

  it('GET /v1beta/models lists models; the key is required and must be the one given', async () => {
    const list = await fetch(`${up.url}/v1beta/models`, { headers: { 'x-goog-api-key': KEY } });
    expect((await list.json()).models.map((m: { name: string }) => m.name)).toEqual([
      'models/gemini-2.5-flash',
      'models/gemini-2.0-flash',
    ]);
    expect(up.last()?.endpoint).toBe('models');
    const none = await post(`${FLASH}:generateContent`, { contents: [user('x')] }, {});
    expect([none.status, none.body.error.status]).toEqual([403, 'PERMISSION_DENIED']);
    const other = await post(`${FLASH}:generateContent`, { contents: [user('x')] }, { 'x-goog-api-key': 'AIza-no' });
    expect([other.status, other.body.error.details[0].reason]).toEqual([400, 'API_KEY_INVALID']);
  });

  it('refuses unknown fields, an unasked function response, thinking on 2.0, a stream without alt=sse', async () => {
    const unknown = await generate({ contents: [user('x')], n: 2 });
    expect(unknown.body.error.message).toBe(
      `Invalid JSON payload received. Unknown name "n" at '': Cannot find field.`,
    );
    const orphan = await generate({
      contents: [user('x'), { role: 'user', parts: [{ functionResponse: { name: 'f', response: { output: 'x' } } }] }],
    });
    expect(orphan.status).toBe(400);
    const thinking = await generate(
      { contents: [user('x')], generationConfig: { thinkingConfig: {} } },
      '/v1beta/models/gemini-2.0-flash',
    );
    expect(thinking.body.error.message).toBe('Thinking is not supported for this model.');
    const noAlt = await post(`${FLASH}:streamGenerateContent`, { contents: [user('x')] });
    expect(noAlt.status).toBe(400);
    const missing = await post('/v1beta/models/gemini-2.5-flash:embed', {});
    expect([missing.status, missing.body.error.status]).toEqual([404, 'NOT_FOUND']);
    expect(up.rejected).toHaveLength(5);
  });
});
