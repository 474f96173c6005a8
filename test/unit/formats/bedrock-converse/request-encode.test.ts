import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { encodeBedrockRequest } from '../../../../src/formats/bedrock-converse/request-encode.js';
import { maxBilledOutputTokens } from '../../../../src/formats/output-cap.js';

const base = (over: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'b/claude',
  system: [],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
  tools: [],
  stream: false,
  includeUsage: false,
  unmapped: [],
  ...over,
});
const CLAUDE = { model: 'us.anthropic.claude-sonnet-4-20250514-v1:0' };
const NOVA = { model: 'amazon.nova-pro-v1:0' };
const PNG = 'iVBORw0KGgo=';

describe('encodeBedrockRequest', () => {
  it('a tool loop: roles merged, system in order, toolUse with its input, toolResult by id, signed reasoning', () => {
    const dropped: string[] = [];
    const body = encodeBedrockRequest(
      base({
        system: [{ type: 'text', text: 'Be brief.' }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
          { role: 'user', content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG } }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'Look it up.', signature: 'sig' },
              { type: 'reasoning', text: 'unsigned summary' },
              { type: 'tool_call', id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
            ],
          },
          { role: 'system', content: [{ type: 'text', text: 'Use Celsius.' }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                toolCallId: 'tooluse_1',
                content: [{ type: 'text', text: '18C' }],
                isError: false,
              },
            ],
          },
        ],
        tools: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} } }],
        toolChoice: { type: 'tool', name: 'get_weather' },
        maxTokens: 100,
        temperature: 0.2,
        topP: 0.9,
        stop: ['END'],
        user: 'u1',
      }),
      CLAUDE,
      dropped,
    );
    expect(body).toEqual({
      messages: [
        {
          role: 'user',
          content: [{ text: 'Weather in Paris?' }, { image: { format: 'png', source: { bytes: PNG } } }],
        },
        {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'Look it up.', signature: 'sig' } } },
            { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } },
          ],
        },
        {
          role: 'user',
          content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: '18C' }], status: 'success' } }],
        },
      ],
      system: [{ text: 'Be brief.' }, { text: 'Use Celsius.' }],
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: 'get_weather',
              description: 'Weather',
              inputSchema: { json: { type: 'object', properties: {} } },
            },
          },
        ],
        toolChoice: { tool: { name: 'get_weather' } },
      },
      inferenceConfig: { maxTokens: 100, temperature: 0.2, topP: 0.9, stopSequences: ['END'] },
    });
    expect(dropped).toEqual(['user', 'messages.reasoning']);
  });

  it('Claude thinking goes in additionalModelRequestFields, its budget on top of a translated cap', () => {
    const body = encodeBedrockRequest(
      base({ maxTokens: 1000, topK: 5, reasoning: { effort: 'low', fields: ['reasoning_effort'] } }),
      CLAUDE,
    );
    expect(body.inferenceConfig).toEqual({ maxTokens: 2024 });
    expect(body.additionalModelRequestFields).toEqual({ top_k: 5, thinking: { type: 'enabled', budget_tokens: 1024 } });
  });

  it('a model that does not think: reasoning and top_k dropped by name, the default cap sent', () => {
    const dropped: string[] = [];
    const body = encodeBedrockRequest(
      base({ topK: 5, reasoning: { effort: 'high', fields: ['reasoning_effort'] } }),
      NOVA,
      dropped,
    );
    expect(body.inferenceConfig).toEqual({ maxTokens: 4096 });
    expect(body.additionalModelRequestFields).toBeUndefined();
    expect(dropped).toEqual(['reasoning_effort', 'top_k']);
  });

  it('a tool result with an error status; tool choice auto and required', () => {
    const tools = [{ name: 't', parameters: { type: 'object' } }];
    const messages: ChatRequest['messages'] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_call', id: 'a', name: 't', arguments: '' }] },
      { role: 'user', content: [{ type: 'tool_result', toolCallId: 'a', content: [], isError: true }] },
    ];
    const body = encodeBedrockRequest(base({ messages, tools, toolChoice: { type: 'required' } }), NOVA);
    expect((body.messages as { content: unknown[] }[])[1].content).toEqual([
      { toolUse: { toolUseId: 'a', name: 't', input: {} } },
    ]);
    expect((body.messages as { content: unknown[] }[])[2].content).toEqual([
      { toolResult: { toolUseId: 'a', content: [{ text: '' }], status: 'error' } },
    ]);
    expect((body.toolConfig as { toolChoice: unknown }).toolChoice).toEqual({ any: {} });
    const auto = encodeBedrockRequest(base({ tools, toolChoice: { type: 'auto' } }), NOVA);
    expect((auto.toolConfig as { toolChoice: unknown }).toolChoice).toEqual({ auto: {} });
  });

  it.each([
    [{ unmapped: ['logprobs'] }, 'logprobs'],
    [{ n: 2 }, 'n'],
    [{ responseFormat: { type: 'json_object' as const } }, 'response_format'],
    [{ tools: [{ name: 't', parameters: {} }], toolChoice: { type: 'none' as const } }, 'tool_choice'],
    [
      {
        messages: [
          {
            role: 'user' as const,
            content: [{ type: 'image' as const, source: { kind: 'url' as const, url: 'https://x/y.png' } }],
          },
        ],
      },
      'messages[0]',
    ],
    [
      {
        messages: [
          {
            role: 'user' as const,
            content: [
              { type: 'image' as const, source: { kind: 'base64' as const, mediaType: 'image/bmp', data: 'AA==' } },
            ],
          },
        ],
      },
      'messages[0]',
    ],
  ])('refuses what Converse cannot carry (%#) naming %s', (over, param) => {
    const err = (() => {
      try {
        encodeBedrockRequest(base(over as Partial<ChatRequest>), NOVA);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).status).toBe(400);
    expect((err as GatewayError).param).toBe(param);
  });

  const adaptive = (maxTokens: number, effort?: 'high' | 'low') =>
    base({ maxTokens, reasoning: { adaptive: true, effort, fields: ['thinking', 'output_config.effort'] } });

  it('Claude adaptive thinking (as Claude Code asks it) goes as it is, within the caller’s maxTokens', () => {
    // Adaptive thinking has no budget: the model spends what it needs inside max_tokens, so none is added on top.
    const req = adaptive(32000, 'high');
    const body = encodeBedrockRequest(req, { model: 'us.anthropic.claude-opus-4-6-v1' });
    expect(body.inferenceConfig).toEqual({ maxTokens: 32000 });
    // Its effort goes with it, in Claude's own form (AWS: "thinking.type: adaptive with output_config.effort").
    expect(body.additionalModelRequestFields).toEqual({
      thinking: { type: 'adaptive' },
      output_config: { effort: 'high' },
    });
    expect(maxBilledOutputTokens(req, 'anthropic-messages', 'bedrock-converse', undefined)).toBe(32000);
  });

  it.each([
    [32000, 'high', 16384],
    [8000, 'high', 7999],
    [32000, 'low', 1024],
    [32000, undefined, 16384],
  ] as const)(
    'on a Claude before 4.6 (no adaptive thinking), maxTokens %i and effort %s think a budget of %i inside it',
    (maxTokens, effort, budget) => {
      const dropped: string[] = [];
      const body = encodeBedrockRequest(
        adaptive(maxTokens, effort),
        { model: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
        dropped,
      );
      expect(body.inferenceConfig).toEqual({ maxTokens });
      expect(body.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: budget } });
      expect(dropped).toEqual([]);
    },
  );

  it('on a Claude before 4.6, adaptive thinking with no room for a budget is dropped and listed', () => {
    const dropped: string[] = [];
    const body = encodeBedrockRequest(adaptive(1024, 'high'), CLAUDE, dropped);
    expect([body.inferenceConfig, body.additionalModelRequestFields]).toEqual([{ maxTokens: 1024 }, undefined]);
    expect(dropped).toEqual(['thinking', 'output_config.effort']);
  });

  it('the budget reserves at least the maxTokens sent: exactly it with Claude thinking', () => {
    const thinking = base({ maxTokens: 1000, reasoning: { effort: 'low' } });
    const sent = (req: ChatRequest, model: string) =>
      (encodeBedrockRequest(req, { model }).inferenceConfig as { maxTokens: number }).maxTokens;
    const reserved = (req: ChatRequest) => maxBilledOutputTokens(req, 'openai-chat', 'bedrock-converse', undefined);
    expect(reserved(thinking)).toBe(sent(thinking, CLAUDE.model));
    expect(reserved(thinking)).toBe(2024);
    expect(reserved(thinking)).toBeGreaterThanOrEqual(sent(thinking, NOVA.model));
    expect(reserved(base())).toBe(sent(base(), NOVA.model));
  });
});
