/**
 * Cases for the official SDKs (openai 6 on /v1/chat/completions, @anthropic-ai/sdk 1 on
 * /v1/messages) against the client gateway (test/clients/client-gateway.ts) and the strict
 * upstream with scenarioReply. Each case runs on one model; a test file lists the (case, model)
 * pairs it runs, so cells waiting on a gateway fix can live in another file.
 */
import Anthropic from '@anthropic-ai/sdk';
import { zodOutputFormat } from '@anthropic-ai/sdk/helpers/zod';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SseDecoder } from '../../src/sse/decode.js';
import { assertAnthropicStreamOrder } from '../helpers/anthropic-order.js';
import { recordingFetch } from '../helpers/sse.js';
import { CLIENT_KEY, RECIPE } from './client-gateway.js';

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

export type CaseName = keyof typeof CASES;

export const CASES = {
  'openai: create, usage, x-gateway-model': async (url: string, model: string, concrete: string) => {
    const { data, response } = await openai(url)
      .chat.completions.create({ model, messages: [{ role: 'user', content: 'hello there' }] })
      .withResponse();
    expect(data.choices[0].message.content).toBe('echo: hello there');
    expect(data.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(data.usage?.completion_tokens).toBeGreaterThan(0);
    expect(response.headers.get('x-gateway-model')).toBe(concrete);
  },
  'openai: stream with include_usage': async (url: string, model: string) => {
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
  'openai: parallel tool round trip': (url: string, model: string) => openaiParallel(openai(url), model, false),
  'openai: parallel tool round trip, streamed': (url: string, model: string) =>
    openaiParallel(openai(url), model, true),
  'openai: parse with zodResponseFormat (json_schema)': async (url: string, model: string) => {
    const r = await openai(url).chat.completions.parse({
      model,
      messages: [{ role: 'user', content: 'a recipe please' }],
      response_format: zodResponseFormat(RECIPE_SCHEMA, 'recipe'),
    });
    expect(r.choices[0].message.parsed).toEqual(RECIPE);
  },
  'openai: stream with zodResponseFormat (json_schema)': async (url: string, model: string) => {
    const s = openai(url).chat.completions.stream({
      model,
      messages: [{ role: 'user', content: 'a recipe please' }],
      response_format: zodResponseFormat(RECIPE_SCHEMA, 'recipe'),
    });
    expect((await s.finalChatCompletion()).choices[0].message.parsed).toEqual(RECIPE);
  },
  'openai: json_object': async (url: string, model: string) => {
    const r = await openai(url).chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'a recipe please, as JSON' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(r.choices[0].message.content ?? '')).toEqual(RECIPE);
  },
  'anthropic: create, usage, x-gateway-model': async (url: string, model: string, concrete: string) => {
    const { data, response } = await anthropic(url)
      .messages.create({ model, max_tokens: 200, messages: [{ role: 'user', content: 'hello there' }] })
      .withResponse();
    expect(data.content).toEqual([expect.objectContaining({ type: 'text', text: 'echo: hello there' })]);
    expect(data.usage.input_tokens).toBeGreaterThan(0);
    expect(data.usage.output_tokens).toBeGreaterThan(0);
    expect(response.headers.get('x-gateway-model')).toBe(concrete);
  },
  'anthropic: stream, message_start usage complete and non-zero': async (url: string, model: string) => {
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
  'anthropic: parallel tool round trip': (url: string, model: string) =>
    anthropicParallel(anthropic(url), model, false),
  'anthropic: parallel tool round trip, streamed': (url: string, model: string) =>
    anthropicParallel(anthropic(url), model, true),
  'anthropic: parse with zodOutputFormat (output_config.format)': async (url: string, model: string) => {
    const r = await anthropic(url).messages.parse({
      model,
      max_tokens: 200,
      messages: [{ role: 'user', content: 'a recipe please' }],
      output_config: { format: zodOutputFormat(RECIPE_SCHEMA) },
    });
    expect(r.parsed_output).toEqual(RECIPE);
  },
  'anthropic: stream with zodOutputFormat (output_config.format)': async (url: string, model: string) => {
    const s = anthropic(url).messages.stream({
      model,
      max_tokens: 200,
      messages: [{ role: 'user', content: 'a recipe please' }],
      output_config: { format: zodOutputFormat(RECIPE_SCHEMA) },
    });
    expect((await s.finalMessage()).parsed_output).toEqual(RECIPE);
  },
};

export interface CaseCell {
  upstream: 'openai' | 'anthropic';
  model: string;
  /** The concrete id the gateway serves `model` with (x-gateway-model). */
  concrete: string;
  cases: CaseName[];
}

export function describeCases(gatewayUrl: () => string, cells: CaseCell[]): void {
  for (const cell of cells) {
    describe(`${cell.upstream} upstream (${cell.model})`, () => {
      it.each(cell.cases)('%s', (name) => CASES[name](gatewayUrl(), cell.model, cell.concrete));
    });
  }
}
