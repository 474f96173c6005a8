import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/core/errors.js';
import { decodeOpenaiRequest } from '../../../../src/formats/openai-chat/request-decode.js';

const base = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

function paramOf(body: unknown): string | undefined {
  try {
    decodeOpenaiRequest(body);
  } catch (e) {
    expect(e).toBeInstanceOf(GatewayError);
    return (e as GatewayError).param;
  }
  throw new Error('expected a GatewayError');
}

describe('decodeOpenaiRequest', () => {
  it('hoists system and developer messages and keeps the conversation', () => {
    const r = decodeOpenaiRequest({
      ...base,
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'developer', content: [{ type: 'text', text: 'dev' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
            { id: 'c2', type: 'function', function: { name: 'g', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'r1' },
        { role: 'tool', tool_call_id: 'c2', content: 'r2' },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
      stop: 'END',
      max_completion_tokens: 10,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(r.system).toEqual([
      { type: 'text', text: 'sys' },
      { type: 'text', text: 'dev' },
    ]);
    expect(r.messages).toHaveLength(3);
    expect(r.messages[0].content[1]).toEqual({
      type: 'image',
      source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' },
    });
    expect(r.messages[1].content.map((c) => c.type)).toEqual(['tool_call', 'tool_call']);
    expect(r.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', toolCallId: 'c1', content: [{ type: 'text', text: 'r1' }] },
        { type: 'tool_result', toolCallId: 'c2', content: [{ type: 'text', text: 'r2' }] },
      ],
    });
    expect(r.toolChoice).toEqual({ type: 'tool', name: 'f' });
    expect(r).toMatchObject({ stop: ['END'], maxTokens: 10, stream: true, includeUsage: true });
  });

  it('names the field at fault', () => {
    expect(paramOf([])).toBe('');
    expect(paramOf({ messages: [] })).toBe('model');
    expect(paramOf({ model: 'm', messages: [] })).toBe('messages');
    expect(paramOf({ ...base, messages: [{ role: 'user' }] })).toBe('messages[0].content');
    expect(paramOf({ ...base, messages: [{ role: 'user', content: [{ type: 5 }] }] })).toBe(
      'messages[0].content[0].type',
    );
    expect(paramOf({ ...base, messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] })).toBe(
      'messages[0].content[0].text',
    );
    expect(paramOf({ ...base, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] })).toBe(
      'messages[0].content[0].image_url.url',
    );
    expect(
      paramOf({ ...base, messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: 'x' }] }] }),
    ).toBe('messages[0].content[0].input_audio');
    expect(paramOf({ ...base, messages: [{ role: 5, content: 'x' }] })).toBe('messages[0].role');
    expect(paramOf({ ...base, messages: [{ role: 'tool', content: 'x' }] })).toBe('messages[0].tool_call_id');
    expect(paramOf({ ...base, stream: 'yes' })).toBe('stream');
    expect(paramOf({ ...base, max_tokens: 0 })).toBe('max_tokens');
    expect(paramOf({ ...base, top_p: 2 })).toBe('top_p');
    expect(paramOf({ ...base, stop: 3 })).toBe('stop');
    expect(paramOf({ ...base, tools: [{ type: 'function' }] })).toBe('tools[0]');
    expect(paramOf({ ...base, tool_choice: 5 })).toBe('tool_choice');
    expect(paramOf({ ...base, tool_choice: { function: 'f' } })).toBe('tool_choice');
  });

  it(
    'leaves what it does not carry to the provider: audio and file parts, new roles, part, tool and tool_choice ' +
      'types (unmapped)',
    () => {
      const r = decodeOpenaiRequest({
        ...base,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'hi' },
              { type: 'input_audio', input_audio: { data: 'AA==', format: 'wav' } },
              { type: 'file', file: { file_id: 'file-1' } },
              { type: 'input_video', url: 'x' },
            ],
          },
          { role: 'critic', content: 'be brief' },
          { role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x.test/i.png' } }] },
          { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] },
        ],
        tools: [
          { type: 'custom', custom: { name: 'grep' } },
          { type: 'function', function: { name: 'f' } },
        ],
        tool_choice: 'sometimes',
      });
      expect(r.unmapped).toEqual([
        'messages[0].content[1]',
        'messages[0].content[2]',
        'messages[0].content[3]',
        'messages[1].role',
        'messages[2].content[0]',
        'messages[3].content[0]',
        'tools[0]',
        'tool_choice',
      ]);
      expect(r.messages[0].content).toEqual([{ type: 'text', text: 'hi' }]);
      expect(r.tools.map((t) => t.name)).toEqual(['f']);
      expect(r.toolChoice).toBeUndefined();
      expect(
        decodeOpenaiRequest({
          ...base,
          tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } },
        }).unmapped,
      ).toEqual(['tool_choice']);
    },
  );

  it('maps reasoning_effort', () => {
    expect(decodeOpenaiRequest({ ...base, reasoning_effort: 'minimal' }).reasoning).toEqual({
      effort: 'minimal',
      fields: ['reasoning_effort'],
    });
    expect(decodeOpenaiRequest({ ...base, reasoning_effort: 'high' }).reasoning).toEqual({
      effort: 'high',
      fields: ['reasoning_effort'],
    });
    expect(decodeOpenaiRequest({ ...base, reasoning_effort: 'xhigh' }).reasoning).toEqual({
      effort: 'xhigh',
      fields: ['reasoning_effort'],
    });
    expect(decodeOpenaiRequest({ ...base, reasoning_effort: 'none' }).reasoning).toBeUndefined();
    expect(decodeOpenaiRequest(base).reasoning).toBeUndefined();
    // A level the canonical model does not know passes through, but cannot be translated.
    const newer = decodeOpenaiRequest({ ...base, reasoning_effort: 'ultra' });
    expect(newer.reasoning).toBeUndefined();
    expect(newer.unmapped).toEqual(['reasoning_effort']);
    expect(paramOf({ ...base, reasoning_effort: 3 })).toBe('reasoning_effort');
  });
});

