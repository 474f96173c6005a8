/**
 * LangChain pieces shared by test/clients/langchain*.test.ts: the two chat models pointed at the
 * gateway, and cases registered for whichever cells a test file runs.
 */
import { ChatAnthropic } from '@langchain/anthropic';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type AIMessageChunk, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CLIENT_KEY, RECIPE } from './client-gateway.js';

export type ClientName = 'ChatOpenAI' | 'ChatAnthropic';

/** `gatewayUrl` without /v1: ChatOpenAI gets `<url>/v1`, ChatAnthropic's SDK appends /v1 itself. */
export function chatModel(client: ClientName, gatewayUrl: string, model: string, key = CLIENT_KEY): BaseChatModel {
  if (client === 'ChatOpenAI')
    return new ChatOpenAI({ model, apiKey: key, configuration: { baseURL: `${gatewayUrl}/v1` }, maxRetries: 0 });
  return new ChatAnthropic({ model, apiKey: key, anthropicApiUrl: gatewayUrl, maxRetries: 0, maxTokens: 500 });
}

export function textOf(m: BaseMessage): string {
  return typeof m.content === 'string'
    ? m.content
    : m.content.map((p) => (p.type === 'text' ? (p as { text: string }).text : '')).join('');
}

/** All chunks of a stream, concatenated as LangChain does. */
export async function streamAll(model: BaseChatModel, input: BaseMessage[]): Promise<AIMessageChunk> {
  let full: AIMessageChunk | undefined;
  for await (const c of await model.stream(input)) full = full === undefined ? c : full.concat(c);
  expect(full, 'the stream yielded chunks').toBeDefined();
  return full!;
}

export interface Cell {
  client: ClientName;
  model: string;
  upstream: 'openai' | 'anthropic';
}

/** `.stream()`: the text adds up and usage_metadata has non-zero input and output tokens. */
export function describeStreamUsage(gatewayUrl: () => string, cells: Cell[]): void {
  describe.each(cells)('$client → $upstream upstream ($model)', ({ client, model }) => {
    it('stream: chunks add up, usage present and non-zero', async () => {
      const full = await streamAll(chatModel(client, gatewayUrl(), model), [new HumanMessage('hello there')]);
      expect(textOf(full)).toBe('echo: hello there');
      expect(full.usage_metadata?.input_tokens).toBeGreaterThan(0);
      expect(full.usage_metadata?.output_tokens).toBeGreaterThan(0);
    });
  });
}

export const RECIPE_SCHEMA = z.object({ name: z.string(), servings: z.number().int(), steps: z.array(z.string()) });

/**
 * A withStructuredOutput cell. ChatOpenAI's default method is `jsonSchema` (`response_format:
 * json_schema`), `jsonMode` sends `json_object`, `functionCalling` a forced tool; ChatAnthropic's
 * default is `functionCalling` (a forced tool), `jsonSchema` sends `output_config.format`.
 */
export interface StructuredCell extends Cell {
  method?: 'jsonSchema' | 'jsonMode' | 'functionCalling';
}

export function describeStructuredOutput(gatewayUrl: () => string, cells: StructuredCell[]): void {
  describe.each(cells)(
    'withStructuredOutput: $client → $upstream upstream ($model, method $method)',
    ({ client, model, method }) => {
      it('invoke returns the object, with the raw message and its usage', async () => {
        const structured = chatModel(client, gatewayUrl(), model).withStructuredOutput(RECIPE_SCHEMA, {
          method,
          includeRaw: true,
        });
        // Real OpenAI refuses `json_object` unless a message says "json".
        const r = await structured.invoke('a recipe please, as JSON');
        expect(r.parsed).toEqual(RECIPE);
        expect((r.raw as AIMessageChunk).usage_metadata?.input_tokens).toBeGreaterThan(0);
      });
    },
  );
}

/**
 * A reasoning cell: ChatOpenAI `reasoning_effort` (through modelKwargs) or ChatAnthropic
 * `thinking`, on a reasoning-capable model of either format. The prompt `think …` makes the upstream
 * reply with thinking `step by step` and text `thought it through`; ChatAnthropic surfaces
 * Anthropic thinking blocks as `reasoning` content blocks.
 */
export interface ReasoningCell extends Cell {
  how: string;
  reasoningText: boolean;
}

function reasoningModel(client: ClientName, gatewayUrl: string, model: string): BaseChatModel {
  // ChatOpenAI sends `reasoning: {effort}` only for model names starting o<digit> or gpt-5, which
  // a gateway name (`oai/o4-mini`, an alias) never does: modelKwargs is the way through.
  if (client === 'ChatOpenAI')
    return new ChatOpenAI({
      model,
      apiKey: CLIENT_KEY,
      configuration: { baseURL: `${gatewayUrl}/v1` },
      maxRetries: 0,
      modelKwargs: { reasoning_effort: 'low' },
    });
  return new ChatAnthropic({
    model,
    apiKey: CLIENT_KEY,
    anthropicApiUrl: gatewayUrl,
    maxRetries: 0,
    maxTokens: 4000,
    thinking: { type: 'enabled', budget_tokens: 1024 },
  });
}

function thinkingText(m: BaseMessage): string {
  if (typeof m.content === 'string') return '';
  return m.content.map((p) => (p.type === 'thinking' ? (p as unknown as { thinking: string }).thinking : '')).join('');
}

export function describeReasoning(gatewayUrl: () => string, lastBody: () => any, cells: ReasoningCell[]): void {
  describe.each(cells)(
    'reasoning: $client → $upstream upstream ($model, $how)',
    ({ client, model, upstream, reasoningText }) => {
      it.each([false, true])('stream %s', async (stream) => {
        const lm = reasoningModel(client, gatewayUrl(), model);
        const input = [new HumanMessage('think it over')];
        const r = stream ? await streamAll(lm, input) : await lm.invoke(input);
        const body = lastBody();
        if (upstream === 'openai') expect(body.reasoning_effort).toBe('low');
        else expect(body.thinking).toMatchObject({ type: 'enabled' });
        expect(textOf(r)).toBe('thought it through');
        if (reasoningText) expect(thinkingText(r)).toBe('step by step');
        expect(r.usage_metadata?.output_tokens).toBeGreaterThan(0);
      });
    },
  );
}
