/**
 * The gemini provider kind over real HTTP: the official openai SDK (chat and responses) and the
 * Anthropic SDK reaching a Gemini model on THE fake upstream's strict Gemini API (fake-upstream.ts),
 * JSON and streams, tool round trips whose thought signatures come back on the next turn, errors
 * and token counting.
 */

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { configOf, startGateway, type RunningGateway } from '../helpers/start-gateway.js';
import {
  answerEvents,
  type FakeUpstream,
  type Reply,
  startFakeUpstream,
  type UpstreamCall,
} from '../helpers/fake-upstream.js';

const KEY = 'gemini-suite-key-0001';
const GOOGLE_KEY = 'AIza-fake-google-key-000111';
const MODEL = 'google/gemini-2.5-flash';

let up: FakeUpstream;
let gw: RunningGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  up = await startFakeUpstream({ geminiKey: GOOGLE_KEY });
  const models = {
    'gemini-2.5-flash': { context_window: 1048576, max_output_tokens: 8192 },
    'gemini-2.0-flash': { context_window: 1048576 },
  };
  gw = await startGateway(
    configOf({
      routing: { retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 } },
      providers: {
        google: { api: 'gemini', url: up.url, api_key: GOOGLE_KEY, models },
        badkey: { api: 'gemini', url: up.url, api_key: 'AIza-not-the-key', models },
        own: { api: 'gemini', url: up.url, api_key: null, byok: 'required', models },
      },
      roles: { dev: { models: ['*'] } },
      keys: [{ id: 'k', key: KEY, role: 'dev' }],
    }),
  );
  openai = new OpenAI({ apiKey: KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: KEY, baseURL: gw.url, maxRetries: 0 });
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
});
beforeEach(() => up.reset());

/** First turn: think, then call get_weather; once the result is back: answer from it. */
function weatherLoop(call: UpstreamCall): Reply {
  const contents = call.body.contents as Array<{ parts: Array<Record<string, unknown>> }>;
  const answered = contents[contents.length - 1].parts.find((p) => p.functionResponse !== undefined);
  if (answered) return { text: [`It is ${JSON.stringify(answered.functionResponse)}`] };
  return { thinking: 'The user wants weather.', toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }] };
}

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: {
    type: 'object' as const,
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
};

/** The signature the upstream issued in its first answer (JSON or stream), and the one sent back in the second call. */
function signatures(): { issued: string | undefined; returned: unknown } {
  const issued = /"thoughtSignature":"([^"]+)"/.exec(up.received[0].responseText)?.[1];
  const second = up.received[1].body.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
  const modelTurn = second.find((c) => c.role === 'model');
  return { issued, returned: modelTurn?.parts[0].thoughtSignature };
}