describe('decodeOpenaiRequest: unmapped fields', () => {
  const unmapped = (extra: Record<string, unknown>) => decodeOpenaiRequest({ ...base, ...extra }).unmapped;

  it('is empty for mapped fields, defaults, nulls and ignorable bookkeeping', () => {
    expect(
      unmapped({
        stream: false,
        stream_options: null,
        max_tokens: 5,
        temperature: 1,
        top_p: 1,
        stop: null,
        user: 'u',
        parallel_tool_calls: true,
        n: 1,
        logprobs: false,
        top_logprobs: 0,
        logit_bias: {},
        presence_penalty: 0,
        frequency_penalty: 0,
        response_format: { type: 'text' },
        modalities: ['text'],
        functions: [],
        seed: null,
        audio: null,
        prediction: null,
        store: true,
        metadata: { team: 'a' },
        service_tier: 'flex',
      }),
    ).toEqual([]);
  });

  it('names every field with a non-default value and no canonical form', () => {
    expect(
      unmapped({
        n: 2,
        logprobs: true,
        top_logprobs: 3,
        logit_bias: { '50256': -100 },
        presence_penalty: 0.5,
        frequency_penalty: -0.5,
        seed: 42,
        audio: { voice: 'alloy', format: 'wav' },
        modalities: ['text', 'audio'],
        web_search_options: {},
        functions: [{ name: 'f' }],
        function_call: 'auto',
        verbosity: 'low',
      }),
    ).toEqual([
      'n',
      'logprobs',
      'top_logprobs',
      'logit_bias',
      'presence_penalty',
      'frequency_penalty',
      'seed',
      'audio',
      'modalities',
      'web_search_options',
      'functions',
      'function_call',
      'verbosity',
    ]);
  });

  it('names unknown top-level fields', () => {
    expect(unmapped({ top_k: 40, repetition_penalty: 1.1 })).toEqual(['top_k', 'repetition_penalty']);
    expect(unmapped({ response_format: { type: 'grammar', grammar: 'x' } })).toEqual(['response_format']);
  });

  it('lists hints (dropped by translation), never unmapped', () => {
    const r = decodeOpenaiRequest({
      ...base,
      store: true,
      metadata: { a: 'b' },
      prompt_cache_key: 'k',
      safety_identifier: 'h',
      prediction: { type: 'content', content: 'x' },
      service_tier: null,
    });
    expect(r.unmapped).toEqual([]);
    expect(r.hints).toEqual(['store', 'metadata', 'prompt_cache_key', 'safety_identifier', 'prediction']);
  });

  it('maps response_format json_schema and json_object; text is the default', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(
      decodeOpenaiRequest({
        ...base,
        response_format: { type: 'json_schema', json_schema: { name: 's', description: 'd', strict: true, schema } },
      }).responseFormat,
    ).toEqual({ type: 'json_schema', name: 's', description: 'd', strict: true, schema });
    expect(decodeOpenaiRequest({ ...base, response_format: { type: 'json_object' } }).responseFormat).toEqual({
      type: 'json_object',
    });
    expect(decodeOpenaiRequest({ ...base, response_format: { type: 'text' } }).responseFormat).toBeUndefined();
    expect(paramOf({ ...base, response_format: { type: 'json_schema' } })).toBe('response_format.json_schema');
    expect(paramOf({ ...base, response_format: { type: 'json_schema', json_schema: { name: 1 } } })).toBe(
      'response_format.json_schema.name',
    );
  });

  it('system messages after the first turn stay in place', () => {
    const r = decodeOpenaiRequest({
      ...base,
      messages: [
        { role: 'developer', content: 'a' },
        { role: 'user', content: 'q' },
        { role: 'system', content: 'b' },
        { role: 'user', content: 'r' },
      ],
    });
    expect(r.system).toEqual([{ type: 'text', text: 'a' }]);
    expect(r.messages.map((m) => m.role)).toEqual(['user', 'system', 'user']);
  });
});
