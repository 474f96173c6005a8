import { describe, expect, it } from 'vitest';
import type { ChatResponse } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { sealAnthropicReasoning } from '../../../../src/formats/openai-responses/reasoning.js';
import { parseIssuedItemId } from '../../../../src/formats/openai-responses-ids.js';
import {
  decodeResponsesResponse,
  encodeResponsesResponse,
  responsesId,
} from '../../../../src/formats/openai-responses/response.js';
import { chatRequest } from './load-sse.js';

const CUSTOM = { name: 'apply_patch', parameters: {}, custom: true };
const FN = { name: 'get_weather', description: 'Weather', parameters: { type: 'object' } };

function res(over: Partial<ChatResponse> = {}): ChatResponse {
  return {
    id: 'msg_01XYZ',
    model: 'team/claude',
    created: 1756300000,
    content: [{ type: 'text', text: 'Hello' }],
    finish: 'stop',
    usage: { inputTokens: 10, outputTokens: 5 },
    ...over,
  };
}

/** A response id as the conversation stage names a translated answer (`resp_` + the correlation id). */
const ULID = '01JZ8X6Q9ZK3M4N5P6R7S8T9VW';

describe('encodeResponsesResponse', () => {
  it('a complete response object: ids, output items, usage and the echoed request', () => {
    const signed = { type: 'reasoning' as const, text: 'Think.', signature: 'sig' };
    const req = chatRequest({
      system: [{ type: 'text', text: 'Be brief.' }],
      tools: [FN, CUSTOM],
      toolChoice: { type: 'auto' },
      maxTokens: 500,
      temperature: 0.2,
      user: 'u1',
      reasoning: { effort: 'high', fields: ['reasoning.effort'] },
    });
    const body = encodeResponsesResponse(
      res({
        id: `resp_${ULID}`,
        content: [
          signed,
          { type: 'text', text: 'Calling.' },
          { type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'tool_call', id: 'toolu_2', name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' },
        ],
        finish: 'tool_calls',
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 100, reasoningTokens: 2 },
      }),
      req,
    );
    const output = body.output as Array<Record<string, unknown>>;
    expect(body).toEqual({
      id: `resp_${ULID}`,
      object: 'response',
      created_at: 1756300000,
      status: 'completed',
      background: false,
      error: null,
      incomplete_details: null,
      instructions: 'Be brief.',
      max_output_tokens: 500,
      max_tool_calls: null,
      model: 'team/claude',
      output: [
        {
          id: `rs_${ULID}_0`,
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'Think.' }],
          encrypted_content: sealAnthropicReasoning(signed),
        },
        {
          id: `msg_${ULID}_1`,
          type: 'message',
          status: 'completed',
          content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Calling.' }],
          role: 'assistant',
        },
        {
          id: `fc_${ULID}_2`,
          type: 'function_call',
          status: 'completed',
          arguments: '{"city":"Paris"}',
          call_id: 'toolu_1',
          name: 'get_weather',
        },
        {
          id: `ctc_${ULID}_3`,
          type: 'custom_tool_call',
          status: 'completed',
          call_id: 'toolu_2',
          name: 'apply_patch',
          input: '*** Begin Patch',
        },
      ],
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: 'high', summary: null },
      store: true,
      temperature: 0.2,
      text: { format: { type: 'text' } },
      tool_choice: 'auto',
      tools: [
        { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object' }, strict: null },
        { type: 'custom', name: 'apply_patch' },
      ],
      top_logprobs: 0,
      top_p: 1,
      truncation: 'disabled',
      usage: {
        input_tokens: 110,
        input_tokens_details: { cached_tokens: 100, cache_write_tokens: 0 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 2 },
        total_tokens: 115,
      },
      user: 'u1',
      metadata: {},
    });
    // Ids the state layer can trace back to this response and the item's place in it.
    expect(output.map((o) => parseIssuedItemId(o.id as string))).toEqual(
      [0, 1, 2, 3].map((index) => ({ responseId: `resp_${ULID}`, index })),
    );
  });

  it('a reasoning item from OpenAI keeps its id and encrypted content; empty texts and reasoning make nothing', () => {
    const body = encodeResponsesResponse(
      res({
        content: [
          { type: 'reasoning', text: '' },
          { type: 'reasoning', text: '', encrypted: 'gAAAAB', id: 'rs_openai' },
          { type: 'text', text: '' },
        ],
      }),
      chatRequest(),
    );
    expect(body.output).toEqual([{ id: 'rs_openai', type: 'reasoning', summary: [], encrypted_content: 'gAAAAB' }]);
  });

  it('status from the finish: length and content_filter are incomplete, error is failed', () => {
    expect(encodeResponsesResponse(res({ finish: 'length' }), chatRequest())).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      error: null,
    });
    expect(encodeResponsesResponse(res({ finish: 'content_filter' }), chatRequest())).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
    });
    expect(encodeResponsesResponse(res({ finish: 'error' }), chatRequest())).toMatchObject({
      status: 'failed',
      incomplete_details: null,
      error: { type: 'server_error', code: 'server_error', message: 'The model failed to complete the response.' },
    });
  });

  it('echoes structured output, a forced custom tool and the defaults', () => {
    const body = encodeResponsesResponse(
      res(),
      chatRequest({
        tools: [CUSTOM],
        toolChoice: { type: 'tool', name: 'apply_patch' },
        parallelToolCalls: false,
        topP: 0.5,
        responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
      }),
    );
    expect(body).toMatchObject({
      tool_choice: { type: 'custom', name: 'apply_patch' },
      parallel_tool_calls: false,
      top_p: 0.5,
      temperature: 1,
      instructions: null,
      max_output_tokens: null,
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
    });
    expect(body).not.toHaveProperty('user');
    expect(encodeResponsesResponse(res(), chatRequest({ responseFormat: { type: 'json_object' } })).text).toEqual({
      format: { type: 'json_object' },
    });
  });

  it('a custom tool call whose arguments are not {"input": string} passes the text on', () => {
    const body = encodeResponsesResponse(
      res({ content: [{ type: 'tool_call', id: 'c', name: 'apply_patch', arguments: '{"input": "*** Beg' }] }),
      chatRequest({ tools: [CUSTOM] }),
    );
    expect((body.output as Array<Record<string, unknown>>)[0].input).toBe('{"input": "*** Beg');
  });

  it('response ids: resp_ prefix once, a fresh id when there is none', () => {
    expect(responsesId('resp_abc')).toBe('resp_abc');
    expect(responsesId('chatcmpl-1')).toBe('resp_chatcmpl-1');
    expect(responsesId('')).toMatch(/^resp_[0-9a-z]{26}$/);
  });
});