describe('openai SDK, chat completions → Gemini', () => {
  it('JSON: the path, the key, the translated body and the usage', async () => {
    const res = await openai.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello there' },
      ],
      max_tokens: 50,
    });
    expect(res.choices[0].message.content).toBe('echo: Hello there');
    expect(res.choices[0].finish_reason).toBe('stop');
    expect(res.model).toBe(MODEL);
    const call = up.received[0];
    expect(call.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(call.headers['x-goog-api-key']).toBe(GOOGLE_KEY);
    expect(call.headers.authorization).toBeUndefined();
    expect(call.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      generationConfig: { maxOutputTokens: 50 },
    });
    const prompt = Math.ceil(JSON.stringify(call.body).length / 4);
    // One output token per word.
    expect(res.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 3, total_tokens: prompt + 3 });
  });

  it('stream: alt=sse, the text in order, usage at the end', async () => {
    up.setHandler({ text: ['One, ', 'two, ', 'three.'] });
    const stream = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Count' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('One, two, three.');
    expect(finish).toBe('stop');
    expect(usage?.completion_tokens).toBe(3);
    expect(up.received[0].url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });

  it.each([false, true])(
    'tool round trip (stream %s): the thought signature goes back with the call',
    async (stream) => {
      up.setHandler(weatherLoop);
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
      const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: WEATHER_TOOL }];
      let call: { id: string; name: string; args: string };
      if (stream) {
        const s = await openai.chat.completions.create({ model: MODEL, messages, tools, stream: true });
        const parts = { id: '', name: '', args: '' };
        let finish: string | null = null;
        for await (const chunk of s) {
          const tc = chunk.choices[0]?.delta.tool_calls?.[0];
          if (tc?.id) parts.id = tc.id;
          if (tc?.function?.name) parts.name = tc.function.name;
          parts.args += tc?.function?.arguments ?? '';
          finish = chunk.choices[0]?.finish_reason ?? finish;
        }
        expect(finish).toBe('tool_calls');
        call = parts;
      } else {
        const res = await openai.chat.completions.create({ model: MODEL, messages, tools });
        expect(res.choices[0].finish_reason).toBe('tool_calls');
        const tc = res.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
        call = { id: tc.id, name: tc.function.name, args: tc.function.arguments };
      }
      expect(call.name).toBe('get_weather');
      expect(JSON.parse(call.args)).toEqual({ city: 'Paris' });
      expect(call.id).toMatch(/^call_gs_[A-Za-z0-9_-]+$/);
      messages.push(
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.args } }],
        },
        { role: 'tool', tool_call_id: call.id, content: '18C and sunny' },
      );
      const second = await openai.chat.completions.create({ model: MODEL, messages, tools });
      expect(second.choices[0].message.content).toBe(
        'It is {"name":"get_weather","response":{"output":"18C and sunny"}}',
      );
      const { issued, returned } = signatures();
      expect(typeof returned).toBe('string');
      expect(returned).toBe(issued);
      // The tool schema reached Gemini in its Schema subset.
      expect((up.received[1].body.tools as unknown[])[0]).toEqual({
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Weather in a city',
            parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
          },
        ],
      });
    },
  );

  /** A conversation whose assistant turn called get_weather with the id given. */
  const answeredCall = (id: string) => [
    { role: 'user' as const, content: 'Weather in Paris?' },
    {
      role: 'assistant' as const,
      content: null,
      tool_calls: [{ id, type: 'function' as const, function: { name: 'get_weather', arguments: '{}' } }],
    },
    { role: 'tool' as const, tool_call_id: id, content: '18C' },
  ];

  it("a call another model made goes up with Google's placeholder signature; the thinking model answers", async () => {
    up.setHandler(weatherLoop);
    const res = await openai.chat.completions.create({ model: MODEL, messages: answeredCall('toolu_from_claude') });
    expect(res.choices[0].message.content).toBe('It is {"name":"get_weather","response":{"output":"18C"}}');
    const contents = up.received[0].body.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [
        { functionCall: { name: 'get_weather', args: {} }, thoughtSignature: 'skip_thought_signature_validator' },
      ],
    });
  });

  it('a forged signature in a call id is refused by the thinking model (400, its message)', async () => {
    up.setHandler(weatherLoop);
    const err = await openai.chat.completions
      .create({ model: MODEL, messages: answeredCall('call_gs_Zm9yZ2Vk') })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as Error).message).toContain('Corrupted thought signature');
  });
});

