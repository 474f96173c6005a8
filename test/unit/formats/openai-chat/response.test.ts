import { describe, expect, it } from 'vitest';
import { decodeOpenaiResponse, encodeOpenaiResponse } from '../../../../src/formats/openai-chat/response.js';

const completion = (message: Record<string, unknown>, finish = 'stop', extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1736272000,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', refusal: null, ...message },
      logprobs: null,
      finish_reason: finish,
      ...extra,
    },
  ],
  usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15, prompt_tokens_details: { cached_tokens: 0 } },
});

describe('decodeOpenaiResponse', () => {
  it('text', () => {
    expect(decodeOpenaiResponse(completion({ content: 'Hello!' }))).toEqual({
      id: 'chatcmpl-1',
      model: 'gpt-4o-mini-2024-07-18',
      created: 1736272000,
      content: [{ type: 'text', text: 'Hello!' }],
      finish: 'stop',
      usage: { inputTokens: 12, outputTokens: 3 },
    });
  });

  it('tool calls with null content; cached tokens become cacheReadTokens', () => {
    const body = completion(
      {
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      },
      'tool_calls',
    );
    body.usage = {
      prompt_tokens: 2048,
      completion_tokens: 30,
      total_tokens: 2078,
      prompt_tokens_details: { cached_tokens: 1920 },
    };
    const res = decodeOpenaiResponse(body);
    expect(res.content).toEqual([
      { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'tool_call', id: 'call_2', name: 'get_time', arguments: '{}' },
    ]);
    expect(res.finish).toBe('tool_calls');
    expect(res.usage).toEqual({ inputTokens: 128, outputTokens: 30, cacheReadTokens: 1920 });
  });

  it('reasoning_content or reasoning comes first', () => {
    expect(decodeOpenaiResponse(completion({ content: '42', reasoning_content: 'think' })).content).toEqual([
      { type: 'reasoning', text: 'think' },
      { type: 'text', text: '42' },
    ]);
    expect(decodeOpenaiResponse(completion({ content: '42', reasoning: 'hmm' })).content[0]).toEqual({
      type: 'reasoning',
      text: 'hmm',
    });
  });

  it('a refusal is text with finish content_filter; vLLM stop_reason is the stop sequence', () => {
    const refused = decodeOpenaiResponse(completion({ content: null, refusal: "I can't help with that." }));
    expect(refused.content).toEqual([{ type: 'text', text: "I can't help with that." }]);
    expect(refused.finish).toBe('content_filter');
    expect(decodeOpenaiResponse(completion({ content: 'a' }, 'stop', { stop_reason: 'END' })).stopSequence).toBe('END');
  });

  it('missing usage → zeros; a body without choices → upstream_error', () => {
    const { usage: _, ...noUsage } = completion({ content: 'x' });
    expect(decodeOpenaiResponse(noUsage).usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(() => decodeOpenaiResponse({ id: 'x', choices: [] })).toThrow(
      expect.objectContaining({ code: 'upstream_error', status: 502 }),
    );
    expect(() => decodeOpenaiResponse({ error: { message: 'no' } })).toThrow(
      expect.objectContaining({ code: 'upstream_error' }),
    );
  });

  it('round trips through encodeOpenaiResponse', () => {
    const body = completion(
      {
        content: 'Hi',
        reasoning_content: 'r',
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      'tool_calls',
    );
    const res = decodeOpenaiResponse(body);
    expect(decodeOpenaiResponse(encodeOpenaiResponse(res))).toEqual(res);
  });
});
