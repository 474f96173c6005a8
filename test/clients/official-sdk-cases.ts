/**
 * Cases for the official SDKs (openai 6 on /v1/chat/completions and /v1/responses, @anthropic-ai/sdk 1
 * on /v1/messages) against the client gateway (test/clients/client-gateway.ts) and the strict
 * upstream with scenarioReply. Each case runs on one model; a test file lists the (case, model)
 * pairs it runs, so cells waiting on a gateway fix can live in another file. The Responses cases'
 * streams go through the rig's order check (keepResponsesStreams).
 */
import Anthropic from '@anthropic-ai/sdk';
import { zodOutputFormat } from '@anthropic-ai/sdk/helpers/zod';
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SseDecoder } from '../../src/sse/decode.js';
import { assertAnthropicStreamOrder } from '../helpers/anthropic-order.js';
import type { FakeUpstream } from '../helpers/fake-upstream.js';
import { recordingFetch } from '../helpers/sse.js';
import type { RunningGateway } from '../helpers/start-gateway.js';
import { CLIENT_KEY, keepResponsesStreams, RECIPE, type UpstreamFormat, upstreamTurns } from './client-gateway.js';

const RECIPE_SCHEMA = z.object({ name: z.string(), servings: z.number().int(), steps: z.array(z.string()) });
const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};
const RESULTS = 'tool said: sunny in Paris\nsunny in Rome';

const openai = (gatewayUrl: string, streams?: string[]) =>
  new OpenAI({
    apiKey: CLIENT_KEY,
    baseURL: `${gatewayUrl}/v1`,
    maxRetries: 0,
    ...(streams ? { fetch: recordingFetch(streams) } : {}),
  });
