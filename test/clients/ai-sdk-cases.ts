/**
 * AI SDK pieces shared by test/clients/ai-sdk*.test.ts: the providers pointed at the gateway, and
 * the structured-output cases, registered for whichever cells a test file runs. `openai` is
 * @ai-sdk/openai's default, the provider called as a function: the Responses API (POST /v1/responses).
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateObject, generateText, Output, streamObject, streamText, type LanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CLIENT_KEY, keepResponsesStreams, RECIPE, type UpstreamFormat } from './client-gateway.js';

export type ClientName = 'openai' | 'openai.chat' | 'openai-compatible' | 'anthropic';

/**
 * A language model of one of the providers; `baseURL` is the gateway's `/v1`. The Responses model's
 * streams are kept for the rig's order check.
 */
export function aiSdkModel(client: ClientName, baseURL: string, model: string, key = CLIENT_KEY): LanguageModel {
  switch (client) {
    case 'openai':
      return createOpenAI({ baseURL, apiKey: key, fetch: keepResponsesStreams })(model);
    case 'openai.chat':
      return createOpenAI({ baseURL, apiKey: key }).chat(model);
    case 'openai-compatible':
      return createOpenAICompatible({ name: 'gateway', baseURL, apiKey: key, includeUsage: true }).chatModel(model);
    case 'anthropic':
      return createAnthropic({ baseURL, apiKey: key }).messages(model);
  }
}

export const RECIPE_SCHEMA = z.object({ name: z.string(), servings: z.number().int(), steps: z.array(z.string()) });
/** @ai-sdk/anthropic: use `output_config.format` whatever the model name. */
export const OUTPUT_FORMAT = { anthropic: { structuredOutputMode: 'outputFormat' } };
// Real OpenAI refuses `json_object` unless a message says "json"; the SDKs leave that to the prompt.
const RECIPE_PROMPT = 'a recipe please, as JSON';

/**
 * A structured-output cell. The providers pick their mechanism from the model name and settings:
 * @ai-sdk/openai sends `response_format: json_schema` (strict), its Responses model `text.format:
 * json_schema` (strict); @ai-sdk/openai-compatible
 * `json_object`; @ai-sdk/anthropic a forced `json` tool for a name it does not know (an alias) and
 * `output_config.format` for a Claude id or with OUTPUT_FORMAT.
 */
export interface StructuredCell {
  client: ClientName;
  model: string;
  upstream: UpstreamFormat;
  how: string;
  providerOptions?: Record<string, Record<string, string>>;
}

/** generateObject, streamObject and generateText + Output.object for each cell; RECIPE expected. */
export function describeStructuredOutput(baseURL: () => string, cells: StructuredCell[]): void {
  describe.each(cells)(
    'structured output: $client → $upstream upstream ($model, $how)',
    ({ client, model, providerOptions }) => {
      const lm = () => aiSdkModel(client, baseURL(), model);

      it('generateObject', async () => {
        const r = await generateObject({
          model: lm(),
          schema: RECIPE_SCHEMA,
          prompt: RECIPE_PROMPT,
          providerOptions,
          maxRetries: 0,
        });
        expect(r.object).toEqual(RECIPE);
        expect(r.usage.outputTokens).toBeGreaterThan(0);
      });

      it('streamObject', async () => {
        const r = streamObject({
          model: lm(),
          schema: RECIPE_SCHEMA,
          prompt: RECIPE_PROMPT,
          providerOptions,
          maxRetries: 0,
        });
        let partials = 0;
        for await (const _ of r.partialObjectStream) partials++;
        expect(await r.object).toEqual(RECIPE);
        expect(partials).toBeGreaterThan(0);
        expect((await r.usage).inputTokens).toBeGreaterThan(0);
      });

      it('generateText with output: Output.object', async () => {
        const r = await generateText({
          model: lm(),
          output: Output.object({ schema: RECIPE_SCHEMA }),
          prompt: RECIPE_PROMPT,
          providerOptions,
          maxRetries: 0,
        });
        expect(r.output).toEqual(RECIPE);
      });
    },
  );
}

/** What the upstream must have received for the reasoning setting to count as carried. */
export function expectReasoningSent(body: any, upstream: UpstreamFormat): void {
  if (upstream === 'openai') {
    expect(body.reasoning_effort).toEqual(expect.any(String));
  } else if (upstream === 'responses') {
    expect(body.reasoning?.effort).toEqual(expect.any(String));
  } else {
    expect(body.thinking?.type).toMatch(/^(enabled|adaptive)$/);
    if (body.thinking.type === 'enabled') expect(body.max_tokens).toBeGreaterThan(body.thinking.budget_tokens);
  }
}

/**
 * A reasoning cell: the provider's own reasoning option (OpenAI `reasoningEffort`, Anthropic
 * `thinking` / `effort`) on a reasoning-capable model of either format. `reasoningText`: the
 * client surfaces the upstream's reasoning text (Anthropic thinking blocks, or `reasoning_content`
 * for openai-compatible); @ai-sdk/openai reads no reasoning text from Chat Completions.
 */
export interface ReasoningCell {
  client: ClientName;
  model: string;
  upstream: UpstreamFormat;
  how: string;
  providerOptions: Record<string, Record<string, unknown>>;
  reasoningText: boolean;
}

/** The prompt `think …` makes the upstream reply with thinking `step by step` and text `thought it through`. */
export function describeReasoning(baseURL: () => string, lastBody: () => any, cells: ReasoningCell[]): void {
  describe.each(cells)(
    'reasoning: $client → $upstream upstream ($model, $how)',
    ({ client, model, upstream, providerOptions, reasoningText }) => {
      const args = () => ({
        model: aiSdkModel(client, baseURL(), model),
        prompt: 'think it over',
        providerOptions: providerOptions as never,
        maxRetries: 0,
      });

      it('generateText', async () => {
        const r = await generateText(args());
        expectReasoningSent(lastBody(), upstream);
        expect(r.text).toBe('thought it through');
        if (reasoningText) expect(r.reasoningText).toBe('step by step');
      });

      it('streamText', async () => {
        const r = streamText({ ...args(), onError: () => {} });
        let text = '';
        for await (const part of r.fullStream) {
          if (part.type === 'text-delta') text += part.text;
          if (part.type === 'error') throw part.error;
        }
        expectReasoningSent(lastBody(), upstream);
        expect(text).toBe('thought it through');
        if (reasoningText) expect(await r.reasoningText).toBe('step by step');
        expect((await r.usage).outputTokens).toBeGreaterThan(0);
      });
    },
  );
}

/**
 * A system message in the middle of the conversation (after a first system prompt): OpenAI chat
 * takes it as it is; @ai-sdk/anthropic sends it as `role: "system"` in `messages` with the
 * `mid-conversation-system-2026-04-07` beta. The upstream must receive its text.
 */
export function describeMidConversationSystem(
  baseURL: () => string,
  lastRequest: () => { body: any; headers: Record<string, unknown> } | undefined,
  cells: Array<{ client: ClientName; model: string; upstream: UpstreamFormat }>,
): void {
  describe.each(cells)(
    'mid-conversation system message: $client → $upstream upstream ($model)',
    ({ client, model }) => {
      it('generateText', async () => {
        const r = await generateText({
          model: aiSdkModel(client, baseURL(), model),
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
        expect(r.text).toBe('echo: hello there');
        const sent = JSON.stringify(lastRequest()?.body);
        expect(sent).toContain('be kind');
        expect(sent).toContain('now be terse');
      });
    },
  );
}
