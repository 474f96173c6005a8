import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/core/errors.js';
import { decodeAnthropicRequest } from '../../../../src/formats/anthropic-messages/request-decode.js';

const base = { model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };

function paramOf(body: unknown): string | undefined {
  try {
    decodeAnthropicRequest(body);
  } catch (e) {
    expect(e).toBeInstanceOf(GatewayError);
    expect((e as GatewayError).code).toBe('invalid_request');
    expect((e as GatewayError).status).toBe(400);
    return (e as GatewayError).param;
  }
  throw new Error('expected a GatewayError');
}

describe('decodeAnthropicRequest', () => {
  it('maps every supported field', () => {
    const r = decodeAnthropicRequest({
      model: 'claude-x',
      max_tokens: 1024,
      system: [
        { type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'be kind' },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look', cache_control: { type: 'ephemeral' } },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'text', text: 'calling' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'boom' }], is_error: true },
            { type: 'text', text: 'thanks' },
          ],
        },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } } },
          cache_control: { type: 'ephemeral' },
        },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      stop_sequences: ['END'],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      stream: true,
      metadata: { user_id: 'u-42' },
      thinking: { type: 'enabled', budget_tokens: 2048 },
      service_tier: 'auto',
      cache_control: { type: 'ephemeral' },
    });
    expect(r).toEqual({
      model: 'claude-x',
      system: [
        { type: 'text', text: 'be brief' },
        { type: 'text', text: 'be kind' },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'hmm', signature: 'sig' },
            { type: 'text', text: 'calling' },
            { type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', toolCallId: 'toolu_1', content: [{ type: 'text', text: '18°C' }] },
            { type: 'tool_result', toolCallId: 'toolu_2', content: [{ type: 'text', text: 'boom' }], isError: true },
            { type: 'text', text: 'thanks' },
          ],
        },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
      toolChoice: { type: 'required' },
      parallelToolCalls: false,
      maxTokens: 1024,
      temperature: 0.5,
      topP: 0.9,
      topK: 40,
      stop: ['END'],
      stream: true,
      includeUsage: false,
      user: 'u-42',
      reasoning: { budgetTokens: 2048, fields: ['thinking'] },
      unmapped: [],
      hints: ['cache_control'],
    });
  });

  it('has simple defaults', () => {
    const r = decodeAnthropicRequest({
      ...base,
      system: 'sys',
      thinking: { type: 'disabled' },
      metadata: { user_id: null },
    });
    expect(r).toMatchObject({
      system: [{ type: 'text', text: 'sys' }],
      stream: false,
      includeUsage: false,
      tools: [],
      unmapped: [],
    });
    expect(r.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    expect(r.reasoning).toBeUndefined();
    expect(r.user).toBeUndefined();
    expect(r.toolChoice).toBeUndefined();
    expect(r.parallelToolCalls).toBeUndefined();
  });

  it('does not require max_tokens in a token-counting body', () => {
    const { max_tokens: _omit, ...counting } = base;
    expect(decodeAnthropicRequest(counting, { forCounting: true }).maxTokens).toBeUndefined();
    expect(decodeAnthropicRequest({ ...counting, max_tokens: 9 }, { forCounting: true }).maxTokens).toBe(9);
    expect(() => decodeAnthropicRequest({ ...counting, max_tokens: 0 }, { forCounting: true })).toThrow(GatewayError);
    expect(() => decodeAnthropicRequest(counting)).toThrow(GatewayError);
  });

  it('maps each tool_choice type', () => {
    const choice = (tc: unknown) => {
      const r = decodeAnthropicRequest({ ...base, tool_choice: tc });
      return [r.toolChoice, r.parallelToolCalls];
    };
    expect(choice({ type: 'auto' })).toEqual([{ type: 'auto' }, undefined]);
    expect(choice({ type: 'any' })).toEqual([{ type: 'required' }, undefined]);
    expect(choice({ type: 'none' })).toEqual([{ type: 'none' }, undefined]);
    expect(choice({ type: 'tool', name: 'f', disable_parallel_tool_use: true })).toEqual([
      { type: 'tool', name: 'f' },
      false,
    ]);
    expect(choice({ type: 'auto', disable_parallel_tool_use: false })).toEqual([{ type: 'auto' }, undefined]);
  });

  it(
    'sorts what it cannot represent: provider-side hints (dropped by translation) and fields that change the output ' +
      '(unmapped)',
    () => {
      const r = decodeAnthropicRequest({
        ...base,
        messages: [
          { role: 'user', content: 'hi' },
          {
            role: 'assistant',
            content: [
              { type: 'redacted_thinking', data: 'xyz' },
              { type: 'text', text: 'ok' },
            ],
          },
          { role: 'user', content: 'go on' },
        ],
        service_tier: 'standard_only',
        container: 'container_abc',
        mcp_servers: [{ type: 'url', url: 'https://mcp.example.com', name: 'x' }],
        speed: 'standard',
        context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
        inference_geo: undefined,
        thinking: { type: 'between_tools' },
        brand_new: 1,
      });
      expect(r.unmapped).toEqual(['mcp_servers', 'brand_new', 'thinking']);
      expect(r.hints).toEqual(['service_tier', 'container', 'context_management']);
      // Earlier-turn reasoning, redacted or not, is reasoning: one rule when translated.
      expect(r.messages[1].content).toEqual([
        { type: 'reasoning', text: '', redacted: 'xyz' },
        { type: 'text', text: 'ok' },
      ]);
      expect(r.reasoning).toBeUndefined();
    },
  );

  it(
    'maps what current clients send: ' + 'mid-conversation system messages, adaptive thinking, effort, output format',
    () => {
      const r = decodeAnthropicRequest({
        ...base,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
          { role: 'system', content: 'agents: claude' },
          {
            role: 'system',
            content: [
              { type: 'text', text: 'a' },
              { type: 'image', source: { type: 'url', url: 'u' } },
            ],
          },
        ],
        thinking: { type: 'adaptive', display: 'summarized' },
        output_config: {
          effort: 'high',
          format: { type: 'json_schema', schema: { type: 'object', additionalProperties: false } },
        },
      });
      expect(r.messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'system', content: [{ type: 'text', text: 'agents: claude' }] },
        { role: 'system', content: [{ type: 'text', text: 'a' }] },
      ]);
      expect(r.unmapped).toEqual(['messages[2].content[1]']);
      expect(r.hints).toEqual(['cache_control', 'thinking.display']);
      expect(r.reasoning).toEqual({ adaptive: true, effort: 'high', fields: ['thinking', 'output_config.effort'] });
      expect(r.responseFormat).toEqual({
        type: 'json_schema',
        schema: { type: 'object', additionalProperties: false },
      });
    },
  );

  it('output_config: an unknown effort or format type or member is unmapped; a bad schema is a 400', () => {
    const r = decodeAnthropicRequest({
      ...base,
      output_config: { effort: 'ludicrous', format: { type: 'grammar' }, task_budget: { total: 1 } },
    });
    expect(r.unmapped).toEqual(['output_config.effort', 'output_config.task_budget', 'output_config.format']);
    expect(() =>
      decodeAnthropicRequest({ ...base, output_config: { format: { type: 'json_schema', schema: 'x' } } }),
    ).toThrow(/output_config.format.schema/);
    expect(
      decodeAnthropicRequest({ ...base, output_format: { type: 'json_schema', schema: { type: 'object' } } })
        .responseFormat,
    ).toEqual({ type: 'json_schema', schema: { type: 'object' } });
    expect(
      decodeAnthropicRequest({ ...base, thinking: { type: 'disabled' }, output_config: { effort: 'low' } }).reasoning,
    ).toEqual({ effort: 'low', fields: ['output_config.effort'] });
  });

  it('forwards Anthropic-defined tools and earlier server-tool blocks as unmapped (pass-through only)', () => {
    const r = decodeAnthropicRequest({
      ...base,
      messages: [
        { role: 'user', content: 'news?' },
        {
          role: 'assistant',
          content: [
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'news' } },
            { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
            { type: 'text', text: 'Here.' },
          ],
        },
        { role: 'user', content: 'thanks' },
      ],
      tools: [
        { type: 'web_search_20250305', name: 'web_search' },
        { name: 'f', input_schema: { type: 'object' } },
        { type: 'bash_20250124', name: 'bash' },
      ],
    });
    expect(r.unmapped).toEqual(['messages[1].content[0]', 'messages[1].content[1]', 'tools[0]', 'tools[2]']);
    expect(r.tools).toEqual([{ name: 'f', description: undefined, parameters: { type: 'object' } }]);
    expect(r.messages[1].content).toEqual([{ type: 'text', text: 'Here.' }]);
  });

  it(
    'leaves what it does not carry to the provider: new roles and block types, documents, Files-API images, new ' +
      'tool_choice types (unmapped)',
    () => {
      const r = decodeAnthropicRequest({
        ...base,
        system: [{ type: 'text', text: 's' }, { type: 'future_system_block' }],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'hi' },
              { type: 'document', source: { type: 'text', data: 'x', media_type: 'text/plain' } },
              { type: 'search_result', source: 'x', title: 't', content: [] },
              { type: 'image', source: { type: 'file', file_id: 'f' } },
              { type: 'future_block' },
              { type: 'web_search_tool_result', tool_use_id: 't', content: [] },
              {
                type: 'tool_result',
                tool_use_id: 't',
                content: [{ type: 'document', source: { type: 'text', data: 'x', media_type: 'text/plain' } }],
              },
            ],
          },
          { role: 'critic', content: 'x' },
        ],
        tool_choice: { type: 'sometimes' },
      });
      expect(r.unmapped).toEqual([
        'messages[0].content[1]',
        'messages[0].content[2]',
        'messages[0].content[3]',
        'messages[0].content[4]',
        'messages[0].content[5]',
        'messages[0].content[6].content[0]',
        'messages[1].role',
        'tool_choice',
        'system[1]',
      ]);
      expect(r.messages).toHaveLength(1);
      expect(r.messages[0].content.map((c) => c.type)).toEqual(['text', 'tool_result']);
      expect(r.system).toEqual([{ type: 'text', text: 's' }]);
    },
  );

  it('names the field at fault', () => {
    const msg = (content: unknown, role = 'user') => ({ ...base, messages: [{ role, content }] });
    expect(paramOf([])).toBe('');
    expect(paramOf({ max_tokens: 1, messages: base.messages })).toBe('model');
    expect(paramOf({ model: 'm', messages: base.messages })).toBe('max_tokens');
    expect(paramOf({ ...base, max_tokens: 0 })).toBe('max_tokens');
    expect(paramOf({ ...base, max_tokens: 1.5 })).toBe('max_tokens');
    expect(paramOf({ ...base, messages: [] })).toBe('messages');
    expect(paramOf({ ...base, messages: ['x'] })).toBe('messages[0]');
    expect(paramOf({ ...base, messages: [{ role: 5, content: 'x' }] })).toBe('messages[0].role');
    expect(paramOf({ ...base, messages: [{ role: 'user' }] })).toBe('messages[0].content');
    expect(paramOf(msg([{ type: 'text' }]))).toBe('messages[0].content[0].text');
    expect(paramOf(msg([{ type: 'image', source: { file_id: 'f' } }]))).toBe('messages[0].content[0].source.type');
    expect(paramOf(msg([{ type: 5 }]))).toBe('messages[0].content[0].type');
    expect(paramOf(msg([{ type: 'image', source: { type: 'base64', data: 'x' } }]))).toBe(
      'messages[0].content[0].source.media_type',
    );
    expect(paramOf(msg([{ type: 'document' }]))).toBe('messages[0].content[0].source');
    expect(paramOf(msg([{ type: 'tool_use', id: 't', name: 'f', input: {} }]))).toBe('messages[0].content[0].type');
    expect(paramOf(msg([{ type: 'tool_use', id: 't', name: 'f', input: [] }], 'assistant'))).toBe(
      'messages[0].content[0].input',
    );
    expect(paramOf(msg([{ type: 'tool_use', name: 'f', input: {} }], 'assistant'))).toBe('messages[0].content[0].id');
    expect(paramOf(msg([{ type: 'tool_result', tool_use_id: 't' }], 'assistant'))).toBe('messages[0].content[0].type');
    expect(paramOf(msg([{ type: 'tool_result' }]))).toBe('messages[0].content[0].tool_use_id');
    expect(paramOf(msg([{ type: 'tool_result', tool_use_id: 't', is_error: 'yes' }]))).toBe(
      'messages[0].content[0].is_error',
    );
    expect(paramOf(msg([{ type: 'tool_result', tool_use_id: 't', content: [{ text: 'x' }] }]))).toBe(
      'messages[0].content[0].content[0].type',
    );
    expect(paramOf(msg([{ type: 'thinking', thinking: 'x' }], 'assistant'))).toBe('messages[0].content[0].signature');
    expect(paramOf(msg([{ type: 'thinking', thinking: 'x', signature: 's' }]))).toBe('messages[0].content[0].type');
    expect(paramOf({ ...base, system: 5 })).toBe('system');
    expect(paramOf({ ...base, system: [{ text: 'x' }] })).toBe('system[0]');
    expect(paramOf({ ...base, system: [{ type: 'text', text: 5 }] })).toBe('system[0].text');
    expect(paramOf({ ...base, tool_choice: { type: 5 } })).toBe('tool_choice.type');
    expect(paramOf({ ...base, tools: {} })).toBe('tools');
    expect(paramOf({ ...base, tools: [{ input_schema: {} }] })).toBe('tools[0].name');
    expect(paramOf({ ...base, tools: [{ name: 'f' }] })).toBe('tools[0].input_schema');
    expect(paramOf({ ...base, tools: [{ name: 'f', input_schema: {}, description: 1 }] })).toBe('tools[0].description');
    expect(paramOf({ ...base, tool_choice: 'auto' })).toBe('tool_choice');
    expect(paramOf({ ...base, tool_choice: { type: 'tool' } })).toBe('tool_choice.name');
    expect(paramOf({ ...base, tool_choice: { type: 'auto', disable_parallel_tool_use: 1 } })).toBe(
      'tool_choice.disable_parallel_tool_use',
    );
    expect(paramOf({ ...base, stop_sequences: 'END' })).toBe('stop_sequences');
    expect(paramOf({ ...base, temperature: 1.5 })).toBe('temperature');
    expect(paramOf({ ...base, top_p: -0.1 })).toBe('top_p');
    expect(paramOf({ ...base, top_k: 2.5 })).toBe('top_k');
    expect(paramOf({ ...base, stream: 'yes' })).toBe('stream');
    expect(paramOf({ ...base, metadata: 'u' })).toBe('metadata');
    expect(paramOf({ ...base, metadata: { user_id: 7 } })).toBe('metadata.user_id');
    expect(paramOf({ ...base, thinking: true })).toBe('thinking');
    expect(paramOf({ ...base, thinking: { type: 'enabled' } })).toBe('thinking.budget_tokens');
  });
});
