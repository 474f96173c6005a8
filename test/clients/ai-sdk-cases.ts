/**
 * AI SDK pieces shared by test/clients/ai-sdk*.test.ts: the three providers pointed at the gateway,
 * and the structured-output cases, registered for whichever cells a test file runs.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateObject, generateText, Output, streamObject, type LanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CLIENT_KEY, RECIPE } from './client-gateway.js';

export type ClientName = 'openai.chat' | 'openai-compatible' | 'anthropic';

/** A language model of one of the three providers; `baseURL` is the gateway's `/v1`. */
export function aiSdkModel(client: ClientName, baseURL: string, model: string, key = CLIENT_KEY): LanguageModel {
  switch (client) {
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
 * @ai-sdk/openai sends `response_format: json_schema` (strict); @ai-sdk/openai-compatible
 * `json_object`; @ai-sdk/anthropic a forced `json` tool for a name it does not know (an alias) and
 * `output_config.format` for a Claude id or with OUTPUT_FORMAT.
 */
export interface StructuredCell {
  client: ClientName;
  model: string;
  upstream: 'openai' | 'anthropic';
  how: string;
  providerOptions?: Record<string, Record<string, string>>;
}

/** generateObject, streamObject and generateText + Output.object for each cell; RECIPE expected. */
export function describeStructuredOutput(baseURL: () => string, cells: StructuredCell[]): void {
  describe.each(cells)('structured output: $client → $upstream upstream ($model, $how)', ({ client, model, providerOptions }) => {
    const lm = () => aiSdkModel(client, baseURL(), model);

    it('generateObject', async () => {
      const r = await generateObject({ model: lm(), schema: RECIPE_SCHEMA, prompt: RECIPE_PROMPT, providerOptions, maxRetries: 0 });
      expect(r.object).toEqual(RECIPE);
      expect(r.usage.outputTokens).toBeGreaterThan(0);
    });

    it('streamObject', async () => {
      const r = streamObject({ model: lm(), schema: RECIPE_SCHEMA, prompt: RECIPE_PROMPT, providerOptions, maxRetries: 0 });
      let partials = 0;
      for await (const _ of r.partialObjectStream) partials++;
      expect(await r.object).toEqual(RECIPE);
      expect(partials).toBeGreaterThan(0);
      expect((await r.usage).inputTokens).toBeGreaterThan(0);
    });

    it('generateText with output: Output.object', async () => {
      const r = await generateText({ model: lm(), output: Output.object({ schema: RECIPE_SCHEMA }), prompt: RECIPE_PROMPT, providerOptions, maxRetries: 0 });
      expect(r.output).toEqual(RECIPE);
    });
  });
}
