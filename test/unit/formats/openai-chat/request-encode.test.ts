import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { encodeOpenaiRequest } from '../../../../src/formats/openai-chat/request-encode.js';
import { decodeOpenaiRequest } from '../../../../src/formats/openai-chat/request-decode.js';

const target = { model: 'gpt-4o-mini' };

function req(over: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'alias/fast',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    stream: false,
    includeUsage: false,
    unmapped: [],
    ...over,
  };
}

function errorOf(r: ChatRequest): GatewayError {
  try {
    encodeOpenaiRequest(r, target);
  } catch (e) {
    expect(e).toBeInstanceOf(GatewayError);
    return e as GatewayError;
  }
  throw new Error('expected a GatewayError');
}

describe('encodeOpenaiRequest', () => {
  it('minimal: the target model, a string user message and the default output cap, nothing else', () => {
    expect(encodeOpenaiRequest(req(), target)).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 4096,
    });
  });

  it("without a caller limit (a Responses caller may set none): the model's limit, else the default", () => {
    expect(encodeOpenaiRequest(req(), { model: 'gpt-4o-mini', maxOutputTokens: 16384 }).max_tokens).toBe(16384);
    expect(encodeOpenaiRequest(req(), { model: 'gpt-5' })).toMatchObject({ max_completion_tokens: 4096 });
    expect(encodeOpenaiRequest(req(), { model: 'gpt-5' })).not.toHaveProperty('max_tokens');
  });

  it('hoists the system prompt into one leading system message', () => {
    const one = encodeOpenaiRequest(req({ system: [{ type: 'text', text: 'Be brief.' }] }), target);
    expect((one.messages as unknown[])[0]).toEqual({ role: 'system', content: 'Be brief.' });
    const two = encodeOpenaiRequest(
      req({
        system: [
          { type: 'text', text: 'A' },
          { type: 'text', text: 'B' },
        ],
      }),
      target,
    );
    expect((two.messages as unknown[])[0]).toEqual({
      role: 'system',
      content: [
        { type: 'text', text: 'A' },
        { type: 'text', text: 'B' },
      ],
    });
    expect(errorOf(req({ system: [{ type: 'image', source: { kind: 'url', url: 'u' } }] })).param).toBe('system[0]');
  });

  it('multi-turn with tool calls: tool messages come right after the calls, before the user text, in order', () => {
    const body = encodeOpenaiRequest(
      req({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather and time in Paris?' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'two tools', signature: 'sig' },
              { type: 'tool_call', id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { type: 'tool_call', id: 'c2', name: 'get_time', arguments: '{}' },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Be quick.' },
              {
                type: 'tool_result',
                toolCallId: 'c1',
                content: [
                  { type: 'text', text: '18°C' },
                  { type: 'text', text: 'sunny' },
                ],
              },
              { type: 'tool_result', toolCallId: 'c2', content: [{ type: 'text', text: '14:00' }], isError: false },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'It is ' },
              { type: 'text', text: '18°C.' },
            ],
          },
        ],
      }),
      target,
    );
    expect(body.messages).toEqual([
      { role: 'user', content: 'Weather and time in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'c2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '18°C\nsunny' },
      { role: 'tool', tool_call_id: 'c2', content: '14:00' },
      { role: 'user', content: 'Be quick.' },
      { role: 'assistant', content: 'It is 18°C.' },
    ]);
  });

  it('images: base64 → data URL, url → image_url', () => {
    const body = encodeOpenaiRequest(
      req({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Compare' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
              { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg' } },
            ],
          },
        ],
      }),
      target,
    );
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
        ],
      },
    ]);
  });

  it('a tool result with an image is refused, naming it', () => {
    const e = errorOf(
      req({
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                toolCallId: 'c1',
                content: [{ type: 'image', source: { kind: 'url', url: 'u' } }],
              },
            ],
          },
        ],
      }),
    );
    expect(e.status).toBe(400);
    expect(e.param).toBe('messages[0].content[0].content[0]');
    expect(e.message).toContain('text only');
  });

  it('tools, tool_choice and parallel_tool_calls', () => {
    const tools = [
      { name: 'f', description: 'does f', parameters: { type: 'object', properties: {} } },
      { name: 'g', parameters: { type: 'object' } },
    ];
    const body = encodeOpenaiRequest(
      req({ tools, toolChoice: { type: 'tool', name: 'f' }, parallelToolCalls: false }),
      target,
    );
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'f', description: 'does f', parameters: { type: 'object', properties: {} } },
      },
      { type: 'function', function: { name: 'g', parameters: { type: 'object' } } },
    ]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'f' } });
    expect(body.parallel_tool_calls).toBe(false);
    for (const type of ['auto', 'none', 'required'] as const) {
      expect(encodeOpenaiRequest(req({ tools, toolChoice: { type } }), target).tool_choice).toBe(type);
    }
    // Without tools OpenAI rejects parallel_tool_calls, so it is left out.
    expect(encodeOpenaiRequest(req({ parallelToolCalls: true }), target)).not.toHaveProperty('parallel_tool_calls');
  });

  it('sampling fields, user, and streaming always asks for usage', () => {
    const body = encodeOpenaiRequest(
      req({
        maxTokens: 100,
        temperature: 0.2,
        topP: 0.9,
        stop: ['END'],
        user: 'u1',
        stream: true,
        includeUsage: false,
      }),
      target,
    );
    expect(body).toMatchObject({
      max_tokens: 100,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      user: 'u1',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(body).not.toHaveProperty('max_completion_tokens');
  });

  it('reasoning: effort as is, budget by bucket (on a reasoning model)', () => {
    const effort = (reasoning: ChatRequest['reasoning']) =>
      encodeOpenaiRequest(req({ reasoning }), { model: 'o4-mini' }).reasoning_effort;
    expect(effort({ effort: 'minimal' })).toBe('minimal');
    expect(effort({ budgetTokens: 1024 })).toBe('low');
    expect(effort({ budgetTokens: 2048 })).toBe('low');
    expect(effort({ budgetTokens: 8192 })).toBe('medium');
    expect(effort({ budgetTokens: 8193 })).toBe('high');
    expect(effort({ budgetTokens: 32000, effort: 'low' })).toBe('low');
    expect(effort(undefined)).toBeUndefined();
  });

  it('top_k → 400 naming top_k', () => {
    const e = errorOf(req({ topK: 40 }));
    expect(e).toMatchObject({
      code: 'invalid_request',
      status: 400,
      param: 'top_k',
      message: 'top_k cannot be sent to an OpenAI-format model.',
    });
  });

  it('unmapped source fields → 400 naming them', () => {
    const e = errorOf(req({ unmapped: ['n', 'logprobs'] }));
    expect(e).toMatchObject({ code: 'invalid_request', status: 400, param: 'n' });
    expect(e.message).toBe('The field(s) n, logprobs cannot be translated to the OpenAI chat format.');
  });

  it('an OpenAI request survives decode → encode', () => {
    const original = {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'r' },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: 'auto',
      max_completion_tokens: 5,
      reasoning_effort: 'high',
    };
    expect(encodeOpenaiRequest(decodeOpenaiRequest(original), { model: 'gpt-5-mini' })).toEqual({
      ...original,
      model: 'gpt-5-mini',
    });
  });
});

