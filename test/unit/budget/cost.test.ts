import { describe, expect, it } from 'vitest';
import { costNanoUsd, formatUsd, nanoToUsd } from '../../../src/budget/cost.js';
import { usageFromOpenai } from '../../../src/formats/openai-chat/usage.js';
import { usageFromAnthropic } from '../../../src/formats/anthropic-messages/usage.js';

const price = { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 3.75 };

describe('costNanoUsd', () => {
  it('prices input, output and cache tokens once each', () => {
    // 1000 input at $2.50/M = $0.0025; 500 output at $10/M = $0.005
    expect(costNanoUsd({ inputTokens: 1000, outputTokens: 500 }, price)).toBe(7_500_000);
    expect(costNanoUsd({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 1000, cacheWriteTokens: 1000 }, price)).toBe(
      1_250_000 + 3_750_000,
    );
  });
  it('cache prices default to the input price; no price costs nothing', () => {
    expect(costNanoUsd({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 1000 }, { input: 2, output: 8 })).toBe(
      2_000_000,
    );
    expect(costNanoUsd({ inputTokens: 1000, outputTokens: 1000 }, undefined)).toBe(0);
  });
  it('OpenAI usage: prompt_tokens includes cached_tokens, which are priced at the cache-read price', () => {
    const u = usageFromOpenai({
      prompt_tokens: 1200,
      completion_tokens: 100,
      prompt_tokens_details: { cached_tokens: 1000 },
    });
    // 200 uncached × 2.5 + 1000 cached × 1.25 + 100 × 10 (per million) = 500 + 1250 + 1000 = 2750 µ$ … in nano: ×1000
    expect(costNanoUsd(u, price)).toBe(2_750_000);
  });
  it('Anthropic usage: input_tokens excludes cache reads and writes, each priced on its own', () => {
    const u = usageFromAnthropic({
      input_tokens: 200,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 400,
      output_tokens: 100,
    });
    expect(costNanoUsd(u, price)).toBe(500_000 + 1_250_000 + 1_500_000 + 1_000_000);
  });
  it('formats and converts', () => {
    expect(nanoToUsd(7_500_000)).toBe(0.0075);
    expect(formatUsd(7_500_000)).toBe('0.007500');
    expect(formatUsd(150)).toBe('0.000000150');
  });
});
