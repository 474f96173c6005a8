import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { decodeAnthropicRequest } from '../../../../src/formats/anthropic-messages/request-decode.js';
import {
  DEFAULT_MAX_TOKENS,
  encodeAnthropicRequest,
} from '../../../../src/formats/anthropic-messages/request-encode.js';

const GOLDEN = '../../../fixtures/formats/anthropic-messages/golden';

function req(over: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'caller-model',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    stream: false,
    includeUsage: false,
    unmapped: [],
    ...over,
  };
}

const target = { model: 'claude-upstream' };

function errorOf(r: ChatRequest): GatewayError {
  try {
    encodeAnthropicRequest(r, target);
  } catch (e) {
    expect(e).toBeInstanceOf(GatewayError);
    expect((e as GatewayError).status).toBe(400);
    return e as GatewayError;
  }
  throw new Error('expected a GatewayError');
}

const weatherTool = {
  name: 'get_weather',
  description: 'Weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};

describe('encodeAnthropicRequest', () => {
  it('translates a multi-turn OpenAI-shaped conversation (golden)', async () => {
    const body = encodeAnthropicRequest(
      req({
        system: [
          { type: 'text', text: 'You are terse.' },
          { type: 'text', text: 'Use metric units.' },
        ],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Weather in Paris and Rome?' },
              { type: 'image', source: { kind: 'url', url: 'https://example.com/map.png' } },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'unsigned thoughts from another provider' },
              { type: 'text', text: '' },
              { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { type: 'tool_call', id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
            ],
          },
          // A user text between the tool results, each result its own canonical user message.
          {
            role: 'user',
            content: [{ type: 'tool_result', toolCallId: 'call_1', content: [{ type: 'text', text: '18°C' }] }],
          },
          { role: 'user', content: [{ type: 'text', text: 'also, hurry' }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                toolCallId: 'call_2',
                content: [{ type: 'text', text: 'timeout' }],
                isError: true,
              },
            ],
          },
        ],
        tools: [weatherTool],
        toolChoice: { type: 'auto' },
        parallelToolCalls: false,
        stop: ['END'],
        temperature: 0.3,
        topP: 0.8,
        user: 'u-1',
        stream: true,
      }),
      { model: 'claude-upstream', maxOutputTokens: 64000 },
    );
    await expect(`${JSON.stringify(body, null, 2)}\n`).toMatchFileSnapshot(`${GOLDEN}/encode-request-multi-turn.json`);
    const messages = body.messages as Array<{ role: string; content: Array<{ type: string }> }>;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1].content.map((b) => b.type)).toEqual(['tool_use', 'tool_use']);
    expect(messages[2].content.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'text']);
  });

  it('round-trips a caller Anthropic body', () => {
    const original = {
      model: 'claude-x',
      max_tokens: 4096,
      system: 'sys',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            { type: 'text', text: 'what is it?' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 't', signature: 'sig' },
            { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [
                { type: 'text', text: 'a' },
                { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
              ],
            },
          ],
        },
      ],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      // (A forced tool_choice or top_k cannot go with thinking: see the thinking test below.)
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      stop_sequences: ['X'],
      temperature: 1,
      metadata: { user_id: 'u' },
      thinking: { type: 'enabled', budget_tokens: 2000 },
    };
    expect(encodeAnthropicRequest(decodeAnthropicRequest(original), { model: 'claude-x' })).toEqual(original);
  });

  it('maps tool_choice and parallel tool calls', () => {
    const choice = (over: Partial<ChatRequest>) =>
      encodeAnthropicRequest(req({ tools: [weatherTool], ...over }), target).tool_choice;
    expect(choice({})).toBeUndefined();
    expect(choice({ toolChoice: { type: 'auto' } })).toEqual({ type: 'auto' });
    expect(choice({ toolChoice: { type: 'required' } })).toEqual({ type: 'any' });
    expect(choice({ toolChoice: { type: 'none' } })).toEqual({ type: 'none' });
    expect(choice({ toolChoice: { type: 'tool', name: 'get_weather' } })).toEqual({
      type: 'tool',
      name: 'get_weather',
    });
    expect(choice({ parallelToolCalls: false })).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(choice({ toolChoice: { type: 'required' }, parallelToolCalls: false })).toEqual({
      type: 'any',
      disable_parallel_tool_use: true,
    });
    expect(choice({ toolChoice: { type: 'none' }, parallelToolCalls: false })).toEqual({ type: 'none' });
    expect(choice({ parallelToolCalls: true })).toBeUndefined();
    // Without tools there is no tool_choice to send.
    expect(
      encodeAnthropicRequest(req({ toolChoice: { type: 'required' }, parallelToolCalls: false }), target),
    ).not.toHaveProperty('tool_choice');
  });

  it('defaults max_tokens, bounded by the model limit, with room for a thinking budget', () => {
    const max = (over: Partial<ChatRequest>, maxOutputTokens?: number) =>
      encodeAnthropicRequest(req(over), { model: 'm', maxOutputTokens }).max_tokens;
    expect(DEFAULT_MAX_TOKENS).toBe(4096);
    expect(max({})).toBe(4096);
    expect(max({}, 1000)).toBe(1000);
    expect(max({}, 64000)).toBe(4096);
    // Never above the model's own limit.
    expect(max({ maxTokens: 77 }, 50)).toBe(50);
    expect(max({ maxTokens: 77 })).toBe(77);
    expect(max({ reasoning: { effort: 'high' } }, 64000)).toBe(4096 + 16384);
    expect(max({ reasoning: { effort: 'high' } }, 8000)).toBe(8000);
  });

  it('maps reasoning budget and effort to thinking', () => {
    const thinking = (reasoning: ChatRequest['reasoning']) =>
      encodeAnthropicRequest(req({ reasoning, maxTokens: 50000 }), target).thinking;
    expect(thinking({ budgetTokens: 3000, effort: 'low' })).toEqual({ type: 'enabled', budget_tokens: 3000 });
    expect(thinking({ effort: 'low' })).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(thinking({ effort: 'medium' })).toEqual({ type: 'enabled', budget_tokens: 4096 });
    expect(thinking({ effort: 'high' })).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(thinking({ effort: 'minimal' })).toBeUndefined();
    expect(thinking(undefined)).toBeUndefined();
  });

  it('sends a single system text as a string and omits what is empty or default', () => {
    expect(
      encodeAnthropicRequest(
        req({
          system: [
            { type: 'text', text: 'only' },
            { type: 'text', text: '' },
          ],
        }),
        target,
      ).system,
    ).toBe('only');
    expect(encodeAnthropicRequest(req(), target)).toEqual({
      model: 'claude-upstream',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
  });

  it('refuses what it cannot carry, naming it', () => {
    let e = errorOf(req({ unmapped: ['n', 'logprobs'] }));
    expect(e.param).toBe('n');
    expect(e.message).toBe('n, logprobs cannot be translated to the Anthropic messages format.');
    e = errorOf(req({ temperature: 1.2 }));
    expect(e.param).toBe('temperature');
    expect(e.message).toMatch(/^temperature above 1 cannot be sent to an Anthropic-format model/);
    e = errorOf(
      req({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'x' }] },
          { role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 'f', arguments: '{"a":' }] },
        ],
      }),
    );
    expect(e.param).toBe('messages[1]');
    e = errorOf(
      req({
        messages: [{ role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 'f', arguments: '[1]' }] }],
      }),
    );
    expect(e.param).toBe('messages[0]');
    e = errorOf(req({ system: [{ type: 'image', source: { kind: 'url', url: 'u' } }] }));
    expect(e.param).toBe('system');
    e = errorOf(req({ messages: [{ role: 'assistant', content: [{ type: 'reasoning', text: 'no signature' }] }] }));
    expect(e.param).toBe('messages');
  });

  it('sends empty tool arguments as {}', () => {
    const body = encodeAnthropicRequest(
      req({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'x' }] },
          { role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 'f', arguments: '' }] },
        ],
      }),
      target,
    );
    expect((body.messages as Array<{ content: unknown[] }>)[1].content[0]).toEqual({
      type: 'tool_use',
      id: 'c',
      name: 'f',
      input: {},
    });
  });
});

