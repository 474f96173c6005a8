#!/usr/bin/env node
/**
 * Captures what the JavaScript clients of the OpenAI Responses API send, and checks they accept the
 * recorder's answers: the AI SDK's default OpenAI provider (`createOpenAI({baseURL})(model)`, which
 * speaks Responses) and the openai SDK's `client.responses.create` / `client.responses.stream`,
 * each pointed at responses-recorder.mjs. Writes <out>/<scenario>.json:
 *
 *   { client, scenario, result, requests: [{ at_ms, method, path, headers, body, answer }] }
 *
 * where `result` is what the client returned (text, tool calls, object, usage) or the error it threw.
 *
 *   node test/tools/capture-responses-sdks.mjs --out test/fixtures/responses-sdks [--only a,b]
 *
 * Uses the packages installed in the repo (ai 6, @ai-sdk/openai 3, openai 6, zod).
 */

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { generateObject, generateText, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { z } from 'zod';
import { startResponsesRecorder } from './responses-recorder.mjs';

const DUMMY_KEY = 'sk-sdk-dummy-recording-key-0000';
// Read from the folder: openai's `exports` hides its package.json.
const versionOf = (pkg) =>
  JSON.parse(readFileSync(new URL(`../../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;

const weather = tool({
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, degrees: 21 }),
});

/** What a finished AI SDK call returned, without the request and response copies it keeps. */
const aiResult = (r) => ({
  text: r.text,
  steps: r.steps.length,
  toolCalls: r.steps.flatMap((s) => s.toolCalls.map((c) => ({ toolName: c.toolName, input: c.input }))),
  finishReason: r.finishReason,
  usage: r.totalUsage,
});

/** name → { client, run(recorderUrl) → result }. */
const SCENARIOS = {
  'ai-sdk-generate-text': {
    client: 'ai',
    run: async (openai) => aiResult(await generateText({ model: openai('gpt-4.1'), prompt: 'say hi' })),
  },
  'ai-sdk-stream-text': {
    client: 'ai',
    run: async (openai) => {
      const r = streamText({ model: openai('gpt-4.1'), prompt: 'say hi' });
      const chunks = [];
      for await (const c of r.textStream) chunks.push(c);
      return { chunks, finishReason: await r.finishReason, usage: await r.totalUsage };
    },
  },
  'ai-sdk-tool-round-trip': {
    client: 'ai',
    run: async (openai) =>
      aiResult(
        await generateText({
          model: openai('gpt-4.1'),
          tools: { weather },
          stopWhen: stepCountIs(2),
          prompt: 'call weather for Paris',
        }),
      ),
  },
  'ai-sdk-second-turn': {
    client: 'ai',
    run: async (openai) => {
      const first = await generateText({ model: openai('gpt-4.1'), prompt: 'say hi' });
      const messages = [
        { role: 'user', content: 'say hi' },
        ...first.response.messages,
        { role: 'user', content: 'say it again' },
      ];
      return aiResult(await generateText({ model: openai('gpt-4.1'), messages }));
    },
  },
  'ai-sdk-tool-round-trip-stream': {
    client: 'ai',
    run: async (openai) => {
      const r = streamText({
        model: openai('gpt-4.1'),
        tools: { weather },
        stopWhen: stepCountIs(2),
        prompt: 'call weather for Paris',
      });
      const parts = [];
      for await (const p of r.fullStream) parts.push(p.type);
      return { parts: [...new Set(parts)], text: await r.text, finishReason: await r.finishReason };
    },
  },
  'ai-sdk-reasoning-tool-round-trip': {
    client: 'ai',
    run: async (openai) =>
      aiResult(
        await generateText({
          model: openai('gpt-5'),
          tools: { weather },
          stopWhen: stepCountIs(2),
          prompt: 'call weather for Paris',
          providerOptions: { openai: { reasoningEffort: 'low', reasoningSummary: 'auto' } },
        }),
      ),
  },
  'ai-sdk-reasoning-tool-round-trip-store-false': {
    client: 'ai',
    run: async (openai) =>
      aiResult(
        await generateText({
          model: openai('gpt-5'),
          tools: { weather },
          stopWhen: stepCountIs(2),
          prompt: 'call weather for Paris',
          providerOptions: { openai: { store: false, reasoningEffort: 'low' } },
        }),
      ),
  },
  'ai-sdk-generate-object': {
    client: 'ai',
    run: async (openai) => {
      const r = await generateObject({
        model: openai('gpt-4.1'),
        schema: z.object({ city: z.string(), degrees: z.number() }),
        prompt: 'The weather in Paris as JSON',
      });
      return { object: r.object, finishReason: r.finishReason, usage: r.usage };
    },
  },
  'openai-sdk-create': {
    client: 'openai',
    run: async (_, client) => {
      const r = await client.responses.create({ model: 'gpt-4.1', input: 'say hi' });
      return { output_text: r.output_text, status: r.status, usage: r.usage };
    },
  },
  'openai-sdk-create-stream': {
    client: 'openai',
    run: async (_, client) => {
      const stream = await client.responses.create({ model: 'gpt-4.1', input: 'say hi', stream: true });
      const types = [];
      for await (const e of stream) types.push(e.type);
      return { types };
    },
  },
  'openai-sdk-stream-helper': {
    client: 'openai',
    run: async (_, client) => {
      const stream = client.responses.stream({ model: 'gpt-4.1', input: 'say hi' });
      const r = await stream.finalResponse();
      return { output_text: r.output_text, status: r.status };
    },
  },
  'openai-sdk-tool-round-trip': {
    client: 'openai',
    run: async (_, client) => {
      const tools = [
        {
          type: 'function',
          name: 'weather',
          description: 'The weather in a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          strict: false,
        },
      ];
      const first = await client.responses.create({ model: 'gpt-4.1', input: 'call weather for Paris', tools });
      const call = first.output.find((o) => o.type === 'function_call');
      const second = await client.responses.create({
        model: 'gpt-4.1',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"degrees":21}' }],
        tools,
      });
      return { call: call.name, output_text: second.output_text };
    },
  },
};

function arg(name) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const out = arg('out');
if (!out) {
  console.error('usage: capture-responses-sdks.mjs --out DIR [--only a,b]');
  process.exit(2);
}
const only = arg('only')?.split(',');
const subs = [];
const rec = await startResponsesRecorder({ secrets: [DUMMY_KEY], replacements: subs });
subs.push([new URL(rec.url).host, '127.0.0.1:PORT']);
const openai = createOpenAI({ baseURL: `${rec.url}/v1`, apiKey: DUMMY_KEY });
const client = new OpenAI({ baseURL: `${rec.url}/v1`, apiKey: DUMMY_KEY, maxRetries: 0 });
const versions = {
  ai: { ai: versionOf('ai'), '@ai-sdk/openai': versionOf('@ai-sdk/openai') },
  openai: { openai: versionOf('openai') },
};
try {
  mkdirSync(out, { recursive: true });
  for (const [name, s] of Object.entries(SCENARIOS)) {
    if (only && !only.includes(name)) continue;
    rec.reset();
    let result;
    try {
      result = await s.run(openai, client);
    } catch (e) {
      result = { error: `${e?.name}: ${e?.message}` };
    }
    console.error(`${name}: ${rec.requests.length} requests, ${JSON.stringify(result).slice(0, 160)}`);
    const fixture = { client: versions[s.client], scenario: name, result, requests: rec.requests };
    writeFileSync(resolve(out, `${name}.json`), `${JSON.stringify(fixture, null, 1)}\n`);
  }
} finally {
  await rec.close();
}
