import { describe, expect, it } from 'vitest';
import { cutStreamUsage } from '../../../src/budget/cut-stream-usage.js';
import { decodeOpenaiRequest } from '../../../src/formats/openai-chat/request-decode.js';
import type { ModelSpec } from '../../../src/config/types.js';

const model: ModelSpec = {
  id: 'up/gpt-4o-mini',
  provider: 'up',
  name: 'gpt-4o-mini',
  upstreamName: 'gpt-4o-mini',
  kind: 'chat',
  contextWindow: 128_000,
  timeouts: { connectMs: 1000, firstByteMs: 1000, totalMs: 1000 },
};
const chat = decodeOpenaiRequest({ model: 'up/gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there' }] });
const relayedText = 'one two three four five six seven eight nine ten';

describe('cutStreamUsage', () => {
  it('keeps the final usage when the provider finished (the caller left after the end marker)', () => {
    const usage = { inputTokens: 7, outputTokens: 2 };
    // Fewer output tokens than the text holds: a count would raise it; the final usage is what is billed.
    expect(cutStreamUsage(usage, { output: [relayedText], complete: true }, chat, model)).toBe(usage);
  });

  it('raises the output to what was relayed when the stream was cut before its end', () => {
    const usage = { inputTokens: 7, outputTokens: 1 };
    const billed = cutStreamUsage(usage, { output: [relayedText], complete: false }, chat, model);
    expect(billed?.inputTokens).toBe(7);
    expect(billed?.outputTokens).toBeGreaterThanOrEqual(10);
  });

  it('counts the prompt too when no usage arrived at all, complete or not', () => {
    const billed = cutStreamUsage(undefined, { output: [relayedText], complete: true }, chat, model);
    expect(billed?.inputTokens).toBeGreaterThan(0);
    expect(billed?.outputTokens).toBeGreaterThanOrEqual(10);
  });
});
