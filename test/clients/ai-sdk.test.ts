/**
 * The Vercel AI SDK (ai 6) against the gateway, through the providers a gateway user would pick:
 * `@ai-sdk/openai` (its default, the Responses API, and `.chat()`, Chat Completions),
 * `@ai-sdk/openai-compatible` and `@ai-sdk/anthropic` (Messages), each on a model of an OpenAI chat,
 * an Anthropic and an OpenAI Responses upstream. Same format is pass-through, the others are translation.
 */
import { APICallError, generateText, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  aiSdkModel,
  describeMidConversationSystem,
  describeReasoning,
  describeStructuredOutput,
  OUTPUT_FORMAT,
  type ClientName,
} from './ai-sdk-cases.js';
import {
  ANT_ALIAS,
  ANT_MODEL,
  BROKE_KEY,
  CLIENT_KEY,
  expectSystemPrompt,
  LIMITED_KEY,
  OAI_ALIAS,
  OAI_REASONING_MODEL,
  RESP_ALIAS,
  RESP_MODEL,
  useClientRig,
  UPSTREAMS,
} from './client-gateway.js';

// The SDK warns on the console about every unknown model name (ours are gateway names).
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const rig = useClientRig();

const CLIENTS: ClientName[] = ['openai', 'openai.chat', 'openai-compatible', 'anthropic'];
const modelOf = (client: ClientName, model: string, key = CLIENT_KEY) =>
  aiSdkModel(client, `${rig.gw.url}/v1`, model, key);
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

const weatherTool = tool({
  description: 'Current weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => `sunny in ${city}`,
});

