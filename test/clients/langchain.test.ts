/**
 * LangChain JS 1.5 (`@langchain/openai` ChatOpenAI on Chat Completions, `@langchain/anthropic`
 * ChatAnthropic on Messages) against the gateway, each on a model of an OpenAI chat, an Anthropic
 * and an OpenAI Responses upstream. Same format is pass-through, the others are translation.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type AIMessage, HumanMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ANT_ALIAS,
  ANT_MODEL,
  BROKE_KEY,
  CLIENT_KEY,
  expectSystemPrompt,
  LIMITED_KEY,
  OAI_ALIAS,
  OAI_REASONING_MODEL,
  useClientRig,
  UPSTREAMS,
} from './client-gateway.js';
import {
  chatModel,
  describeReasoning,
  describeStreamUsage,
  describeStructuredOutput,
  streamAll,
  textOf,
  type ClientName,
} from './langchain-cases.js';

const rig = useClientRig();

const CLIENTS: ClientName[] = ['ChatOpenAI', 'ChatAnthropic'];
const modelOf = (client: ClientName, model: string, key = CLIENT_KEY) => chatModel(client, rig.gw.url, model, key);
// Each upstream by alias and by concrete id: the client libraries switch behaviour on the model name.
const MATRIX = CLIENTS.flatMap((client) =>
  UPSTREAMS.flatMap((u) =>
    [u.alias, u.concrete].map((name) => ({
      client,
      ...u,
      name,
      label: `${client} → ${u.upstream} upstream (${name})`,
    })),
  ),
);

const weatherTool = tool(async ({ city }: { city: string }) => `sunny in ${city}`, {
  name: 'get_weather',
  description: 'Current weather in a city',
  schema: z.object({ city: z.string() }),
});

/** The tool round trip: ask, run every call the model made, send the results back. */
async function roundTrip(model: BaseChatModel, prompt: string, stream: boolean) {
  const bound = model.bindTools!([weatherTool]);
  const messages: BaseMessage[] = [new HumanMessage(prompt)];
  const first = stream
    ? await streamAll(bound as BaseChatModel, messages)
    : ((await bound.invoke(messages)) as AIMessage);
  const calls = first.tool_calls ?? [];
  messages.push(first);
  for (const c of calls) messages.push(await weatherTool.invoke({ ...c, type: 'tool_call' as const }));
  const final = stream
    ? await streamAll(bound as BaseChatModel, messages)
    : ((await bound.invoke(messages)) as AIMessage);
  return { calls, final };
}

describe.each(MATRIX)('$label', ({ client, name, upstream }) => {
  const model = () => modelOf(client, name);

  it('invoke: text and usage', async () => {
    const r = await model().invoke([new SystemMessage('be brief'), new HumanMessage('hello there')]);
    expect(textOf(r)).toBe('echo: hello there');
    expectSystemPrompt(rig.up, upstream, 'be brief');
    expect(r.usage_metadata?.input_tokens).toBeGreaterThan(0);
    expect(r.usage_metadata?.output_tokens).toBeGreaterThan(0);
  });

  it.each([false, true])('tool round trip (stream %s)', async (stream) => {
    const { calls, final } = await roundTrip(model(), 'what is the weather', stream);
    expect(calls).toEqual([expect.objectContaining({ name: 'get_weather', args: { city: 'Paris' } })]);
    expect(textOf(final)).toBe('tool said: sunny in Paris');
  });

  it.each([false, true])('parallel tool calls (stream %s)', async (stream) => {
    const { calls, final } = await roundTrip(model(), 'parallel weather', stream);
    expect(calls.map((c) => c.args)).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    expect(textOf(final)).toBe('tool said: sunny in Paris\nsunny in Rome');
  });

  it('an upstream 429 → the SDK rate-limit error, stamped MODEL_RATE_LIMIT', async () => {
    const err = (await model()
      .invoke('please fail 429')
      .catch((e: unknown) => e)) as { status?: number; lc_error_code?: string; constructor: { name: string } };
    expect(err.status).toBe(429);
    expect(err.constructor.name).toBe('RateLimitError');
    expect(err.lc_error_code).toBe('MODEL_RATE_LIMIT');
  });

  it('an upstream 500 on a stream → InternalServerError from .stream()', async () => {
    const err = (await streamAll(model(), [new HumanMessage('please fail 500')]).catch((e: unknown) => e)) as {
      status?: number;
      constructor: { name: string };
    };
    expect(err.status).toBe(500);
    expect(err.constructor.name).toBe('InternalServerError');
  });
});

