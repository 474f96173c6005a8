import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../src/core/canonical.js';
import { encodeGeminiRequest } from '../../../../src/formats/gemini/request-encode.js';
import { toGeminiSchema } from '../../../../src/formats/gemini/schema.js';
import { geminiToolCallId } from '../../../../src/formats/gemini-tool-ids.js';

const base = (over: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'g/flash',
  system: [],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
  tools: [],
  stream: false,
  includeUsage: false,
  unmapped: [],
  ...over,
});
const target = { model: 'gemini-2.5-flash' };
const SIGNATURE = 'CiQBcsjafDxu2nS+0tk1Yx8Vq9Ya3cM6Xq8Zc1hB0YzE9Jw=';

describe('encodeGeminiRequest', () => {
  it("calls no Gemini model signed: the first of each model step gets Google's placeholder on a thinking model", () => {
    const signed = geminiToolCallId({ name: 'a', args: '{}', signature: SIGNATURE }, 0, 'r');
    const call = (id: string, name: string) => ({ type: 'tool_call' as const, id, name, arguments: '{}' });
    const result = (id: string) => ({
      type: 'tool_result' as const,
      toolCallId: id,
      content: [{ type: 'text' as const, text: 'ok' }],
    });
    const messages: ChatRequest['messages'] = [
      { role: 'user', content: [{ type: 'text', text: 'Go' }] },
      { role: 'assistant', content: [call('toolu_1', 'a'), call('toolu_2', 'b')] },
      { role: 'user', content: [result('toolu_1'), result('toolu_2')] },
      { role: 'assistant', content: [{ type: 'text', text: 'Next' }, call(signed, 'a')] },
      { role: 'user', content: [result(signed)] },
    ];
    const modelParts = (model: string) =>
      (encodeGeminiRequest(base({ messages }), { model }).contents as Array<{ role: string; parts: unknown[] }>)
        .filter((c) => c.role === 'model')
        .map((c) => c.parts);
    expect(modelParts('gemini-3-pro-preview')).toEqual([
      [
        { functionCall: { name: 'a', args: {} }, thoughtSignature: 'skip_thought_signature_validator' },
        { functionCall: { name: 'b', args: {} } },
      ],
      [{ text: 'Next' }, { functionCall: { name: 'a', args: {} }, thoughtSignature: SIGNATURE }],
    ]);
    // A model that does not think checks no signature: nothing is added.
    expect(modelParts('gemini-2.0-flash')[0]).toEqual([
      { functionCall: { name: 'a', args: {} } },
      { functionCall: { name: 'b', args: {} } },
    ]);
  });

  it('a tool loop: roles, system, the signed call sent back with its signature, the result by name', () => {
    const id = geminiToolCallId({ name: 'get_weather', args: '{"city":"Paris"}', signature: SIGNATURE }, 0, 'r');
    const dropped: string[] = [];
    const body = encodeGeminiRequest(
      base({
        system: [{ type: 'text', text: 'Be brief.' }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'summary', signature: 'anthropic-sig' },
              { type: 'tool_call', id, name: 'get_weather', arguments: '{"city":"Paris"}' },
            ],
          },
          { role: 'system', content: [{ type: 'text', text: 'Use Celsius.' }] },
          {
            role: 'user',
            content: [{ type: 'tool_result', toolCallId: id, content: [{ type: 'text', text: '18C' }] }],
          },
          {
            role: 'user',
            content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } }],
          },
        ],
        tools: [
          {
            name: 'get_weather',
            description: 'Weather',
            parameters: {
              type: 'object',
              properties: { city: { type: 'string' } },
              required: ['city'],
              additionalProperties: false,
            },
          },
          { name: 'get_time', parameters: { type: 'object', properties: {} } },
        ],
        toolChoice: { type: 'tool', name: 'get_weather' },
        parallelToolCalls: false,
        maxTokens: 300,
        stop: ['END'],
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        user: 'u-1',
        hints: ['prompt_cache_key'],
      }),
      target,
      dropped,
    );
    expect(body).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        {
          role: 'model',
          parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SIGNATURE }],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_weather', response: { output: '18C' } } },
            { inlineData: { mimeType: 'image/png', data: 'iVBO' } },
          ],
        },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Use Celsius.' }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Weather',
              parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
            },
            { name: 'get_time' },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
      generationConfig: { maxOutputTokens: 300, stopSequences: ['END'], temperature: 0.2, topP: 0.9, topK: 40 },
    });
    expect(dropped).toEqual([
      'prompt_cache_key',
      'user',
      'messages.reasoning',
      'tools.parameters.additionalProperties',
      'parallel_tool_calls',
    ]);
  });

  it('tool choice modes, structured output, default cap', () => {
    const mode = (type: 'auto' | 'none' | 'required') =>
      (
        encodeGeminiRequest(
          base({ tools: [{ name: 't', parameters: { type: 'object' } }], toolChoice: { type } }),
          target,
        ).toolConfig as { functionCallingConfig: unknown }
      ).functionCallingConfig;
    expect([mode('auto'), mode('none'), mode('required')]).toEqual([
      { mode: 'AUTO' },
      { mode: 'NONE' },
      { mode: 'ANY' },
    ]);
    const schema = { type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: false };
    const structured = encodeGeminiRequest(base({ responseFormat: { type: 'json_schema', schema } }), {
      model: 'gemini-2.0-flash',
      maxOutputTokens: 8192,
    });
    expect(structured.generationConfig).toEqual({
      maxOutputTokens: 8192,
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
    expect(encodeGeminiRequest(base({ responseFormat: { type: 'json_object' } }), target).generationConfig).toEqual({
      maxOutputTokens: 4096,
      responseMimeType: 'application/json',
    });
  });

  it('thinking: a budget, an effort on 2.5, a level on 3, dropped on a model that does not think', () => {
    const config = (reasoning: ChatRequest['reasoning'], model: string, dropped: string[] = []) =>
      (encodeGeminiRequest(base({ reasoning }), { model }, dropped).generationConfig as { thinkingConfig?: unknown })
        .thinkingConfig;
    expect(config({ budgetTokens: 2048 }, 'gemini-2.5-flash')).toEqual({ includeThoughts: true, thinkingBudget: 2048 });
    expect(config({ effort: 'medium' }, 'gemini-2.5-pro')).toEqual({ includeThoughts: true, thinkingBudget: 4096 });
    expect(config({ effort: 'minimal' }, 'gemini-2.5-flash')).toEqual({ thinkingBudget: 0 });
    expect(config({ effort: 'minimal' }, 'gemini-2.5-pro')).toEqual({ thinkingBudget: 128 });
    expect(config({ effort: 'high' }, 'gemini-3-pro-preview')).toEqual({
      includeThoughts: true,
      thinkingLevel: 'high',
    });
    expect(config({ effort: 'low' }, 'gemini-3-pro-preview')).toEqual({ includeThoughts: true, thinkingLevel: 'low' });
    expect(config({ adaptive: true }, 'gemini-2.5-flash')).toEqual({ includeThoughts: true, thinkingBudget: -1 });
    const dropped: string[] = [];
    expect(config({ effort: 'high', fields: ['reasoning_effort'] }, 'gemini-2.0-flash', dropped)).toBeUndefined();
    expect(dropped).toEqual(['reasoning_effort']);
  });

  it('refuses what Gemini cannot carry, by name', () => {
    const refusal = (over: Partial<ChatRequest>) => {
      try {
        encodeGeminiRequest(base(over), target);
      } catch (e) {
        return [(e as { param?: string }).param, (e as Error).message];
      }
      return undefined;
    };
    expect(
      refusal({
        messages: [{ role: 'user', content: [{ type: 'image', source: { kind: 'url', url: 'https://x/y.png' } }] }],
      }),
    ).toEqual([
      'messages[0]',
      'An image in messages[0] is given by URL; a Gemini model takes images as base64 data only.',
    ]);
    expect(
      refusal({ messages: [{ role: 'user', content: [{ type: 'tool_result', toolCallId: 'c1', content: [] }] }] }),
    ).toEqual(['messages[0]', 'The tool result in messages[0] answers "c1", which no earlier tool call has as id.']);
    expect(refusal({ unmapped: ['logprobs'] })).toEqual([
      'logprobs',
      'logprobs cannot be translated to the Gemini format.',
    ]);
    expect(refusal({ n: 2 })).toEqual(['n', 'n above 1 cannot be sent to a Gemini model through the gateway.']);
    const withTools: Partial<ChatRequest> = {
      tools: [{ name: 't', parameters: { type: 'object' } }],
      responseFormat: { type: 'json_object' },
    };
    expect(refusal(withTools)).toEqual([
      'response_format',
      'Structured output cannot be combined with tools on Gemini models before Gemini 3.',
    ]);
    expect(() => encodeGeminiRequest(base(withTools), { model: 'gemini-3-pro-preview' })).not.toThrow();
  });
});