describe('encodeAnthropicRequest: what current clients send', () => {
  const encode = (
    over: Partial<ChatRequest>,
    t: { model: string; maxOutputTokens?: number; reasoning?: boolean } = { model: 'claude-sonnet-4-5' },
  ) => {
    const dropped: string[] = [];
    return { body: encodeAnthropicRequest(req(over), t, dropped), dropped };
  };
  const closed = {
    type: 'object',
    properties: { a: { type: 'string' } },
    required: ['a'],
    additionalProperties: false,
  };

  it('hoists mid-conversation system messages into system, in order; hints are listed', () => {
    const { body, dropped } = encode({
      system: [{ type: 'text', text: 'first' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'system', content: [{ type: 'text', text: 'later' }] },
        { role: 'user', content: [{ type: 'text', text: 'r' }] },
      ],
      hints: ['store'],
    });
    expect(body.system).toEqual([
      { type: 'text', text: 'first' },
      { type: 'text', text: 'later' },
    ]);
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'q' },
          { type: 'text', text: 'r' },
        ],
      },
    ]);
    expect(dropped).toEqual(['store']);
  });

  it('structured output: native on a model that has it with a closed schema, else the forced tool', () => {
    const rf = { type: 'json_schema' as const, schema: closed, name: 'x', description: 'a thing' };
    const native = encode({ responseFormat: rf });
    expect(native.body.output_config).toEqual({ format: { type: 'json_schema', schema: closed } });
    expect(native.dropped).toEqual(['response_format.json_schema.description']);
    const old = encode({ responseFormat: rf }, { model: 'claude-3-5-haiku-20241022' }).body;
    expect(old.tools).toEqual([{ name: 'json_output', description: 'a thing', input_schema: closed }]);
    expect(old.tool_choice).toEqual({ type: 'tool', name: 'json_output' });
    const openSchema = encode({ responseFormat: { type: 'json_schema', schema: { type: 'object' } } }).body;
    expect(openSchema.tool_choice).toEqual({ type: 'tool', name: 'json_output' });
    expect(encode({ responseFormat: { type: 'json_object' } }).body.tools).toEqual([
      { name: 'json_output', description: 'Give the answer as this JSON object.', input_schema: { type: 'object' } },
    ]);
  });

  it("the forced tool with the caller's tools: any (or the caller's own forced tool); a name clash is a 400", () => {
    const tools = [{ name: 'f', parameters: { type: 'object' } }];
    const rf = { type: 'json_object' as const };
    expect(encode({ tools, responseFormat: rf }).body.tool_choice).toEqual({ type: 'any' });
    expect(encode({ tools, responseFormat: rf, toolChoice: { type: 'tool', name: 'f' } }).body.tool_choice).toEqual({
      type: 'tool',
      name: 'f',
    });
    expect(encode({ tools, responseFormat: rf, toolChoice: { type: 'none' } }).body.tool_choice).toEqual({
      type: 'tool',
      name: 'json_output',
    });
    expect(() =>
      encode({ tools: [{ name: 'json_output', parameters: { type: 'object' } }], responseFormat: rf }),
    ).toThrow(GatewayError);
  });

  it("thinking is dropped (named by the caller's field) where Anthropic would refuse it", () => {
    const reasoning = { effort: 'medium' as const, fields: ['reasoning_effort'] };
    expect(encode({ reasoning }).body.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
    // a model that does not think
    expect(encode({ reasoning }, { model: 'claude-3-5-haiku-20241022' })).toMatchObject({
      dropped: ['reasoning_effort'],
    });
    expect(encode({ reasoning }, { model: 'claude-3-5-haiku-20241022', reasoning: true }).body.thinking).toBeDefined();
    // the forced output tool
    expect(encode({ reasoning, responseFormat: { type: 'json_object' } }).dropped).toEqual(['reasoning_effort']);
    // a tool loop continued from an assistant turn without a thinking block
    const loop = encode({
      reasoning,
      tools: [{ name: 'f', parameters: { type: 'object' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', content: [{ type: 'tool_call', id: 't1', name: 'f', arguments: '{}' }] },
        { role: 'user', content: [{ type: 'tool_result', toolCallId: 't1', content: [{ type: 'text', text: 'r' }] }] },
      ],
    });
    expect(loop.body).not.toHaveProperty('thinking');
    expect(loop.dropped).toEqual(['reasoning_effort']);
    // a budget that leaves no room under the model's limit
    expect(encode({ reasoning: { budgetTokens: 8000, fields: ['thinking'] }, maxTokens: 1000 }).dropped).toEqual([
      'thinking',
    ]);
  });

  it('with thinking on, sampling Anthropic refuses with it is dropped', () => {
    const { body, dropped } = encode({
      reasoning: { effort: 'low', fields: ['reasoning_effort'] },
      temperature: 0.2,
      topP: 0.5,
    });
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_p');
    expect(dropped).toEqual(['temperature', 'top_p']);
    expect(encode({ reasoning: { effort: 'low' }, temperature: 1, topP: 0.95 }).body).toMatchObject({
      temperature: 1,
      top_p: 0.95,
    });
  });

  it('earlier reasoning: signed and redacted kept, unsigned dropped and listed', () => {
    const { body, dropped } = encode({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'a', signature: 's' },
            { type: 'reasoning', text: '', redacted: 'opaque' },
            { type: 'reasoning', text: 'unsigned' },
            { type: 'text', text: 'ok' },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'r' }] },
      ],
    });
    expect((body.messages as any[])[1].content).toEqual([
      { type: 'thinking', thinking: 'a', signature: 's' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'ok' },
    ]);
    expect(dropped).toEqual(['messages.thinking']);
  });
});