describeStreamUsage(
  () => rig.gw.url,
  [
    { client: 'ChatOpenAI', model: OAI_ALIAS, upstream: 'openai' },
    { client: 'ChatOpenAI', model: ANT_ALIAS, upstream: 'anthropic' },
    { client: 'ChatAnthropic', model: ANT_ALIAS, upstream: 'anthropic' },
  ],
);

describeStructuredOutput(
  () => rig.gw.url,
  [
    { client: 'ChatOpenAI', model: OAI_ALIAS, upstream: 'openai' },
    { client: 'ChatOpenAI', model: OAI_ALIAS, upstream: 'openai', method: 'jsonMode' },
    { client: 'ChatOpenAI', model: OAI_ALIAS, upstream: 'openai', method: 'functionCalling' },
    { client: 'ChatOpenAI', model: ANT_ALIAS, upstream: 'anthropic', method: 'functionCalling' },
    { client: 'ChatAnthropic', model: OAI_ALIAS, upstream: 'openai' },
    { client: 'ChatAnthropic', model: ANT_ALIAS, upstream: 'anthropic' },
    { client: 'ChatAnthropic', model: ANT_ALIAS, upstream: 'anthropic', method: 'jsonSchema' },
  ],
);

describeReasoning(
  () => rig.gw.url,
  () => rig.up.accepted.at(-1)?.body,
  [
    {
      client: 'ChatOpenAI',
      model: OAI_REASONING_MODEL,
      upstream: 'openai',
      how: 'reasoning_effort',
      reasoningText: false,
    },
    { client: 'ChatOpenAI', model: ANT_MODEL, upstream: 'anthropic', how: 'reasoning_effort', reasoningText: false },
    { client: 'ChatAnthropic', model: ANT_MODEL, upstream: 'anthropic', how: 'thinking', reasoningText: true },
  ],
);

describe.each(CLIENTS)('%s: gateway errors parsed into the SDK error classes', (client) => {
  async function failure(model: string, key: string) {
    const err = await modelOf(client, model, key)
      .invoke('hello')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    return err as Error & { status?: number; lc_error_code?: string; error?: unknown };
  }

  it('403 model_not_allowed → PermissionDeniedError', async () => {
    const err = await failure(ANT_ALIAS, LIMITED_KEY);
    expect(err.status).toBe(403);
    expect(err.constructor.name).toBe('PermissionDeniedError');
    if (client === 'ChatOpenAI') expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
  });

  it('404 unknown model → NotFoundError, MODEL_NOT_FOUND', async () => {
    const err = await failure('team/nope', CLIENT_KEY);
    expect(err.constructor.name).toBe('NotFoundError');
    expect(err.lc_error_code).toBe('MODEL_NOT_FOUND');
  });

  it('401 wrong key → AuthenticationError, MODEL_AUTHENTICATION', async () => {
    const err = await failure(ANT_ALIAS, 'not-a-gateway-key');
    expect(err.constructor.name).toBe('AuthenticationError');
    expect(err.lc_error_code).toBe('MODEL_AUTHENTICATION');
  });

  it('429 budget_exceeded → RateLimitError naming the budget', async () => {
    const err = await failure(ANT_ALIAS, BROKE_KEY);
    expect(err.status).toBe(429);
    expect(err.constructor.name).toBe('RateLimitError');
    expect(err.message).toMatch(/broke-total/);
  });
});
