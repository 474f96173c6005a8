import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { decodeAnthropicRequest } from '../../../../src/formats/anthropic-messages/request-decode.js';
import { decodeOpenaiRequest } from '../../../../src/formats/openai-chat/request-decode.js';
import { decodeResponsesRequest } from '../../../../src/formats/openai-responses/request-decode.js';
import { encodeResponsesRequest } from '../../../../src/formats/openai-responses/request-encode.js';
import type { EncodeTarget } from '../../../../src/formats/types.js';
import { chatRequest } from './load-sse.js';

const chatModel = { model: 'gpt-4.1-mini' };
const reasoningModel = { model: 'gpt-5' };
const CUSTOM = { name: 'apply_patch', parameters: {}, custom: true };

function encode(over: Partial<ChatRequest> = {}, target: EncodeTarget = chatModel) {
  const dropped: string[] = [];
  const body = encodeResponsesRequest(chatRequest(over), target, dropped);
  return { body, dropped };
}

function errorOf(r: ChatRequest, target: EncodeTarget = chatModel): GatewayError {
  try {
    encodeResponsesRequest(r, target);
  } catch (e) {
    expect(e).toBeInstanceOf(GatewayError);
    return e as GatewayError;
  }
  throw new Error('expected a GatewayError');
}

describe('encodeResponsesRequest', () => {
  it('minimal: the target model, the input, a default output cap, nothing stored', () => {
    expect(encode()).toEqual({
      body: {
        model: 'gpt-4.1-mini',
        input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
        max_output_tokens: 4096,
        store: false,
      },
      dropped: [],
    });
  });

  it("the cap: the caller's, never above the model's; without one the model's limit", () => {
    expect(encode({ maxTokens: 100 }).body.max_output_tokens).toBe(100);
    expect(encode({ maxTokens: 100000 }, { model: 'm', maxOutputTokens: 32768 }).body.max_output_tokens).toBe(32768);
    expect(encode({}, { model: 'm', maxOutputTokens: 32768 }).body.max_output_tokens).toBe(32768);
  });

  it('system → instructions; a mid-conversation system message stays at its place', () => {
    const { body } = encode({
      system: [
        { type: 'text', text: 'A' },
        { type: 'text', text: 'B' },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'yes' }] },
        { role: 'system', content: [{ type: 'text', text: 'Be short.' }] },
      ],
    });
    expect(body.instructions).toBe('A\n\nB');
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'yes' }] },
      { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Be short.' }] },
    ]);
  });

  it('a tool loop: calls as function_call / custom_tool_call, results first in the user turn', () => {
    const { body, dropped } = encode({
      tools: [{ name: 'shell', description: 'Run', parameters: { type: 'object' } }, CUSTOM],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'fix it' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Plan.', encrypted: 'gAAAAB', id: 'rs_1' },
            { type: 'reasoning', text: 'Claude', signature: 'sig' },
            { type: 'reasoning', text: '', redacted: 'opaque' },
            { type: 'text', text: 'Let me ' },
            { type: 'text', text: 'look.' },
            { type: 'tool_call', id: 'c1', name: 'shell', arguments: '{"cmd":"ls"}' },
            { type: 'tool_call', id: 'c2', name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'and?' },
            { type: 'tool_result', toolCallId: 'c1', content: [{ type: 'text', text: 'a.py' }] },
            {
              type: 'tool_result',
              toolCallId: 'c2',
              content: [
                { type: 'text', text: 'Done' },
                { type: 'image', source: { kind: 'url', url: 'https://x.test/s.png' } },
              ],
              isError: true,
            },
          ],
        },
      ],
    });
    expect(body.input).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'fix it' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' },
        ],
      },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'Plan.' }],
        encrypted_content: 'gAAAAB',
      },
      {
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'Let me ' },
          { type: 'output_text', text: 'look.' },
        ],
      },
      { type: 'function_call', call_id: 'c1', name: 'shell', arguments: '{"cmd":"ls"}' },
      { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' },
      { type: 'function_call_output', call_id: 'c1', output: 'a.py' },
      {
        type: 'custom_tool_call_output',
        call_id: 'c2',
        output: [
          { type: 'input_text', text: 'Done' },
          { type: 'input_image', image_url: 'https://x.test/s.png', detail: 'auto' },
        ],
      },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and?' }] },
    ]);
    expect(body.tools).toEqual([
      { type: 'function', name: 'shell', description: 'Run', parameters: { type: 'object' }, strict: false },
      { type: 'custom', name: 'apply_patch' },
    ]);
    expect(dropped).toEqual(['messages.thinking', 'messages.redacted_thinking']);
  });

  it('tool_choice and parallel_tool_calls go only with tools', () => {
    const tools = [{ name: 'f', parameters: {} }, CUSTOM];
    expect(encode({ tools, toolChoice: { type: 'tool', name: 'f' }, parallelToolCalls: false }).body).toMatchObject({
      tool_choice: { type: 'function', name: 'f' },
      parallel_tool_calls: false,
    });
    expect(encode({ tools, toolChoice: { type: 'tool', name: 'apply_patch' } }).body.tool_choice).toEqual({
      type: 'custom',
      name: 'apply_patch',
    });
    expect(encode({ tools, toolChoice: { type: 'required' } }).body.tool_choice).toBe('required');
    const none = encode({ toolChoice: { type: 'required' }, parallelToolCalls: true }).body;
    expect(none).not.toHaveProperty('tool_choice');
    expect(none).not.toHaveProperty('parallel_tool_calls');
  });

  it('structured output as text.format (strict only for a schema OpenAI takes strictly)', () => {
    const closed = {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    };
    expect(encode({ responseFormat: { type: 'json_schema', schema: closed, description: 'D' } }).body.text).toEqual({
      format: { type: 'json_schema', name: 'response', description: 'D', schema: closed, strict: true },
    });
    expect(
      encode({ responseFormat: { type: 'json_schema', name: 'o', schema: { type: 'object' } } }).body.text,
    ).toEqual({ format: { type: 'json_schema', name: 'o', schema: { type: 'object' }, strict: false } });
    expect(encode({ responseFormat: { type: 'json_object' } }).body.text).toEqual({ format: { type: 'json_object' } });
  });

  it('a reasoning model: reasoning.effort, encrypted reasoning asked for, sampling it refuses dropped', () => {
    const { body, dropped } = encode(
      { reasoning: { effort: 'high', fields: ['reasoning_effort'] }, temperature: 0.2, topP: 0.5, stream: true },
      reasoningModel,
    );
    expect(body).toEqual({
      model: 'gpt-5',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      reasoning: { effort: 'high' },
      max_output_tokens: 4096,
      store: false,
      include: ['reasoning.encrypted_content'],
      stream: true,
    });
    expect(dropped).toEqual(['temperature', 'top_p']);
    // A thinking budget becomes an effort by bucket; the config's `reasoning` wins over the name.
    const budget = encode({ reasoning: { budgetTokens: 5000, fields: ['thinking'] } }, reasoningModel).body;
    expect(budget.reasoning).toEqual({ effort: 'medium' });
    const off = encode(
      { reasoning: { effort: 'low', fields: ['thinking'] }, temperature: 0.2 },
      { model: 'gpt-5', reasoning: false },
    );
    expect(off.body).not.toHaveProperty('reasoning');
    expect(off.body).not.toHaveProperty('include');
    expect(off.body.temperature).toBe(0.2);
    expect(off.dropped).toEqual(['thinking']);
  });

  it('hints are dropped and listed; a long user id is hashed as in the chat format', () => {
    const { body, dropped } = encode({ hints: ['store', 'reasoning.summary'], user: 'u'.repeat(65) });
    expect(dropped).toEqual(['store', 'reasoning.summary']);
    expect(body.user).toMatch(/^[0-9a-f]{64}$/);
    expect(encode({ user: 'u1' }).body.user).toBe('u1');
  });

  it('refuses what the format cannot carry, naming it', () => {
    expect(errorOf(chatRequest({ stop: ['END'] }))).toMatchObject({ status: 400, param: 'stop' });
    expect(errorOf(chatRequest({ topK: 5 }))).toMatchObject({ status: 400, param: 'top_k' });
    expect(errorOf(chatRequest({ unmapped: ['seed', 'logprobs'] }))).toMatchObject({
      status: 400,
      param: 'seed',
      message: 'The field(s) seed, logprobs cannot be translated to the OpenAI Responses format.',
    });
    const nTwo = decodeOpenaiRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], n: 2 });
    expect(errorOf(nTwo)).toMatchObject({ status: 400, param: 'n' });
    expect(
      errorOf(chatRequest({ system: [{ type: 'image', source: { kind: 'url', url: 'https://x.test/i.png' } }] })),
    ).toMatchObject({ status: 400, param: 'system[0]' });
    expect(
      errorOf(
        chatRequest({
          messages: [{ role: 'assistant', content: [{ type: 'image', source: { kind: 'url', url: 'u' } }] }],
        }),
      ),
    ).toMatchObject({ status: 400, param: 'messages[0].content[0]' });
  });

  it('an Anthropic caller: thinking budget, stop sequences refused, system hoisted', () => {
    const req = decodeAnthropicRequest({
      model: 'team/x',
      max_tokens: 1000,
      system: 'S',
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(encodeResponsesRequest(req, reasoningModel)).toMatchObject({
      instructions: 'S',
      reasoning: { effort: 'low' },
      max_output_tokens: 1000,
    });
    expect(errorOf({ ...req, stop: ['X'] })).toMatchObject({ param: 'stop' });
  });

  it('round trip: a Responses request → canonical → Responses keeps what the format carries', () => {
    const original = {
      model: 'team/codex',
      instructions: 'You are Codex.',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix a.py' }] },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [{ type: 'summary_text', text: 'Plan.' }],
          encrypted_content: 'gAAAAB',
        },
        { type: 'function_call', call_id: 'c1', name: 'shell', arguments: '{"cmd":"cat a.py"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'print(1)' },
        { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'custom_tool_call_output', call_id: 'c2', output: 'Done' },
      ],
      tools: [
        { type: 'function', name: 'shell', description: 'Run', parameters: { type: 'object' }, strict: false },
        { type: 'custom', name: 'apply_patch' },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning: { effort: 'medium' },
      max_output_tokens: 8000,
      stream: true,
    };
    const again = encodeResponsesRequest(decodeResponsesRequest(original), { model: 'gpt-5-codex' });
    expect(again).toEqual({
      ...original,
      model: 'gpt-5-codex',
      store: false,
      include: ['reasoning.encrypted_content'],
    });
  });
});