describe.each(MATRIX)('$label', ({ client, name, concrete, upstream }) => {
  const model = () => modelOf(client, name);

  it('generateText: text, finish reason, usage; the system prompt in the upstream format’s place', async () => {
    const r = await generateText({ model: model(), system: 'be brief', prompt: 'hello there', maxRetries: 0 });
    expect(r.text).toBe('echo: hello there');
    expect(r.finishReason).toBe('stop');
    expect(r.usage.inputTokens).toBeGreaterThan(0);
    expect(r.usage.outputTokens).toBeGreaterThan(0);
    expect(r.response.headers?.['x-gateway-model']).toBe(concrete);
    expectSystemPrompt(rig.up, upstream, 'be brief');
  });

  it('streamText: deltas add up, usage present and non-zero', async () => {
    const r = streamText({ model: model(), prompt: 'hello there', maxRetries: 0 });
    let text = '';
    for await (const d of r.textStream) text += d;
    expect(text).toBe('echo: hello there');
    expect(await r.finishReason).toBe('stop');
    const usage = await r.usage;
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
  });

  it('tool round trip: the call, its result sent back, the final text', async () => {
    const r = await generateText({
      model: model(),
      prompt: 'what is the weather',
      tools: { get_weather: weatherTool },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(r.steps).toHaveLength(2);
    expect(r.steps[0].toolCalls).toEqual([
      expect.objectContaining({ toolName: 'get_weather', input: { city: 'Paris' } }),
    ]);
    expect(r.steps[0].finishReason).toBe('tool-calls');
    expect(r.text).toBe('tool said: sunny in Paris');
    expect(r.totalUsage.inputTokens).toBeGreaterThan(0);
  });

  it('tool round trip, streamed', async () => {
    const r = streamText({
      model: model(),
      prompt: 'what is the weather',
      tools: { get_weather: weatherTool },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    let text = '';
    for await (const d of r.textStream) text += d;
    expect(text).toBe('tool said: sunny in Paris');
    const steps = await r.steps;
    expect(steps[0].toolCalls).toEqual([
      expect.objectContaining({ toolName: 'get_weather', input: { city: 'Paris' } }),
    ]);
    expect((await r.totalUsage).outputTokens).toBeGreaterThan(0);
  });

  it('parallel tool calls: two calls in one step, both results sent back', async () => {
    const r = await generateText({
      model: model(),
      prompt: 'parallel weather',
      tools: { get_weather: weatherTool },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(r.steps[0].toolCalls.map((c) => c.input)).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
    expect(r.text).toBe('tool said: sunny in Paris\nsunny in Rome');
  });

  it('parallel tool calls, streamed', async () => {
    const r = streamText({
      model: model(),
      prompt: 'parallel weather',
      tools: { get_weather: weatherTool },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    let text = '';
    for await (const d of r.textStream) text += d;
    expect((await r.steps)[0].toolCalls.map((c) => c.input)).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
    expect(text).toBe('tool said: sunny in Paris\nsunny in Rome');
  });

  it('an upstream 429 → APICallError 429', async () => {
    const err = await generateText({ model: model(), prompt: 'please fail 429', maxRetries: 0 }).catch(
      (e: unknown) => e,
    );
    expect(APICallError.isInstance(err)).toBe(true);
    expect((err as APICallError).statusCode).toBe(429);
    expect((err as APICallError).isRetryable).toBe(true);
  });

  it('an upstream 500 on a stream → an error part carrying APICallError 500', async () => {
    const r = streamText({ model: model(), prompt: 'please fail 500', maxRetries: 0, onError: () => {} });
    const errors: unknown[] = [];
    for await (const part of r.fullStream) if (part.type === 'error') errors.push(part.error);
    expect(errors).toHaveLength(1);
    expect(APICallError.isInstance(errors[0])).toBe(true);
    expect((errors[0] as APICallError).statusCode).toBe(500);
  });
});

// Structured output where the caller's mechanism has the same format as the upstream, or is a
// tool call (translated like any tool).
describeStructuredOutput(
  () => `${rig.gw.url}/v1`,
  [
    { client: 'openai.chat', model: OAI_ALIAS, upstream: 'openai', how: 'response_format json_schema' },
    { client: 'openai-compatible', model: OAI_ALIAS, upstream: 'openai', how: 'response_format json_object' },
    { client: 'openai', model: RESP_ALIAS, upstream: 'responses', how: 'text.format json_schema' },
    { client: 'anthropic', model: OAI_ALIAS, upstream: 'openai', how: 'forced json tool' },
    { client: 'anthropic', model: ANT_ALIAS, upstream: 'anthropic', how: 'forced json tool' },
    {
      client: 'anthropic',
      model: ANT_ALIAS,
      upstream: 'anthropic',
      how: 'output_config.format',
      providerOptions: OUTPUT_FORMAT,
    },
    {
      client: 'anthropic',
      model: ANT_MODEL,
      upstream: 'anthropic',
      how: 'output_config.format, chosen by the SDK for a Claude id',
    },
  ],
);

describeReasoning(
  () => `${rig.gw.url}/v1`,
  () => rig.up.accepted.at(-1)?.body,
  [
    {
      client: 'openai.chat',
      model: OAI_REASONING_MODEL,
      upstream: 'openai',
      how: 'reasoningEffort',
      providerOptions: { openai: { reasoningEffort: 'low' } },
      reasoningText: false,
    },
    {
      // A gateway name is no OpenAI model name: forceReasoning makes the SDK treat it as a reasoning model.
      client: 'openai',
      model: RESP_MODEL,
      upstream: 'responses',
      how: 'reasoningEffort, reasoningSummary',
      providerOptions: { openai: { forceReasoning: true, reasoningEffort: 'low', reasoningSummary: 'auto' } },
      reasoningText: true,
    },
    {
      client: 'openai.chat',
      model: ANT_MODEL,
      upstream: 'anthropic',
      how: 'reasoningEffort',
      providerOptions: { openai: { reasoningEffort: 'low' } },
      reasoningText: false,
    },
    {
      client: 'openai-compatible',
      model: ANT_MODEL,
      upstream: 'anthropic',
      how: 'reasoningEffort',
      providerOptions: { gateway: { reasoningEffort: 'low' } },
      reasoningText: true,
    },
    {
      client: 'anthropic',
      model: ANT_MODEL,
      upstream: 'anthropic',
      how: 'thinking enabled',
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
      reasoningText: true,
    },
    {
      client: 'anthropic',
      model: ANT_MODEL,
      upstream: 'anthropic',
      how: 'adaptive thinking, effort',
      providerOptions: { anthropic: { thinking: { type: 'adaptive' }, effort: 'low' } },
      reasoningText: true,
    },
  ],
);

describeMidConversationSystem(
  () => `${rig.gw.url}/v1`,
  () => rig.up.accepted.at(-1),
  [
    { client: 'openai', model: RESP_ALIAS, upstream: 'responses' },
    { client: 'openai.chat', model: OAI_ALIAS, upstream: 'openai' },
    { client: 'openai.chat', model: ANT_ALIAS, upstream: 'anthropic' },
    { client: 'openai-compatible', model: ANT_ALIAS, upstream: 'anthropic' },
    { client: 'anthropic', model: ANT_ALIAS, upstream: 'anthropic' },
  ],
);

describe('mid-conversation system message, Anthropic pass-through', () => {
  it('reaches the upstream in place, with its anthropic-beta', async () => {
    await generateText({
      model: aiSdkModel('anthropic', `${rig.gw.url}/v1`, ANT_ALIAS),
      allowSystemInMessages: true,
      messages: [
        { role: 'system', content: 'be kind' },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
        { role: 'system', content: 'now be terse' },
        { role: 'user', content: 'hello there' },
      ],
      maxRetries: 0,
    });
    const req = rig.up.accepted.at(-1);
    expect(req?.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'system', 'user']);
    expect(String(req?.headers['anthropic-beta'])).toContain('mid-conversation-system-2026-04-07');
  });
});

describe.each(CLIENTS)('%s: gateway errors parsed into APICallError', (client) => {
  async function failure(model: string, key: string): Promise<APICallError> {
    const err = await generateText({ model: modelOf(client, model, key), prompt: 'hello', maxRetries: 0 }).catch(
      (e: unknown) => e,
    );
    expect(APICallError.isInstance(err), String(err)).toBe(true);
    return err as APICallError;
  }

  it('403 model_not_allowed, with the gateway message', async () => {
    const err = await failure(ANT_ALIAS, LIMITED_KEY);
    expect(err.statusCode).toBe(403);
    expect(err.isRetryable).toBe(false);
    expect(err.message).toMatch(/team\/claude/);
  });

  it('404 for an unknown model', async () => {
    expect((await failure('team/nope', CLIENT_KEY)).statusCode).toBe(404);
  });

  it('401 for a wrong key', async () => {
    expect((await failure(ANT_ALIAS, 'not-a-gateway-key')).statusCode).toBe(401);
  });

  it('429 budget_exceeded, naming the budget', async () => {
    const err = await failure(ANT_ALIAS, BROKE_KEY);
    expect(err.statusCode).toBe(429);
    expect(err.message).toMatch(/broke-total/);
    expect(err.responseHeaders?.['x-should-retry']).toBe('false');
  });
});
