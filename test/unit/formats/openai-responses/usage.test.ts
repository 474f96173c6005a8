import { describe, expect, it } from 'vitest';
import { usageFromResponses, usageToResponses } from '../../../../src/formats/openai-responses/usage.js';

describe('Responses usage', () => {
  it('input_tokens includes cache reads and writes; canonical inputTokens excludes both', () => {
    expect(
      usageFromResponses({
        input_tokens: 2100,
        input_tokens_details: { cached_tokens: 1920, cache_write_tokens: 100 },
        output_tokens: 96,
        output_tokens_details: { reasoning_tokens: 64 },
        total_tokens: 2196,
      }),
    ).toEqual({ inputTokens: 80, outputTokens: 96, cacheReadTokens: 1920, cacheWriteTokens: 100, reasoningTokens: 64 });
  });

  it('zero or missing details are left out; no usage object is undefined', () => {
    expect(usageFromResponses({ input_tokens: 12, output_tokens: 16 })).toEqual({ inputTokens: 12, outputTokens: 16 });
    expect(
      usageFromResponses({
        input_tokens: 5,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 1,
        output_tokens_details: { reasoning_tokens: 0 },
      }),
    ).toEqual({ inputTokens: 5, outputTokens: 1 });
    expect(usageFromResponses(null)).toBeUndefined();
    expect(usageFromResponses('12')).toBeUndefined();
  });

  it('canonical → every counter, cache included in input_tokens, total = input + output', () => {
    expect(
      usageToResponses({
        inputTokens: 80,
        outputTokens: 96,
        cacheReadTokens: 1920,
        cacheWriteTokens: 100,
        reasoningTokens: 64,
      }),
    ).toEqual({
      input_tokens: 2100,
      input_tokens_details: { cached_tokens: 1920, cache_write_tokens: 100 },
      output_tokens: 96,
      output_tokens_details: { reasoning_tokens: 64 },
      total_tokens: 2196,
    });
    expect(usageToResponses({ inputTokens: 3, outputTokens: 4 })).toEqual({
      input_tokens: 3,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 4,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 7,
    });
  });

  it('round trip canonical → Responses → canonical', () => {
    const u = { inputTokens: 7, outputTokens: 9, cacheReadTokens: 2, cacheWriteTokens: 3, reasoningTokens: 4 };
    expect(usageFromResponses(usageToResponses(u))).toEqual(u);
  });
});