describe('Anthropic SDK, messages → Gemini', () => {
  it('JSON and stream', async () => {
    const msg = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi from Claude' }],
    });
    expect(msg.content).toEqual([{ type: 'text', text: 'echo: Hi from Claude' }]);
    expect(msg.stop_reason).toBe('end_turn');
    const stream = anthropic.messages.stream({
      model: MODEL,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Streamed hello' }],
    });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'echo: Streamed hello' }]);
    expect(up.received.map((c) => c.url)).toEqual([
      '/v1beta/models/gemini-2.5-flash:generateContent',
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    ]);
  });

  it.each([false, true])('tool round trip with thinking (stream %s)', async (stream) => {
    up.setHandler(weatherLoop);
    const params = {
      model: MODEL,
      max_tokens: 4000,
      thinking: { type: 'enabled' as const, budget_tokens: 2000 },
      tools: [
        { name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, input_schema: WEATHER_TOOL.parameters },
      ],
      messages: [{ role: 'user' as const, content: 'Weather in Paris?' }] as Anthropic.MessageParam[],
    };
    const first = stream
      ? await anthropic.messages.stream(params).finalMessage()
      : await anthropic.messages.create(params);
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    expect(up.received[0].body.generationConfig).toEqual({
      maxOutputTokens: 4000,
      thinkingConfig: { includeThoughts: true, thinkingBudget: 2000 },
    });
    const use = first.content[1] as Anthropic.ToolUseBlock;
    params.messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18C' }] },
    );
    const second = await anthropic.messages.create(params);
    expect(second.content).toEqual([
      { type: 'text', text: 'It is {"name":"get_weather","response":{"output":"18C"}}' },
    ]);
    const { issued, returned } = signatures();
    expect(typeof issued).toBe('string');
    expect(returned).toBe(issued);
  });
});

describe('openai SDK, responses → Gemini', () => {
  it('JSON and stream', async () => {
    const res = await openai.responses.create({ model: MODEL, input: 'Hello Responses' });
    expect(res.output_text).toBe('echo: Hello Responses');
    const stream = openai.responses.stream({ model: MODEL, input: 'Streamed Responses' });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('echo: Streamed Responses');
    expect(final.status).toBe('completed');
  });

  it.each([false, true])('function call round trip (stream %s)', async (stream) => {
    up.setHandler(weatherLoop);
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', strict: false, ...WEATHER_TOOL }];
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = stream
      ? await openai.responses.stream({ model: MODEL, input, tools, store: false }).finalResponse()
      : await openai.responses.create({ model: MODEL, input, tools, store: false });
    const fc = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(fc).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    input.push(fc, { type: 'function_call_output', call_id: fc.call_id, output: '18C' });
    const second = await openai.responses.create({ model: MODEL, input, tools, store: false });
    expect(second.output_text).toBe('It is {"name":"get_weather","response":{"output":"18C"}}');
    const { issued, returned } = signatures();
    expect(typeof issued).toBe('string');
    expect(returned).toBe(issued);
  });
});

describe('conversation state and structured output', () => {
  it('Responses previous_response_id: the stored function call keeps its signature for turn two', async () => {
    up.setHandler(weatherLoop);
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', strict: false, ...WEATHER_TOOL }];
    const first = await openai.responses.create({ model: MODEL, input: 'Weather in Paris?', tools });
    const fc = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await openai.responses.create({
      model: MODEL,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: fc.call_id, output: '18C' }],
      tools,
    });
    expect(second.output_text).toBe('It is {"name":"get_weather","response":{"output":"18C"}}');
    const { issued, returned } = signatures();
    expect(typeof issued).toBe('string');
    expect(returned).toBe(issued);
  });

  it('chat response_format json_schema → responseMimeType and responseJsonSchema', async () => {
    up.setHandler({ json: { city: 'Paris' } });
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const res = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'A city' }],
      response_format: { type: 'json_schema', json_schema: { name: 'c', schema } },
    });
    expect(JSON.parse(res.choices[0].message.content!)).toEqual({ city: 'Paris' });
    expect(up.received[0].body.generationConfig).toEqual({
      maxOutputTokens: 8192,
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
  });
});