describe('decodeResponsesResponse', () => {
  const body = {
    id: 'resp_1',
    object: 'response',
    created_at: 1756300000,
    status: 'completed',
    model: 'gpt-5-2025-08-07',
    output: [
      {
        id: 'rs_1',
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'Plan.' }],
        encrypted_content: 'gAAAAB',
      },
      {
        id: 'msg_1',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Sure.', annotations: [] }],
      },
      { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{"a":1}', status: 'completed' },
      { id: 'ctc_1', type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: 'diff "x"' },
      { id: 'ws_1', type: 'web_search_call', status: 'completed' },
    ],
    usage: {
      input_tokens: 50,
      input_tokens_details: { cached_tokens: 20 },
      output_tokens: 30,
      output_tokens_details: { reasoning_tokens: 10 },
      total_tokens: 80,
    },
  };

  it('output items → parts in order; a custom call as {"input": …}; hosted tool items skipped', () => {
    expect(decodeResponsesResponse(body)).toEqual({
      id: 'resp_1',
      model: 'gpt-5-2025-08-07',
      created: 1756300000,
      content: [
        { type: 'reasoning', text: 'Plan.', encrypted: 'gAAAAB', id: 'rs_1' },
        { type: 'text', text: 'Sure.' },
        { type: 'tool_call', id: 'call_1', name: 'f', arguments: '{"a":1}' },
        { type: 'tool_call', id: 'call_2', name: 'apply_patch', arguments: '{"input":"diff \\"x\\""}' },
      ],
      finish: 'tool_calls',
      usage: { inputTokens: 30, outputTokens: 30, cacheReadTokens: 20, reasoningTokens: 10 },
    });
  });

  it('a refusal is text finishing with content_filter; incomplete at the limit is length', () => {
    const refused = {
      ...body,
      output: [{ type: 'message', content: [{ type: 'refusal', refusal: "I can't." }] }],
    };
    expect(decodeResponsesResponse(refused)).toMatchObject({
      content: [{ type: 'text', text: "I can't." }],
      finish: 'content_filter',
    });
    const cut = { ...body, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [] };
    expect(decodeResponsesResponse(cut)).toMatchObject({ content: [], finish: 'length' });
  });

  it('a failed response is the upstream error; a body that is not a response is a 502', () => {
    const failed = { ...body, status: 'failed', error: { code: 'rate_limit_exceeded', message: 'later' }, output: [] };
    expect(() => decodeResponsesResponse(failed)).toThrow(GatewayError);
    expect(() => decodeResponsesResponse(failed)).toThrow('The upstream response failed (rate_limit_exceeded): later');
    expect(() => decodeResponsesResponse({ id: 'x' })).toThrow(
      'The upstream sent a response that is not a Responses object.',
    );
  });

  it('round trip: Responses → canonical → Responses keeps items, ids of reasoning, status and usage', () => {
    const req = chatRequest({ tools: [{ name: 'f', parameters: {} }, CUSTOM] });
    const again = encodeResponsesResponse(decodeResponsesResponse(body), req);
    expect(again).toMatchObject({ id: 'resp_1', model: 'gpt-5-2025-08-07', status: 'completed' });
    expect(again.usage).toEqual({ ...body.usage, input_tokens_details: { cached_tokens: 20, cache_write_tokens: 0 } });
    const items = again.output as Array<Record<string, unknown>>;
    expect(items.map((i) => i.type)).toEqual(['reasoning', 'message', 'function_call', 'custom_tool_call']);
    expect(items[0]).toEqual({
      id: 'rs_1',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Plan.' }],
      encrypted_content: 'gAAAAB',
    });
    expect(items[2]).toMatchObject({ call_id: 'call_1', name: 'f', arguments: '{"a":1}' });
    expect(items[3]).toMatchObject({ call_id: 'call_2', name: 'apply_patch', input: 'diff "x"' });
  });
});