describe('encodeOpenaiRequest: what current clients send', () => {
  const encode = (
    over: Partial<ChatRequest>,
    t: { model: string; maxOutputTokens?: number; reasoning?: boolean } = { model: 'gpt-4o' },
  ) => {
    const dropped: string[] = [];
    return { body: encodeOpenaiRequest(req(over), t, dropped), dropped };
  };

  it('a mid-conversation system message stays at its place', () => {
    const { body } = encode({
      system: [{ type: 'text', text: 'first' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'system', content: [{ type: 'text', text: 'later' }] },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'system', content: 'first' },
      { role: 'user', content: 'q' },
      { role: 'system', content: 'later' },
    ]);
  });

  it(
    'reasoning only for a reasoning model (config wins over the name), with max_completion_tokens; otherwise dropped ' +
      '' +
      '' +
      '' +
      "by the caller's field names",
    () => {
      const reasoning = { adaptive: true, effort: 'high' as const, fields: ['thinking', 'output_config.effort'] };
      expect(encode({ reasoning, maxTokens: 32000 }, { model: 'gpt-4o', maxOutputTokens: 16384 })).toEqual({
        body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16384 },
        dropped: ['thinking', 'output_config.effort'],
      });
      expect(encode({ reasoning, maxTokens: 32000 }, { model: 'gpt-5' }).body).toMatchObject({
        reasoning_effort: 'high',
        max_completion_tokens: 32000,
      });
      expect(
        encode({ reasoning: { adaptive: true, fields: ['thinking'] } }, { model: 'gpt-5' }).body,
      ).not.toHaveProperty('reasoning_effort');
      expect(encode({ reasoning }, { model: 'qwen3', reasoning: true }).body.reasoning_effort).toBe('high');
      expect(encode({ temperature: 0.2, topP: 0.5 }, { model: 'o3' })).toMatchObject({
        dropped: ['temperature', 'top_p'],
      });
    },
  );

  it('structured output: strict only for a schema OpenAI accepts in strict mode', () => {
    const strictable = {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    };
    expect(encode({ responseFormat: { type: 'json_schema', schema: strictable } }).body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema: strictable, strict: true },
    });
    const loose = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false };
    expect(
      encode({ responseFormat: { type: 'json_schema', schema: loose, name: 'p', description: 'd' } }).body
        .response_format,
    ).toEqual({ type: 'json_schema', json_schema: { name: 'p', description: 'd', schema: loose, strict: false } });
    expect(encode({ responseFormat: { type: 'json_object' } }).body.response_format).toEqual({ type: 'json_object' });
  });

  it(
    'earlier reasoning is dropped and listed once per kind; ' +
      'a long user id is hashed to 64 hex digits; hints listed',
    () => {
      const { body, dropped } = encode({
        hints: ['context_management'],
        user: 'u'.repeat(150),
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'q' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'a', signature: 's' },
              { type: 'reasoning', text: '', redacted: 'x' },
              { type: 'reasoning', text: 'b', signature: 's' },
              { type: 'text', text: 'ok' },
            ],
          },
        ],
      });
      expect(dropped).toEqual(['context_management', 'messages.thinking', 'messages.redacted_thinking']);
      expect(body.user).toMatch(/^[0-9a-f]{64}$/);
      expect(encode({ user: 'short' }).body.user).toBe('short');
    },
  );
});
