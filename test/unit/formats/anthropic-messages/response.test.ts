import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChatResponse } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import {
  anthropicMessageId,
  decodeAnthropicResponse,
  encodeAnthropicResponse,
} from '../../../../src/formats/anthropic-messages/response.js';

const FIXTURES = new URL('../../../fixtures/formats/anthropic-messages/', import.meta.url);
const fixture = (name: string) => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));

describe('decodeAnthropicResponse', () => {
  it('keeps text, tool calls, signed thinking and cache usage; skips redacted thinking', () => {
    const res = decodeAnthropicResponse(fixture('message-thinking-tool-cache.json'));
    expect(res).toEqual({
      id: 'msg_01AbCdEfGhJkMnPqRsTuVwXy',
      model: 'claude-sonnet-4-5-20250929',
      created: expect.any(Number),
      content: [
        {
          type: 'reasoning',
          text: 'Need the weather tool.',
          signature: 'EqQBCkgIARABGAIiQHd2b3JrZXJzLXNpZ25hdHVyZQ==',
        },
        { type: 'text', text: 'Checking Paris now.' },
        {
          type: 'tool_call',
          id: 'toolu_01A09q90qw90lq917835lq9',
          name: 'get_weather',
          arguments: '{"location":"Paris, FR","unit":"celsius"}',
        },
      ],
      finish: 'tool_calls',
      // Anthropic's input_tokens already excludes cache reads and writes, like canonical inputTokens.
      usage: { inputTokens: 2095, outputTokens: 503, cacheReadTokens: 4096, cacheWriteTokens: 1024 },
    });
  });

  it('maps every stop reason', () => {
    const finish = (stop_reason: unknown, stop_sequence: unknown = null) => {
      const r = decodeAnthropicResponse({
        content: [],
        stop_reason,
        stop_sequence,
        usage: { input_tokens: 1, output_tokens: 1 },
      });
      return [r.finish, r.stopSequence];
    };
    expect(finish('end_turn')).toEqual(['stop', undefined]);
    expect(finish('stop_sequence', '###')).toEqual(['stop', '###']);
    expect(finish('max_tokens')).toEqual(['length', undefined]);
    expect(finish('model_context_window_exceeded')).toEqual(['length', undefined]);
    expect(finish('tool_use')).toEqual(['tool_calls', undefined]);
    expect(finish('refusal')).toEqual(['content_filter', undefined]);
    expect(finish('pause_turn')).toEqual(['other', undefined]);
    expect(finish(null)).toEqual(['other', undefined]);
  });

  it('rejects a body that is not a message', () => {
    expect(() => decodeAnthropicResponse({ type: 'error', error: {} })).toThrow(GatewayError);
  });
});

describe('encodeAnthropicResponse', () => {
  it('round-trips an upstream message (minus redacted thinking)', () => {
    const original = fixture('message-thinking-tool-cache.json');
    const encoded = encodeAnthropicResponse(decodeAnthropicResponse(original));
    const { service_tier: _tier, ...usage } = original.usage;
    // cache_creation (by TTL) is always there; canonical usage does not keep TTLs, so writes count as 5-minute ones.
    const cacheCreation = {
      ephemeral_5m_input_tokens: usage.cache_creation_input_tokens,
      ephemeral_1h_input_tokens: 0,
    };
    expect(encoded).toEqual({
      ...original,
      content: original.content.filter((b: { type: string }) => b.type !== 'redacted_thinking'),
      usage: { ...usage, cache_creation: cacheCreation },
    });
  });

  const base: ChatResponse = {
    id: 'chatcmpl-9',
    model: 'gpt-x',
    created: 1,
    content: [],
    finish: 'stop',
    usage: { inputTokens: 5, outputTokens: 7 },
  };

  it('encodes a translated response: msg_ id, stop reasons, tool input objects, zero cache counters', () => {
    const encoded = encodeAnthropicResponse({
      ...base,
      content: [
        { type: 'reasoning', text: 'unsigned' },
        { type: 'text', text: '' },
        { type: 'text', text: 'Hi' },
        { type: 'tool_call', id: 'call_1', name: 'f', arguments: '{"a":1}' },
        { type: 'tool_call', id: 'call_2', name: 'g', arguments: '{"a":' },
      ],
      finish: 'length',
    });
    expect(encoded).toEqual({
      id: 'msg_chatcmpl-9',
      type: 'message',
      role: 'assistant',
      model: 'gpt-x',
      content: [
        { type: 'thinking', thinking: 'unsigned', signature: '' },
        { type: 'text', text: 'Hi' },
        { type: 'tool_use', id: 'call_1', name: 'f', input: { a: 1 } },
        // Truncated arguments: input must be an object; stop_reason says the turn was cut.
        { type: 'tool_use', id: 'call_2', name: 'g', input: {} },
      ],
      stop_reason: 'max_tokens',
      stop_sequence: null,
      usage: {
        input_tokens: 5,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        output_tokens: 7,
      },
    });
  });

  it('maps canonical finish reasons back', () => {
    const stop = (finish: ChatResponse['finish'], stopSequence?: string) => {
      const e = encodeAnthropicResponse({ ...base, finish, stopSequence });
      return [e.stop_reason, e.stop_sequence];
    };
    expect(stop('stop')).toEqual(['end_turn', null]);
    expect(stop('stop', 'END')).toEqual(['stop_sequence', 'END']);
    expect(stop('length')).toEqual(['max_tokens', null]);
    expect(stop('tool_calls')).toEqual(['tool_use', null]);
    expect(stop('content_filter')).toEqual(['refusal', null]);
    expect(stop('other')).toEqual(['end_turn', null]);
    expect(stop('error')).toEqual(['end_turn', null]);
  });

  it('prefixes ids only when needed', () => {
    expect(anthropicMessageId('msg_1')).toBe('msg_1');
    expect(anthropicMessageId('abc')).toBe('msg_abc');
    expect(anthropicMessageId('')).toMatch(/^msg_[0-9a-z]{26}$/);
  });
});