describe('toGeminiSchema', () => {
  it('nullable types, const, oneOf, local refs inlined, formats and enums Gemini takes; the rest listed', () => {
    const dropped: string[] = [];
    const out = toGeminiSchema(
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { Unit: { type: 'string', enum: ['C', 'F'] } },
        properties: {
          unit: { $ref: '#/$defs/Unit' },
          note: { type: ['string', 'null'], maxLength: 20 },
          kind: { const: 'weather' },
          at: {
            oneOf: [
              { type: 'string', format: 'date-time' },
              { type: 'integer', exclusiveMinimum: 0 },
            ],
          },
          tags: { type: 'array', items: { type: 'string', format: 'uri' }, uniqueItems: true },
          level: { type: 'integer', enum: [1, 2], format: 'int32' },
          extra: { type: 'object', properties: {} },
        },
      },
      'tools[0].parameters',
      dropped,
    );
    expect(out).toEqual({
      type: 'OBJECT',
      properties: {
        unit: { type: 'STRING', enum: ['C', 'F'] },
        note: { nullable: true, type: 'STRING', maxLength: 20 },
        kind: { enum: ['weather'], type: 'STRING' },
        at: { anyOf: [{ type: 'STRING', format: 'date-time' }, { type: 'INTEGER' }] },
        tags: { type: 'ARRAY', items: { type: 'STRING' } },
        level: { type: 'INTEGER', format: 'int32' },
        extra: { type: 'OBJECT' },
      },
    });
    expect(dropped).toEqual([
      'tools.parameters.exclusiveMinimum',
      'tools.parameters.format',
      'tools.parameters.uniqueItems',
      'tools.parameters.enum',
    ]);
  });

  it('refuses a ref it cannot inline and a schema that refers to itself', () => {
    expect(() => toGeminiSchema({ $ref: 'https://x/s.json' }, 'tools[1].parameters', [])).toThrow(
      'tools[1].parameters refers to "https://x/s.json", which Gemini cannot be sent.',
    );
    const loop = { $defs: { N: { type: 'object', properties: { next: { $ref: '#/$defs/N' } } } }, $ref: '#/$defs/N' };
    expect(() => toGeminiSchema(loop, 'tools[0].parameters', [])).toThrow('nests deeper than 32 levels');
  });
});
