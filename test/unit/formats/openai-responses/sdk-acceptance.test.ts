/**
 * What this format writes, read by the clients that read it: the openai SDK (its Responses
 * accumulator and error handling) and the AI SDK's Responses model (its zod schemas). Each is
 * given a fetch that answers in-process with the gateway's encoding; nothing goes on the network.
 */
import { OpenAIResponsesLanguageModel } from '@ai-sdk/openai/internal';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ChatResponse, StreamEvent } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { decodeAnthropicStream } from '../../../../src/formats/anthropic-messages/stream-decode.js';
import { openaiResponses } from '../../../../src/formats/openai-responses/index.js';
import { sseFixture as anthropicFixture } from '../anthropic-messages/load-sse.js';
import { encodeEvents } from '../../../helpers/encode-events.js';
import { chatRequest, collect, fromArray } from './load-sse.js';

const req = chatRequest({
  tools: [
    { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    { name: 'apply_patch', parameters: {}, custom: true },
  ],
});

const reply: ChatResponse = {
  id: 'msg_01',
  model: 'team/claude',
  created: 1756300000,
  content: [
    { type: 'reasoning', text: 'Weather first.', signature: 'sig' },
    { type: 'text', text: 'Checking.' },
    { type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { type: 'tool_call', id: 'toolu_2', name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' },
  ],
  finish: 'tool_calls',
  usage: { inputTokens: 40, outputTokens: 12, cacheReadTokens: 8, reasoningTokens: 5 },
};

function answering(body: string, contentType: string): typeof fetch {
  return async () => new Response(body, { status: 200, headers: { 'content-type': contentType } });
}
const json = () => answering(JSON.stringify(openaiResponses.encodeResponse(reply, req)), 'application/json');
async function sse(events: AsyncIterable<StreamEvent>): Promise<string> {
  return (await collect(encodeEvents(openaiResponses.streamEncoder(req), events))).join('');
}
const claudeStream = () => sse(decodeAnthropicStream(anthropicFixture('thinking-text-tool')));
const failingStream = () =>
  sse(
    fromArray<StreamEvent>([
      { type: 'message_start', id: 'm', model: 'team/x', created: 1 },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'Par' } },
      {
        type: 'error',
        error: new GatewayError('upstream_error', 'The upstream reported an error mid-stream: overloaded', {
          status: 529,
          kind: 'overloaded',
        }),
      },
    ]),
  );

const openai = (f: typeof fetch) =>
  new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0, fetch: f });
const aiSdk = (f: typeof fetch) =>
  new OpenAIResponsesLanguageModel('team/claude', {
    provider: 'openai.responses',
    url: ({ path }) => `http://127.0.0.1:9/v1${path}`,
    headers: () => ({}),
    fetch: f,
  });
const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'weather?' }] }];

describe('the openai SDK reads what the format writes', () => {
  it('a JSON response: output_text, typed items, usage', async () => {
    const res = await openai(json()).responses.create({ model: 'team/claude', input: 'weather?' });
    expect(res.output_text).toBe('Checking.');
    expect(res.output.map((o) => o.type)).toEqual(['reasoning', 'message', 'function_call', 'custom_tool_call']);
    expect(res.usage).toMatchObject({ input_tokens: 48, output_tokens: 12 });
  });

  it('a stream: its accumulator rebuilds the final response, event by event', async () => {
    const text = await claudeStream();
    const stream = openai(answering(text, 'text/event-stream')).responses.stream({ model: 'team/claude', input: 'x' });
    const types: string[] = [];
    for await (const ev of stream) types.push(ev.type);
    const final = await stream.finalResponse();
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(final.output.map((o) => o.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(final.output_text).toBe('Let me check the weather in Paris — one moment.');
  });

  it('an in-stream error raises an APIError with the message', async () => {
    const stream = await openai(answering(await failingStream(), 'text/event-stream')).responses.create({
      model: 'team/x',
      input: 'x',
      stream: true,
    });
    await expect(async () => {
      for await (const _ of stream) {
        // reading until the error
      }
    }).rejects.toThrow('The upstream reported an error mid-stream: overloaded');
  });
});

describe("the AI SDK's Responses model reads what the format writes", () => {
  it('a JSON response passes its schema: reasoning with its encrypted content, text, tool calls, usage', async () => {
    const res = await aiSdk(json()).doGenerate({ prompt });
    const parts = res.content.map((c) => c.type);
    expect(parts).toEqual(['reasoning', 'text', 'tool-call', 'tool-call']);
    expect(res.content[1]).toMatchObject({ type: 'text', text: 'Checking.' });
    expect(res.content[2]).toMatchObject({ toolCallId: 'toolu_1', toolName: 'get_weather', input: '{"city":"Paris"}' });
    expect(res.finishReason.unified).toBe('tool-calls');
    expect(res.usage.inputTokens).toMatchObject({ total: 48, cacheRead: 8 });
  });

  it('a stream passes its chunk schema, chunk by chunk', async () => {
    const { stream } = await aiSdk(answering(await claudeStream(), 'text/event-stream')).doStream({ prompt });
    const parts = await collect(stream as unknown as AsyncIterable<{ type: string; [k: string]: unknown }>);
    expect(parts.filter((p) => p.type === 'error')).toEqual([]);
    expect(parts.filter((p) => p.type === 'text-delta').map((p) => p.delta)).toEqual([
      'Let me check ',
      'the weather in Paris — one moment.',
    ]);
    expect(parts.find((p) => p.type === 'tool-call')).toMatchObject({ toolName: 'get_weather' });
    expect(parts.find((p) => p.type === 'finish')).toMatchObject({ finishReason: { unified: 'tool-calls' } });
  });

  it('an in-stream error is an error part carrying the message', async () => {
    const { stream } = await aiSdk(answering(await failingStream(), 'text/event-stream')).doStream({ prompt });
    const parts = await collect(stream as unknown as AsyncIterable<{ type: string; [k: string]: unknown }>);
    expect(JSON.stringify(parts.find((p) => p.type === 'error'))).toContain('overloaded');
  });
});