const responsesClient = (gatewayUrl: string) =>
  new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${gatewayUrl}/v1`, maxRetries: 0, fetch: keepResponsesStreams });
const anthropic = (gatewayUrl: string, streams?: string[]) =>
  new Anthropic({
    apiKey: CLIENT_KEY,
    baseURL: gatewayUrl,
    maxRetries: 0,
    ...(streams ? { fetch: recordingFetch(streams) } : {}),
  });

/** The parallel tool round trip in OpenAI terms: two calls, both answered, the final text. */
async function openaiParallel(client: OpenAI, model: string, stream: boolean): Promise<void> {
  const tools: OpenAI.ChatCompletionTool[] = [
    {
      type: 'function',
      function: { name: 'get_weather', description: 'Current weather in a city', parameters: WEATHER_SCHEMA },
    },
  ];
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'parallel weather' }];
  const ask = async () =>
    stream
      ? await client.chat.completions
          .stream({ model, messages, tools, stream_options: { include_usage: true } })
          .finalChatCompletion()
      : await client.chat.completions.create({ model, messages, tools });
  const first = await ask();
  const calls = first.choices[0].message.tool_calls ?? [];
  expect(first.choices[0].finish_reason).toBe('tool_calls');
  expect(calls.map((c) => (c.type === 'function' ? JSON.parse(c.function.arguments) : undefined))).toEqual([
    { city: 'Paris' },
    { city: 'Rome' },
  ]);
  messages.push(first.choices[0].message);
  for (const c of calls) {
    const city = c.type === 'function' ? (JSON.parse(c.function.arguments) as { city: string }).city : '';
    messages.push({ role: 'tool', tool_call_id: c.id, content: `sunny in ${city}` });
  }
  const final = await ask();
  expect(final.choices[0].message.content).toBe(RESULTS);
  expect(final.usage?.prompt_tokens).toBeGreaterThan(0);
}

async function anthropicParallel(client: Anthropic, model: string, stream: boolean): Promise<void> {
  const tools: Anthropic.Tool[] = [
    {
      name: 'get_weather',
      description: 'Current weather in a city',
      input_schema: WEATHER_SCHEMA as Anthropic.Tool.InputSchema,
    },
  ];
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'parallel weather' }];
  const ask = () =>
    stream
      ? client.messages.stream({ model, max_tokens: 200, messages, tools }).finalMessage()
      : client.messages.create({ model, max_tokens: 200, messages, tools });
  const first = await ask();
  expect(first.stop_reason).toBe('tool_use');
  const calls = first.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
  expect(calls.map((c) => c.input)).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
  messages.push({ role: 'assistant', content: first.content });
  messages.push({
    role: 'user',
    content: calls.map((c) => ({
      type: 'tool_result' as const,
      tool_use_id: c.id,
      content: `sunny in ${(c.input as { city: string }).city}`,
    })),
  });
  const final = await ask();
  expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: RESULTS })]);
  expect(final.usage.input_tokens).toBeGreaterThan(0);
}

/**
 * The parallel tool round trip in Responses terms: two function_call items, the response's output and
 * a function_call_output per call sent back as input (no stored state used), the final text.
 */
async function responsesParallel(client: OpenAI, model: string, stream: boolean): Promise<void> {
  const tools: OpenAI.Responses.FunctionTool[] = [
    {
      type: 'function',
      name: 'get_weather',
      description: 'Current weather in a city',
      parameters: WEATHER_SCHEMA,
      strict: true,
    },
  ];
  const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'parallel weather' }];
  const ask = (): Promise<OpenAI.Responses.Response> =>
    stream
      ? client.responses.stream({ model, input, tools }).finalResponse()
      : client.responses.create({ model, input, tools });
  const first = await ask();
  expect(first.status).toBe('completed');
  const calls = first.output.filter((o) => o.type === 'function_call');
  expect(calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
    ['get_weather', { city: 'Paris' }],
    ['get_weather', { city: 'Rome' }],
  ]);
  expect(new Set(calls.map((c) => c.call_id)).size).toBe(2);
  input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]));
  for (const c of calls) {
    const city = (JSON.parse(c.arguments) as { city: string }).city;
    input.push({ type: 'function_call_output', call_id: c.call_id, output: `sunny in ${city}` });
  }
  const final = await ask();
  expect(final.output_text).toBe(RESULTS);
  expect(final.usage?.input_tokens).toBeGreaterThan(0);
}

export type CaseName = keyof typeof CASES;

/** What a case runs against: the gateway's origin, the model named and the one serving it, the upstream. */
export interface CaseTarget {
  url: string;
  model: string;
  /** The concrete id the gateway serves `model` with (x-gateway-model). */
  concrete: string;
  up: FakeUpstream;
}

export const CASES = {
  'openai: create, usage, x-gateway-model': async ({ url, model, concrete }) => {
    const { data, response } = await openai(url)
      .chat.completions.create({ model, messages: [{ role: 'user', content: 'hello there' }] })
      .withResponse();
    expect(data.choices[0].message.content).toBe('echo: hello there');
    expect(data.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(data.usage?.completion_tokens).toBeGreaterThan(0);
    expect(response.headers.get('x-gateway-model')).toBe(concrete);
  },
  'openai: stream with include_usage': async ({ url, model }) => {
    const stream = await openai(url).chat.completions.create({
      model,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hello there' }],
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('echo: hello there');
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  },
  'openai: parallel tool round trip': ({ url, model }) => openaiParallel(openai(url), model, false),
  'openai: parallel tool round trip, streamed': ({ url, model }) => openaiParallel(openai(url), model, true),
  'openai: parse with zodResponseFormat (json_schema)': async ({ url, model }) => {
    const r = await openai(url).chat.completions.parse({
      model,
      messages: [{ role: 'user', content: 'a recipe please' }],
      response_format: zodResponseFormat(RECIPE_SCHEMA, 'recipe'),
    });
    expect(r.choices[0].message.parsed).toEqual(RECIPE);
  },
  'openai: stream with zodResponseFormat (json_schema)': async ({ url, model }) => {
    const s = openai(url).chat.completions.stream({
      model,
      messages: [{ role: 'user', content: 'a recipe please' }],
      response_format: zodResponseFormat(RECIPE_SCHEMA, 'recipe'),
    });
    expect((await s.finalChatCompletion()).choices[0].message.parsed).toEqual(RECIPE);
  },
  'openai: json_object': async ({ url, model }) => {
    const r = await openai(url).chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'a recipe please, as JSON' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(r.choices[0].message.content ?? '')).toEqual(RECIPE);
  },
  'anthropic: create, usage, x-gateway-model': async ({ url, model, concrete }) => {
    const { data, response } = await anthropic(url)
      .messages.create({ model, max_tokens: 200, messages: [{ role: 'user', content: 'hello there' }] })
      .withResponse();
    expect(data.content).toEqual([expect.objectContaining({ type: 'text', text: 'echo: hello there' })]);
    expect(data.usage.input_tokens).toBeGreaterThan(0);
    expect(data.usage.output_tokens).toBeGreaterThan(0);
    expect(response.headers.get('x-gateway-model')).toBe(concrete);
  },
  'anthropic: stream, message_start usage complete and non-zero': async ({ url, model }) => {
    const streams: string[] = [];
    const msg = await anthropic(url, streams)
      .messages.stream({ model, max_tokens: 200, messages: [{ role: 'user', content: 'hello there' }] })
      .finalMessage();
    expect(msg.content).toEqual([expect.objectContaining({ type: 'text', text: 'echo: hello there' })]);
    const d = new SseDecoder();
    const events = [...d.push(streams.at(-1) ?? ''), ...d.end()];
    assertAnthropicStreamOrder(events);
    const start = JSON.parse(events.find((e) => e.event === 'message_start')?.data ?? '{}');
    expect(start.message.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(start.message.usage.input_tokens).toBeGreaterThan(0);
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
    expect(msg.usage.output_tokens).toBeGreaterThan(0);
  },
  'anthropic: parallel tool round trip': ({ url, model }) => anthropicParallel(anthropic(url), model, false),
  'anthropic: parallel tool round trip, streamed': ({ url, model }) => anthropicParallel(anthropic(url), model, true),
  'anthropic: parse with zodOutputFormat (output_config.format)': async ({ url, model }) => {
    const r = await anthropic(url).messages.parse({
      model,
      max_tokens: 200,
      messages: [{ role: 'user', content: 'a recipe please' }],
      output_config: { format: zodOutputFormat(RECIPE_SCHEMA) },
    });
    expect(r.parsed_output).toEqual(RECIPE);
  },
  'anthropic: stream with zodOutputFormat (output_config.format)': async ({ url, model }) => {
    const s = anthropic(url).messages.stream({
      model,
      max_tokens: 200,
      messages: [{ role: 'user', content: 'a recipe please' }],
      output_config: { format: zodOutputFormat(RECIPE_SCHEMA) },
    });
    expect((await s.finalMessage()).parsed_output).toEqual(RECIPE);
  },
  'responses: create, usage, x-gateway-model': async ({ url, model, concrete }) => {
    const { data, response } = await responsesClient(url)
      .responses.create({ model, input: 'hello there', instructions: 'be brief' })
      .withResponse();
    expect(data).toMatchObject({ object: 'response', status: 'completed', model });
    expect(data.output_text).toBe('echo: hello there');
    expect(data.usage?.input_tokens).toBeGreaterThan(0);
    expect(data.usage?.output_tokens).toBeGreaterThan(0);
    expect(data.usage?.total_tokens).toBe((data.usage?.input_tokens ?? 0) + (data.usage?.output_tokens ?? 0));
    expect(response.headers.get('x-gateway-model')).toBe(concrete);
  },
  'responses: stream, its events and the final response': async ({ url, model }) => {
    const stream = responsesClient(url).responses.stream({ model, input: 'hello there' });
    const types: string[] = [];
    let deltas = '';
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === 'response.output_text.delta') deltas += ev.delta;
    }
    const final = await stream.finalResponse();
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.at(-1)).toBe('response.completed');
    expect(deltas).toBe('echo: hello there');
    expect(final.output_text).toBe('echo: hello there');
    expect(final).toMatchObject({ status: 'completed', model });
    expect(final.usage?.output_tokens).toBeGreaterThan(0);
  },
  'responses: parallel function tool round trip': ({ url, model }) =>
    responsesParallel(responsesClient(url), model, false),
  'responses: parallel function tool round trip, streamed': ({ url, model }) =>
    responsesParallel(responsesClient(url), model, true),
  'responses: previous_response_id turn two': async ({ url, model, up }) => {
    const client = responsesClient(url);
    const first = await client.responses.create({ model, input: 'My name is Ada.' });
    const second = await client.responses.create({ model, input: 'What is my name?', previous_response_id: first.id });
    expect(second.output_text).toBe('echo: What is my name?');
    expect(second.previous_response_id).toBe(first.id);
    const call = up.accepted.at(-1);
    // A Responses upstream holds the conversation; any other one is sent all of it.
    if (call?.format === 'responses') {
      expect(call.body.previous_response_id).toBe(first.id);
      expect(upstreamTurns(call)).toEqual(['user: What is my name?']);
    } else {
      expect(upstreamTurns(call)).toEqual([
        'user: My name is Ada.',
        'assistant: echo: My name is Ada.',
        'user: What is my name?',
      ]);
    }
  },
  'responses: previous_response_id turn two, streamed, with a tool result': async ({ url, model }) => {
    const client = responsesClient(url);
    const tools: OpenAI.Responses.FunctionTool[] = [
      { type: 'function', name: 'get_weather', parameters: WEATHER_SCHEMA, strict: true },
    ];
    const first = await client.responses.stream({ model, input: 'what is the weather', tools }).finalResponse();
    const call = first.output.find((o) => o.type === 'function_call');
    expect(call?.arguments && JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
    const second = await client.responses
      .stream({
        model,
        tools,
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: call?.call_id ?? '', output: 'sunny in Paris' }],
      })
      .finalResponse();
    expect(second.output_text).toBe('tool said: sunny in Paris');
  },
  'responses: retrieve, inputItems.list, delete': async ({ url, model }) => {
    const client = responsesClient(url);
    const created = await client.responses.create({ model, input: 'keep this' });
    const got = await client.responses.retrieve(created.id);
    expect(got).toMatchObject({ id: created.id, status: 'completed', model });
    expect(got.output).toEqual(created.output);
    expect(got.output_text).toBe('echo: keep this');
    const items: OpenAI.Responses.ResponseItem[] = [];
    for await (const item of client.responses.inputItems.list(created.id)) items.push(item);
    expect(items).toEqual([
      expect.objectContaining({
        type: 'message',
        role: 'user',
        id: expect.any(String),
        content: [expect.objectContaining({ type: 'input_text', text: 'keep this' })],
      }),
    ]);
    await client.responses.delete(created.id);
    const gone = await client.responses.retrieve(created.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
  },
  'responses: inputTokens.count': async ({ url, model }) => {
    const count = await responsesClient(url).responses.inputTokens.count({ model, input: 'hello there' });
    expect(count.object).toBe('response.input_tokens');
    expect(count.input_tokens).toBeGreaterThan(0);
  },
  'responses: parse with zodTextFormat (text.format json_schema)': async ({ url, model }) => {
    const r = await responsesClient(url).responses.parse({
      model,
      input: 'a recipe please',
      text: { format: zodTextFormat(RECIPE_SCHEMA, 'recipe') },
    });
    expect(r.output_parsed).toEqual(RECIPE);
  },
} satisfies Record<string, (t: CaseTarget) => Promise<void>>;

export interface CaseCell {
  upstream: UpstreamFormat;
  model: string;
  /** The concrete id the gateway serves `model` with (x-gateway-model). */
  concrete: string;
  cases: CaseName[];
}

export function describeCases(
  rig: { readonly gw: RunningGateway; readonly up: FakeUpstream },
  cells: CaseCell[],
): void {
  for (const cell of cells) {
    describe(`${cell.upstream} upstream (${cell.model})`, () => {
      it.each(cell.cases)('%s', (name) =>
        CASES[name]({ url: rig.gw.url, model: cell.model, concrete: cell.concrete, up: rig.up }),
      );
    });
  }
}
