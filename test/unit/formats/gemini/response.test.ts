import { describe, expect, it } from 'vitest';
import { decodeGeminiResponse } from '../../../../src/formats/gemini/response.js';
import { geminiCountTokens } from '../../../../src/formats/gemini/count-tokens.js';
import { geminiErrorMessage, geminiErrorStatus, geminiRetryDelayMs } from '../../../../src/formats/gemini/errors.js';
import { signatureFromToolCallId } from '../../../../src/formats/gemini-tool-ids.js';
import { jsonFixture } from './load-sse.js';

describe('decodeGeminiResponse', () => {
  it('thought, text and parallel calls (the first signed); usage with cache and thoughts', () => {
    const res = decodeGeminiResponse(jsonFixture('thought-parallel-tools'));
    const [reasoning, text, signed, unsigned] = res.content;
    expect(reasoning).toEqual({ type: 'reasoning', text: 'Thinking about tools.' });
    expect(text).toEqual({ type: 'text', text: 'I will call both.' });
    expect(signed).toMatchObject({ type: 'tool_call', name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(unsigned).toMatchObject({ type: 'tool_call', name: 'get_time', arguments: '{}' });
    const signedId = (signed as { id: string }).id;
    const unsignedId = (unsigned as { id: string }).id;
    expect(signatureFromToolCallId(signedId)).toBe('CiQBcsjafDxu2nS+0tk1Yx8Vq9Ya3cM6Xq8Zc1hB0YzE9Jw=');
    expect(unsignedId).toMatch(/^call_g_[0-9a-f]{24}$/);
    expect(signatureFromToolCallId(unsignedId)).toBeUndefined();
    // Stable: the same answer decodes to the same ids.
    expect(decodeGeminiResponse(jsonFixture('thought-parallel-tools')).content).toEqual(res.content);
    expect(res).toMatchObject({ id: 'resp-1', model: 'gemini-2.5-flash', finish: 'tool_calls' });
    expect(res.usage).toEqual({ inputTokens: 20, outputTokens: 80, cacheReadTokens: 100, reasoningTokens: 50 });
  });

  it('finish reasons: STOP, MAX_TOKENS, RECITATION, and MALFORMED_FUNCTION_CALL refused', () => {
    const answer = (finishReason: string) =>
      decodeGeminiResponse({ candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason }] });
    expect(answer('STOP').finish).toBe('stop');
    expect(answer('MAX_TOKENS').finish).toBe('length');
    expect(answer('RECITATION').finish).toBe('content_filter');
    expect(answer('SPII').finish).toBe('content_filter');
    expect(answer('OTHER').finish).toBe('other');
    expect(() => answer('MALFORMED_FUNCTION_CALL')).toThrow(
      'The Gemini model produced an invalid function call (MALFORMED_FUNCTION_CALL).',
    );
  });

  it('a blocked prompt is a 400 naming the reason', () => {
    expect(() => decodeGeminiResponse({ promptFeedback: { blockReason: 'SAFETY' } })).toThrow(
      "The Gemini model refused the prompt: it was blocked by Google's content filters (SAFETY).",
    );
  });
});

describe('Gemini error bodies', () => {
  const body = {
    error: {
      code: 429,
      message: 'Resource has been exhausted (e.g. check quota).',
      status: 'RESOURCE_EXHAUSTED',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [] },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '17.2s' },
      ],
    },
  };

  it('message with its status, and RetryInfo as milliseconds', () => {
    expect(geminiErrorMessage(body)).toBe('Resource has been exhausted (e.g. check quota). (RESOURCE_EXHAUSTED)');
    expect(geminiRetryDelayMs(body)).toBe(17200);
    expect(geminiRetryDelayMs({ error: { code: 500, message: 'x' } })).toBeUndefined();
    expect(geminiErrorMessage({ nope: 1 })).toBeUndefined();
  });

  it('a key Google refuses (400 API_KEY_INVALID) is a refused credential, 401; other 400s stay', () => {
    const refused = {
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: 'API key not valid.',
        details: [{ reason: 'API_KEY_INVALID' }],
      },
    };
    expect(geminiErrorStatus(400, refused)).toBe(401);
    expect(geminiErrorStatus(400, { error: { code: 400, message: 'bad schema' } })).toBe(400);
    expect(geminiErrorStatus(429, body)).toBe(429);
  });
});

describe('geminiCountTokens', () => {
  it('wraps the counted fields in generateContentRequest and reads totalTokens', () => {
    const encoded = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 9 } };
    expect(geminiCountTokens.body(encoded, 'gemini-2.5-flash')).toEqual({
      generateContentRequest: { model: 'models/gemini-2.5-flash', contents: encoded.contents },
    });
    expect(geminiCountTokens.inputTokens({ totalTokens: 31 })).toBe(31);
    expect(geminiCountTokens.inputTokens({ totalTokens: -1 })).toBeUndefined();
  });
});
