/**
 * The AI SDK's default OpenAI model (`createOpenAI(...)(model)`: in @ai-sdk/openai 3 the Responses API)
 * and the conversation state it relies on, on the three upstream kinds. With `store` on (its default)
 * it sends the assistant items of earlier turns back as `item_reference`s: the gateway expands them
 * from the responses it stored when it translated (OpenAI chat, Anthropic upstreams), and passes them
 * through to a Responses upstream, which holds that state itself. `previousResponseId` likewise.
 * The cases that every client runs (text, streams, tools, errors, structured output) are in ai-sdk.test.ts.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type ModelMessage, stepCountIs, streamText, tool } from 'ai';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CLIENT_KEY, keepResponsesStreams, upstreamTurns, useClientRig, UPSTREAMS } from './client-gateway.js';

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const rig = useClientRig();

/** The bodies the SDK sent to the gateway in this test. */
const sent: any[] = [];
beforeEach(() => {
  sent.length = 0;
});
const keepRequests: typeof fetch = (input, init) => {
  if (typeof init?.body === 'string') sent.push(JSON.parse(init.body));
  return keepResponsesStreams(input, init);
};
const modelOf = (name: string) =>
  createOpenAI({ baseURL: `${rig.gw.url}/v1`, apiKey: CLIENT_KEY, fetch: keepRequests })(name);

/** The item id the SDK keeps on the text of an assistant message it got back (what it references later). */
function itemIdOf(messages: ModelMessage[]): unknown {
  const content = messages[0]?.content;
  const part = Array.isArray(content) ? content[0] : undefined;
  return part?.type === 'text' ? part.providerOptions?.openai?.itemId : undefined;
}

describe('the default provider call', () => {
  it('is the Responses model, sent to POST /v1/responses', async () => {
    const model = modelOf(UPSTREAMS[0].alias);
    expect(model.provider).toBe('openai.responses');
    const r = await generateText({ model, prompt: 'hello there', maxRetries: 0 });
    expect(r.text).toBe('echo: hello there');
    expect(JSON.parse(rig.gw.logs.at(-1)!).endpoint).toBe('POST /v1/responses');
    expect(sent).toEqual([expect.objectContaining({ model: UPSTREAMS[0].alias, input: expect.any(Array) })]);
  });
});

describe.each(UPSTREAMS)('openai Responses model → $upstream upstream ($alias)', ({ upstream, alias }) => {
  const model = () => modelOf(alias);
  const turn1: ModelMessage[] = [{ role: 'user', content: 'My name is Ada.' }];
  const question: ModelMessage = { role: 'user', content: 'What is my name?' };
  /** What the upstream must see of turn two: the whole conversation, or the reference it resolves itself. */
  const expectSecondTurnUpstream = (itemId: string) => {
    const call = rig.up.accepted.at(-1);
    const previous = upstream === 'responses' ? `item_reference: ${itemId}` : 'assistant: echo: My name is Ada.';
    expect(upstreamTurns(call)).toEqual(['user: My name is Ada.', previous, 'user: What is my name?']);
  };

  it('two turns: turn 1’s response messages go back as an item_reference', async () => {
    const r1 = await generateText({ model: model(), messages: turn1, maxRetries: 0 });
    expect(r1.text).toBe('echo: My name is Ada.');
    const itemId = itemIdOf(r1.response.messages);
    expect(itemId).toEqual(expect.stringMatching(/^msg_/));

    const r2 = await generateText({
      model: model(),
      messages: [...turn1, ...r1.response.messages, question],
      maxRetries: 0,
    });
    expect(r2.text).toBe('echo: What is my name?');
    expect(sent[1].input[1]).toEqual({ type: 'item_reference', id: itemId });
    expectSecondTurnUpstream(String(itemId));
  });

  it('two turns, streamed', async () => {
    const s1 = streamText({ model: model(), messages: turn1, maxRetries: 0 });
    let text = '';
    for await (const d of s1.textStream) text += d;
    expect(text).toBe('echo: My name is Ada.');
    const messages = (await s1.response).messages;
    const itemId = itemIdOf(messages);

    const s2 = streamText({ model: model(), messages: [...turn1, ...messages, question], maxRetries: 0 });
    text = '';
    for await (const d of s2.textStream) text += d;
    expect(text).toBe('echo: What is my name?');
    expect(sent[1].input[1]).toEqual({ type: 'item_reference', id: itemId });
    expectSecondTurnUpstream(String(itemId));
  });

  it('previousResponseId: only the new message is sent, the model sees the conversation', async () => {
    const r1 = await generateText({ model: model(), messages: turn1, maxRetries: 0 });
    const previousResponseId = r1.providerMetadata?.openai?.responseId;
    expect(previousResponseId).toEqual(expect.stringMatching(/^resp_/));
    const r2 = await generateText({
      model: model(),
      messages: [question],
      providerOptions: { openai: { previousResponseId: String(previousResponseId) } },
      maxRetries: 0,
    });
    expect(r2.text).toBe('echo: What is my name?');
    const call = rig.up.accepted.at(-1);
    if (upstream === 'responses') {
      expect(call?.body.previous_response_id).toBe(previousResponseId);
      expect(upstreamTurns(call)).toEqual(['user: What is my name?']);
    } else {
      expect(upstreamTurns(call)).toEqual([
        'user: My name is Ada.',
        'assistant: echo: My name is Ada.',
        'user: What is my name?',
      ]);
    }
  });

  it('a tool round trip in two steps (stopWhen: stepCountIs(2)), then a turn after it', async () => {
    const tools = {
      get_weather: tool({
        description: 'Current weather in a city',
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => `sunny in ${city}`,
      }),
    };
    const ask: ModelMessage[] = [{ role: 'user', content: 'what is the weather' }];
    const r = await generateText({ model: model(), messages: ask, tools, stopWhen: stepCountIs(2), maxRetries: 0 });
    expect(r.steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(r.steps[0].toolCalls).toEqual([
      expect.objectContaining({ toolName: 'get_weather', input: { city: 'Paris' } }),
    ]);
    expect(r.text).toBe('tool said: sunny in Paris');
    expect(sent[1].input.map((i: any) => i.type ?? i.role)).toEqual(['user', 'function_call', 'function_call_output']);

    const next = await generateText({
      model: model(),
      messages: [...ask, ...r.response.messages, { role: 'user', content: 'thanks' }],
      tools,
      maxRetries: 0,
    });
    expect(next.text).toBe('echo: thanks');
  });
});