describe('errors and token counts', () => {
  it('RESOURCE_EXHAUSTED: 429 with retry-after from RetryInfo', async () => {
    // The fake sends the delay as Google does: a RetryInfo detail (retryDelay "7s"), no Retry-After header.
    up.setHandler({
      kind: 'error',
      status: 429,
      message: 'Resource has been exhausted (e.g. check quota).',
      headers: { 'retry-after': '7' },
    });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect((await res.json()).error.message).toContain(
      'Provider "google" returned HTTP 429: Resource has been exhausted (e.g. check quota). (RESOURCE_EXHAUSTED)',
    );
  });

  it("a key Google refuses is the gateway's credential problem (502), never the caller's", async () => {
    const err = await openai.chat.completions
      .create({ model: 'badkey/gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect((err as { status?: number }).status).toBe(502);
    expect((err as Error).message).toContain('Provider "badkey" rejected the gateway\'s credentials (HTTP 401).');
  });

  it('a blocked prompt is a 400 naming the reason', async () => {
    up.setHandler({ blocked: 'SAFETY' });
    const err = await openai.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect((err as { status?: number }).status).toBe(400);
    expect((err as Error).message).toContain("blocked by Google's content filters (SAFETY)");
  });

  it('count_tokens asks models/{model}:countTokens', async () => {
    const res = await anthropic.messages.countTokens({
      model: MODEL,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Count these words please' }],
    });
    const call = up.received[0];
    expect(call.path).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
    expect(call.body).toEqual({
      generateContentRequest: {
        model: 'models/gemini-2.5-flash',
        contents: [{ role: 'user', parts: [{ text: 'Count these words please' }] }],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
      },
    });
    expect(res.input_tokens).toBe(Math.ceil(JSON.stringify(call.body).length / 4));
  });

  it('a stream cut before its finish reason, or with an error chunk, ends with an in-stream error', async () => {
    const streamed = async (path: string, body: unknown, headers: Record<string, string>) => {
      const res = await fetch(`${gw.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return res.text();
    };
    // The stream's chunks without its closing one (finish reason and usage), ended cleanly.
    up.setHandler({ kind: 'sse', events: answerEvents('gemini', { text: ['Half an ans'] }).slice(0, -1) });
    const chat = await streamed(
      '/v1/chat/completions',
      { model: MODEL, stream: true, messages: [{ role: 'user', content: 'x' }] },
      { authorization: `Bearer ${KEY}` },
    );
    expect(chat).toContain('"content":"Half an ans"');
    expect(chat).toContain('The upstream stream ended early (no finish reason).');
    expect(chat).not.toContain('"finish_reason":"stop"');
    up.setHandler({
      kind: 'error',
      inStream: true,
      after: 1,
      text: ['Hel'],
      message: 'The model is overloaded.',
      type: 'UNAVAILABLE',
    });
    const messages = await streamed(
      '/v1/messages',
      { model: MODEL, max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'x' }] },
      { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
    );
    expect(messages).toContain('event: error');
    expect(messages).toContain('The model is overloaded. (UNAVAILABLE)');
    expect(messages).not.toContain('event: message_stop');
  });

  it("BYOK: the caller's own key goes up in x-goog-api-key", async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'x-provider-api-key': GOOGLE_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'own/gemini-2.0-flash', messages: [{ role: 'user', content: 'mine' }] }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).choices[0].message.content).toBe('echo: mine');
    expect(up.received[0].headers['x-goog-api-key']).toBe(GOOGLE_KEY);
    expect(up.received[0].path).toBe('/v1beta/models/gemini-2.0-flash:generateContent');
  });
});

describe("the fake upstream's Gemini API refuses what Gemini refuses", () => {
  const send = (body: unknown, headers: Record<string, string> = { 'x-goog-api-key': GOOGLE_KEY }) =>
    fetch(`${up.url}/v1beta/models/gemini-2.0-flash:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const user = { role: 'user', parts: [{ text: 'hi' }] };

  it('a missing key (403), an unknown field, a function response no call asked for (400)', async () => {
    expect((await send({ contents: [user] }, {})).status).toBe(403);
    const unknown = await send({ contents: [user], n: 2 });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error.message).toBe(
      `Invalid JSON payload received. Unknown name "n" at '': Cannot find field.`,
    );
    const orphan = await send({
      contents: [user, { role: 'user', parts: [{ functionResponse: { name: 'f', response: { output: 'x' } } }] }],
    });
    expect(orphan.status).toBe(400);
    expect((await orphan.json()).error.status).toBe('INVALID_ARGUMENT');
    expect((await send({ contents: [user], generationConfig: { thinkingConfig: {} } })).status).toBe(400);
    expect((await send({ contents: [user] })).status).toBe(200);
  });
});
