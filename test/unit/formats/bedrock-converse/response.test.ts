import { describe, expect, it } from 'vitest';
import { decodeBedrockResponse } from '../../../../src/formats/bedrock-converse/response.js';
import {
  bedrockErrorMessage,
  bedrockErrorStatus,
  bedrockStreamError,
} from '../../../../src/formats/bedrock-converse/errors.js';
import { bedrockModelThinks } from '../../../../src/formats/bedrock-converse/model-traits.js';
import { bedrockClaudeName } from '../../../../src/formats/model-traits.js';

describe('decodeBedrockResponse', () => {
  it('reasoning, text and a tool use; stop reason and usage with cache read/write', () => {
    const res = decodeBedrockResponse({
      output: {
        message: {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'Think.', signature: 'sig' } } },
            { reasoningContent: { redactedContent: 'b64' } },
            { text: 'Checking.' },
            { toolUse: { toolUseId: 'tooluse_1', name: 'get', input: { city: 'Paris' } } },
          ],
        },
      },
      stopReason: 'tool_use',
      usage: { inputTokens: 3, outputTokens: 9, totalTokens: 17, cacheReadInputTokens: 5 },
      metrics: { latencyMs: 12 },
    });
    expect(res.id).toMatch(/^bedrock-/);
    expect(res.content).toEqual([
      { type: 'reasoning', text: 'Think.', signature: 'sig' },
      { type: 'reasoning', text: '', redacted: 'b64' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_call', id: 'tooluse_1', name: 'get', arguments: '{"city":"Paris"}' },
    ]);
    expect(res.finish).toBe('tool_calls');
    expect(res.usage).toEqual({ inputTokens: 3, outputTokens: 9, cacheReadTokens: 5 });
  });

  it('a guardrail intervention is content_filter', () => {
    const res = decodeBedrockResponse({ output: { message: { content: [] } }, stopReason: 'guardrail_intervened' });
    expect(res.finish).toBe('content_filter');
    expect(res.content).toEqual([]);
  });
});

describe('Bedrock errors', () => {
  it('the message, with the exception name when the body gives one', () => {
    expect(bedrockErrorMessage({ message: 'Too many requests' })).toBe('Too many requests');
    expect(bedrockErrorMessage({ Message: 'Denied', __type: 'com.amazon.coral.service#AccessDeniedException' })).toBe(
      'Denied (AccessDeniedException)',
    );
    expect(bedrockErrorMessage('nope')).toBeUndefined();
  });

  it('a body naming ModelNotReadyException is 503; without a name the status stands', () => {
    expect(bedrockErrorStatus(429, { message: 'loading', __type: 'ModelNotReadyException' })).toBe(503);
    expect(bedrockErrorStatus(400, { message: 'bad', __type: 'ValidationException:http://x' })).toBe(400);
    expect(bedrockErrorStatus(429, { message: 'slow down' })).toBe(429);
  });
});

describe('Bedrock exception frames', () => {
  it.each([
    ['throttlingException', 429, true],
    ['serviceUnavailableException', 503, true],
    ['internalServerException', 500, true],
    ['modelStreamErrorException', 502, true],
    ['validationException', 400, false],
    ['somethingNewException', 502, true],
  ])('%s → %i (retryable %s)', (type, status, retryable) => {
    const err = bedrockStreamError(type, { message: 'm' });
    expect([err.status, err.retryable, err.message]).toEqual([
      status,
      retryable,
      `The upstream reported ${type} during the stream: m`,
    ]);
  });
});

describe('Bedrock model traits', () => {
  it('finds the Claude name in model ids, inference profiles and ARNs', () => {
    expect(bedrockClaudeName('anthropic.claude-3-7-sonnet-20250219-v1:0')).toBe('claude-3-7-sonnet-20250219');
    expect(bedrockClaudeName('us.anthropic.claude-sonnet-4-20250514-v1:0')).toBe('claude-sonnet-4-20250514');
    expect(
      bedrockClaudeName('arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0'),
    ).toBe('claude-3-haiku-20240307');
    expect(bedrockClaudeName('amazon.nova-pro-v1:0')).toBeUndefined();
    expect(bedrockModelThinks('anthropic.claude-3-haiku-20240307-v1:0')).toBe(false);
    expect(bedrockModelThinks('us.anthropic.claude-sonnet-4-20250514-v1:0')).toBe(true);
    expect(bedrockModelThinks('amazon.nova-pro-v1:0', true)).toBe(true);
  });
});
