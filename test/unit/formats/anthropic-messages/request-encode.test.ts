import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { decodeAnthropicRequest } from '../../../../src/formats/anthropic-messages/request-decode.js';
import { DEFAULT_MAX_TOKENS, encodeAnthropicRequest } from '../../../../src/formats/anthropic-messages/request-encode.js';

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

const weatherTool = { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

describe('encodeAnthropicRequest', () => {
  it('translates a multi-turn OpenAI-shaped conversation (golden)', async () => {
    const body = encodeAnthropicRequest(
      req({
        system: [{ type: 'text', text: 'You are terse.' }, { type: 'text', text: 'Use metric units.' }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }, { type: 'image', source: { kind: 'url', url: 'https://example.com/map.png' } }] },
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
          { role: 'user', content: [{ type: 'tool_result', toolCallId: 'call_1', content: [{ type: 'text', text: '18°C' }] }] },
          { role: 'user', content: [{ type: 'text', text: 'also, hurry' }] },
          { role: 'user', content: [{ type: 'tool_result', toolCallId: 'call_2', content: [{ type: 'text', text: 'timeout' }], isError: true }] },
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
    await expect(JSON.stringify(body, null, 2) + '\n').toMatchFileSnapshot(`${GOLDEN}/encode-request-multi-turn.json`);
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
        { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }, { type: 'text', text: 'what is it?' }] },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 'sig' }, { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'a' }, { type: 'image', source: { type: 'url', url: 'https://x/y.png' } }] }] },
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
    const choice = (over: Partial<ChatRequest>) => encodeAnthropicRequest(req({ tools: [weatherTool], ...over }), target).tool_choice;
    expect(choice({})).toBeUndefined();
    expect(choice({ toolChoice: { type: 'auto' } })).toEqual({ type: 'auto' });
    expect(choice({ toolChoice: { type: 'required' } })).toEqual({ type: 'any' });
    expect(choice({ toolChoice: { type: 'none' } })).toEqual({ type: 'none' });
    expect(choice({ toolChoice: { type: 'tool', name: 'get_weather' } })).toEqual({ type: 'tool', name: 'get_weather' });
    expect(choice({ parallelToolCalls: false })).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(choice({ toolChoice: { type: 'required' }, parallelToolCalls: false })).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(choice({ toolChoice: { type: 'none' }, parallelToolCalls: false })).toEqual({ type: 'none' });
    expect(choice({ parallelToolCalls: true })).toBeUndefined();
    // Without tools there is no tool_choice to send.
    expect(encodeAnthropicRequest(req({ toolChoice: { type: 'required' }, parallelToolCalls: false }), target)).not.toHaveProperty('tool_choice');
  });

  it('defaults max_tokens, bounded by the model limit, with room for a thinking budget', () => {
    const max = (over: Partial<ChatRequest>, maxOutputTokens?: number) => encodeAnthropicRequest(req(over), { model: 'm', maxOutputTokens }).max_tokens;
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
    const thinking = (reasoning: ChatRequest['reasoning']) => encodeAnthropicRequest(req({ reasoning, maxTokens: 50000 }), target).thinking;
    expect(thinking({ budgetTokens: 3000, effort: 'low' })).toEqual({ type: 'enabled', budget_tokens: 3000 });
    expect(thinking({ effort: 'low' })).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(thinking({ effort: 'medium' })).toEqual({ type: 'enabled', budget_tokens: 4096 });
    expect(thinking({ effort: 'high' })).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(thinking({ effort: 'minimal' })).toBeUndefined();
    expect(thinking(undefined)).toBeUndefined();
  });

  it('sends a single system text as a string and omits what is empty or default', () => {
    expect(encodeAnthropicRequest(req({ system: [{ type: 'text', text: 'only' }, { type: 'text', text: '' }] }), target).system).toBe('only');
    expect(encodeAnthropicRequest(req(), target)).toEqual({ model: 'claude-upstream', max_tokens: 4096, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
  });

  it('refuses what it cannot carry, naming it', () => {
    let e = errorOf(req({ unmapped: ['n', 'logprobs'] }));
    expect(e.param).toBe('n');
    expect(e.message).toBe('n, logprobs cannot be translated to the Anthropic messages format.');
    e = errorOf(req({ temperature: 1.2 }));
    expect(e.param).toBe('temperature');
    expect(e.message).toMatch(/^temperature above 1 cannot be sent to an Anthropic-format model/);
    e = errorOf(req({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }, { role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 'f', arguments: '{"a":' }] }] }));
    expect(e.param).toBe('messages[1]');
    e = errorOf(req({ messages: [{ role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 'f', arguments: '[1]' }] }] }));
    expect(e.param).toBe('messages[0]');
    e = errorOf(req({ system: [{ type: 'image', source: { kind: 'url', url: 'u' } }] }));
    expect(e.param).toBe('system');
    e = errorOf(req({ messages: [{ role: 'assistant', content: [{ type: 'reasoning', text: 'no signature' }] }] }));
    expect(e.param).toBe('messages');
  });

  it('sends empty tool arguments as {}', () => {
    const body = encodeAnthropicRequest(req({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }, { role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 'f', arguments: '' }] }] }), target);
    expect((body.messages as Array<{ content: unknown[] }>)[1].content[0]).toEqual({ type: 'tool_use', id: 'c', name: 'f', input: {} });
  });
});
