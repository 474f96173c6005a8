import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/core/errors.js';
import { encodeAnthropicRequest } from '../../../../src/formats/anthropic-messages/request-encode.js';
import { encodeOpenaiRequest } from '../../../../src/formats/openai-chat/request-encode.js';
import { decodeResponsesRequest } from '../../../../src/formats/openai-responses/request-decode.js';
import { encodeResponsesResponse } from '../../../../src/formats/openai-responses/response.js';
import { chatRequest } from './load-sse.js';

const base = { model: 'team/codex', input: 'hi' };
const decode = (over: Record<string, unknown>) => decodeResponsesRequest({ ...base, ...over });

function paramOf(body: unknown): string | undefined {
  try {
    decodeResponsesRequest(body);
  } catch (e) {
    expect(e).toBeInstanceOf(GatewayError);
    expect((e as GatewayError).status).toBe(400);
    return (e as GatewayError).param;
  }
  throw new Error('expected a GatewayError');
}

describe('decodeResponsesRequest', () => {
  it('a string input is one user message; usage is always included in a stream', () => {
    expect(decodeResponsesRequest({ ...base, stream: true })).toEqual({
      model: 'team/codex',
      system: [],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [],
      stream: true,
      includeUsage: true,
      unmapped: [],
      hints: [],
      echo: { store: true, metadata: {}, previous_response_id: null },
    });
  });

  it('items build the turns the canonical model needs', () => {
    const r = decode({
      instructions: 'You are Codex.',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Use tools.' }] },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'look' },
            { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' },
            { type: 'input_image', image_url: 'https://x.test/a.png' },
          ],
        },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [{ type: 'summary_text', text: 'Plan.' }],
          encrypted_content: 'gAAA',
        },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":1}' },
        { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'function_call_output', call_id: 'c1', output: 'r1' },
        {
          type: 'custom_tool_call_output',
          call_id: 'c2',
          output: [
            { type: 'input_text', text: 'Done' },
            { type: 'input_image', image_url: 'https://x.test/b.png' },
          ],
        },
        { role: 'developer', content: 'Now summarise.' },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] },
      ],
    });
    expect(r.system).toEqual([
      { type: 'text', text: 'You are Codex.' },
      { type: 'text', text: 'Use tools.' },
    ]);
    expect(r.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
          { type: 'image', source: { kind: 'url', url: 'https://x.test/a.png' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Plan.', encrypted: 'gAAA', id: 'rs_1' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_call', id: 'c1', name: 'f', arguments: '{"a":1}' },
          { type: 'tool_call', id: 'c2', name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolCallId: 'c1', content: [{ type: 'text', text: 'r1' }] },
          {
            type: 'tool_result',
            toolCallId: 'c2',
            content: [
              { type: 'text', text: 'Done' },
              { type: 'image', source: { kind: 'url', url: 'https://x.test/b.png' } },
            ],
          },
        ],
      },
      { role: 'system', content: [{ type: 'text', text: 'Now summarise.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'No.' }] },
    ]);
    expect(r.unmapped).toEqual([]);
  });

  it("gives each custom tool a schema of its own: editing one changes no other tool's, nor a later request's", () => {
    const body = {
      tools: [
        { type: 'custom', name: 'a' },
        { type: 'custom', name: 'b' },
      ],
    };
    const first = decode(body).tools;
    expect(first[0].parameters).toEqual(first[1].parameters);
    (first[0].parameters as { properties: Record<string, unknown> }).properties.extra = { type: 'number' };
    (first[0].parameters as { required: string[] }).required.push('extra');
    const input = {
      type: 'object',
      properties: { input: { type: 'string' } },
      required: ['input'],
      additionalProperties: false,
    };
    expect(first[1].parameters).toEqual(input);
    expect(decode(body).tools[0].parameters).toEqual(input);
  });

  it('settings: tools, tool_choice, text.format, reasoning, limits', () => {
    const r = decode({
      tools: [
        { type: 'function', name: 'f', description: 'F', parameters: { type: 'object' }, strict: true },
        { type: 'function', name: 'g', parameters: null, strict: null },
        { type: 'custom', name: 'apply_patch', description: 'Patch', format: { type: 'text' } },
      ],
      tool_choice: { type: 'custom', name: 'apply_patch' },
      parallel_tool_calls: false,
      text: {
        format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true, description: 'D' },
      },
      reasoning: { effort: 'minimal' },
      max_output_tokens: 2048,
      temperature: 0.5,
      top_p: 0.9,
      user: 'u1',
    });
    expect(r).toMatchObject({
      tools: [
        { name: 'f', description: 'F', parameters: { type: 'object' } },
        { name: 'g', parameters: { type: 'object', properties: {} } },
        {
          name: 'apply_patch',
          description: 'Patch',
          custom: true,
          parameters: {
            type: 'object',
            properties: { input: { type: 'string' } },
            required: ['input'],
            additionalProperties: false,
          },
        },
      ],
      toolChoice: { type: 'tool', name: 'apply_patch' },
      parallelToolCalls: false,
      responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true, description: 'D' },
      reasoning: { effort: 'minimal', fields: ['reasoning.effort'] },
      maxTokens: 2048,
      temperature: 0.5,
      topP: 0.9,
      user: 'u1',
      unmapped: [],
      hints: [],
    });
    expect(r.tools[0]).not.toHaveProperty('custom');
    expect(decode({ tool_choice: 'required' }).toolChoice).toEqual({ type: 'required' });
    expect(decode({ tool_choice: { type: 'function', name: 'f' } }).toolChoice).toEqual({ type: 'tool', name: 'f' });
    expect(decode({ text: { format: { type: 'json_object' } } }).responseFormat).toEqual({ type: 'json_object' });
    expect(decode({ text: { format: { type: 'text' } } })).not.toHaveProperty('responseFormat');
    expect(decode({ reasoning: { effort: 'none' } })).not.toHaveProperty('reasoning');
  });

  it('hints: dropped and listed when translated', () => {
    const r = decode({
      store: false,
      include: ['reasoning.encrypted_content'],
      metadata: { team: 'a' },
      service_tier: 'auto',
      prompt_cache_key: 'k',
      prompt_cache_retention: '24h',
      safety_identifier: 'sid',
      stream_options: { include_obfuscation: false },
      truncation: 'disabled',
      reasoning: { effort: 'high', summary: 'auto' },
      tools: [{ type: 'custom', name: 'apply_patch', format: { type: 'grammar', syntax: 'lark', definition: 's' } }],
    });
    expect(r.hints).toEqual([
      'store',
      'include',
      'metadata',
      'service_tier',
      'prompt_cache_key',
      'prompt_cache_retention',
      'safety_identifier',
      'stream_options',
      'truncation',
      'tools.format',
      'reasoning.summary',
    ]);
    expect(r.unmapped).toEqual([]);
  });

  it('unmapped: forwarded on pass-through, refused by name when translated', () => {
    const r = decode({
      previous_response_id: 'resp_1',
      background: true,
      conversation: 'conv_1',
      top_logprobs: 2,
      max_tool_calls: 3,
      prompt: { id: 'pmpt_1' },
      truncation: 'auto',
      seed: 1,
      input: [
        { role: 'user', content: [{ type: 'input_file', file_id: 'file_1' }] },
        { type: 'item_reference', id: 'msg_1' },
        { id: 'fc_2' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed' },
        { role: 'tool', content: 'x' },
        { role: 'user', content: [{ type: 'input_image', file_id: 'file_2' }] },
        { role: 'assistant', content: [{ type: 'input_image', image_url: 'https://x.test/c.png' }] },
      ],
      tools: [{ type: 'web_search' }, { type: 'function', name: 'f' }, { type: 'shiny_new_tool', x: 1 }],
      tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] },
      text: { format: { type: 'grammar' }, verbosity: 'low' },
      reasoning: { effort: 'ultra', mode: 'pro' },
    });
    expect(r.unmapped).toEqual([
      'previous_response_id',
      'background',
      'conversation',
      'top_logprobs',
      'max_tool_calls',
      'prompt',
      'truncation',
      'seed',
      'input[0].content[0]',
      'input[1]',
      'input[2]',
      'input[3]',
      'input[4].role',
      'input[5].content[0]',
      'input[6].content[0]',
      'tools[2]',
      'tool_choice',
      'text.format',
      'reasoning.effort',
      'reasoning.mode',
    ]);
    expect(r.hints).toEqual(expect.arrayContaining(['tools[0] (web_search)', 'text.verbosity']));
    expect(decode({ background: false, top_logprobs: 0, tool_choice: 'something_new' }).unmapped).toEqual([
      'tool_choice',
    ]);
  });

  it('names the field at fault', () => {
    expect(paramOf([])).toBe('');
    expect(paramOf({ input: 'x' })).toBe('model');
    expect(paramOf({ ...base, input: 5 })).toBe('input');
    expect(paramOf({ ...base, input: ['x'] })).toBe('input[0]');
    expect(paramOf({ ...base, input: [{ type: 5 }] })).toBe('input[0].type');
    expect(paramOf({ ...base, input: [{ role: 7, content: 'x' }] })).toBe('input[0].role');
    expect(paramOf({ ...base, input: [{ role: 'user', content: 7 }] })).toBe('input[0].content');
    expect(paramOf({ ...base, input: [{ role: 'user', content: [{ type: 1 }] }] })).toBe('input[0].content[0].type');
    expect(paramOf({ ...base, input: [{ role: 'user', content: [{ type: 'input_text' }] }] })).toBe(
      'input[0].content[0].text',
    );
    expect(paramOf({ ...base, input: [{ role: 'user', content: [{ type: 'input_image' }] }] })).toBe(
      'input[0].content[0].image_url',
    );
    expect(paramOf({ ...base, input: [{ role: 'assistant', content: [{ type: 'output_text', text: 1 }] }] })).toBe(
      'input[0].content[0].text',
    );
    const turns = [
      { role: 'user', content: 'hi' },
      { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
    ];
    expect(paramOf({ ...base, input: [...turns, { type: 'function_call_output', output: 'x' }] })).toBe(
      'input[2].call_id',
    );
    expect(paramOf({ ...base, input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: {} }] })).toBe(
      'input[0].arguments',
    );
    expect(paramOf({ ...base, input: [{ type: 'custom_tool_call', call_id: 'c', name: 'f' }] })).toBe('input[0].input');
    expect(paramOf({ ...base, input: [{ type: 'function_call_output', call_id: 'c', output: 5 }] })).toBe(
      'input[0].output',
    );
    expect(paramOf({ ...base, input: [{ type: 'reasoning', summary: [{ type: 'summary_text' }] }] })).toBe(
      'input[0].summary[0].text',
    );
    expect(paramOf({ ...base, input: [{ type: 'reasoning', summary: 'x' }] })).toBe('input[0].summary');
    expect(paramOf({ ...base, input: [{ type: 'reasoning', summary: [], encrypted_content: 1 }] })).toBe(
      'input[0].encrypted_content',
    );
    expect(paramOf({ ...base, tools: {} })).toBe('tools');
    expect(paramOf({ ...base, tools: [{ name: 'f' }] })).toBe('tools[0]');
    expect(paramOf({ ...base, tools: [{ type: 'function' }] })).toBe('tools[0].name');
    expect(paramOf({ ...base, tools: [{ type: 'function', name: 'f', parameters: [] }] })).toBe('tools[0].parameters');
    expect(paramOf({ ...base, tools: [{ type: 'custom', name: 'c', format: 'lark' }] })).toBe('tools[0].format');
    expect(paramOf({ ...base, tool_choice: 5 })).toBe('tool_choice');
    expect(paramOf({ ...base, tool_choice: { type: 'function' } })).toBe('tool_choice.name');
    expect(paramOf({ ...base, text: { format: {} } })).toBe('text.format.type');
    expect(paramOf({ ...base, text: { verbosity: 1 } })).toBe('text.verbosity');
    expect(paramOf({ ...base, text: { format: { type: 'json_schema', schema: 'x' } } })).toBe('text.format.schema');
    expect(paramOf({ ...base, reasoning: { effort: 1 } })).toBe('reasoning.effort');
    expect(paramOf({ ...base, reasoning: { summary: true } })).toBe('reasoning.summary');
    expect(paramOf({ ...base, max_output_tokens: 0 })).toBe('max_output_tokens');
    expect(paramOf({ ...base, max_output_tokens: 1.5 })).toBe('max_output_tokens');
    expect(paramOf({ ...base, max_output_tokens: 2 ** 31 })).toBe('max_output_tokens');
    expect(paramOf({ ...base, temperature: 3 })).toBe('temperature');
    expect(paramOf({ ...base, metadata: { a: 1 } })).toBe('metadata.a');
    expect(paramOf({ ...base, include: [1] })).toBe('include[0]');
    expect(paramOf({ ...base, store: 'no' })).toBe('store');
    expect(paramOf({ ...base, previous_response_id: 5 })).toBe('previous_response_id');
    expect(paramOf({ ...base, instructions: [] })).toBe('instructions');
  });

  it('an unexpanded item_reference or previous_response_id is refused by name when translated', () => {
    const ref = decode({
      input: [
        { role: 'user', content: 'hi' },
        { type: 'item_reference', id: 'msg_1' },
      ],
    });
    expect(() => encodeOpenaiRequest(ref, { model: 'gpt-4o' })).toThrow(
      expect.objectContaining({ status: 400, param: 'input[1]' }),
    );
    const prev = decode({ previous_response_id: 'resp_1' });
    expect(() => encodeAnthropicRequest(prev, { model: 'claude-sonnet-4-5' })).toThrow(
      expect.objectContaining({ status: 400, param: 'previous_response_id' }),
    );
  });

  it("Claude's signed thinking survives a Codex tool loop: the reasoning item it sends back is restored", () => {
    const thinking = { type: 'reasoning' as const, text: 'I should list files.', signature: 'EqQBCkYIBxgC…' };
    const tools = [{ name: 'shell', parameters: { type: 'object' } }];
    const reply = encodeResponsesResponse(
      {
        id: 'msg_1',
        model: 'team/claude',
        created: 1,
        content: [thinking, { type: 'tool_call', id: 'toolu_1', name: 'shell', arguments: '{"cmd":"ls"}' }],
        finish: 'tool_calls',
        usage: { inputTokens: 1, outputTokens: 1 },
      },
      chatRequest({ tools }),
    );
    // Codex sends the output items back without their ids, then the tool output.
    const echoed = (reply.output as Array<Record<string, unknown>>).map(({ id: _id, status: _s, ...item }) => item);
    const next = decode({
      input: [
        { role: 'user', content: 'list files' },
        ...echoed,
        { type: 'function_call_output', call_id: 'toolu_1', output: 'a.py' },
      ],
      tools: [{ type: 'function', name: 'shell', parameters: { type: 'object' } }],
      reasoning: { effort: 'high' },
    });
    expect(next.messages[1]).toEqual({
      role: 'assistant',
      content: [thinking, { type: 'tool_call', id: 'toolu_1', name: 'shell', arguments: '{"cmd":"ls"}' }],
    });
    const body = encodeAnthropicRequest(next, { model: 'claude-sonnet-4-5' });
    expect((body.messages as Array<{ content: unknown[] }>)[1].content[0]).toEqual({
      type: 'thinking',
      thinking: 'I should list files.',
      signature: 'EqQBCkYIBxgC…',
    });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
  });

  it("Codex's request shape translates: its bookkeeping, verbosity and provider-side tools are hints", () => {
    const r = decode({
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'thread-1',
      client_metadata: { session_id: 's' },
      text: { verbosity: 'low' },
      reasoning: { effort: 'low', context: 'all_turns', summary: 'auto' },
      tools: [
        { type: 'function', name: 'exec_command', parameters: { type: 'object', properties: {} } },
        { type: 'custom', name: 'apply_patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: x' } },
        { type: 'namespace', name: 'multi_agent_v1', tools: [] },
        { type: 'tool_search', execution: 'client' },
        { type: 'web_search', external_web_access: false },
      ],
    });
    expect(r.unmapped).toEqual([]);
    expect(r.tools.map((t) => t.name)).toEqual(['exec_command', 'apply_patch']);
    expect(r.hints).toEqual(
      expect.arrayContaining([
        'client_metadata',
        'text.verbosity',
        'reasoning.context',
        'tools.format',
        'tools[2] (namespace)',
        'tools[3] (tool_search)',
        'tools[4] (web_search)',
      ]),
    );
  });
});
