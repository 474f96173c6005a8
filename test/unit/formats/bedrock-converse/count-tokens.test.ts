import { describe, expect, it } from 'vitest';
import { bedrockCountTokens } from '../../../../src/formats/bedrock-converse/count-tokens.js';

describe('bedrockCountTokens', () => {
  it('the body: the encoded input under input.converse, generation settings left out', () => {
    const encoded = {
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      system: [{ text: 'Be brief.' }],
      toolConfig: { tools: [{ toolSpec: { name: 't', inputSchema: { json: { type: 'object' } } } }] },
      inferenceConfig: { maxTokens: 100 },
      additionalModelRequestFields: { top_k: 5 },
    };
    expect(bedrockCountTokens.body(encoded)).toEqual({
      input: { converse: { messages: encoded.messages, system: encoded.system, toolConfig: encoded.toolConfig } },
    });
    expect(bedrockCountTokens.body({ messages: encoded.messages })).toEqual({
      input: { converse: { messages: encoded.messages } },
    });
  });

  it('the count: inputTokens, a non-negative integer', () => {
    expect(bedrockCountTokens.inputTokens({ inputTokens: 42 })).toBe(42);
    expect(bedrockCountTokens.inputTokens({ inputTokens: 0 })).toBe(0);
    for (const bad of [{ inputTokens: -1 }, { inputTokens: 1.5 }, { input_tokens: 3 }, { inputTokens: '3' }, null])
      expect(bedrockCountTokens.inputTokens(bad)).toBeUndefined();
  });

  it("unsupported: only a 400 saying the model doesn't support counting tokens", () => {
    const says = { message: "The provided model doesn't support counting tokens." };
    expect(bedrockCountTokens.unsupported(400, says)).toBe(true);
    expect(bedrockCountTokens.unsupported(400, { message: 'The model does not support counting tokens' })).toBe(true);
    expect(bedrockCountTokens.unsupported(403, says)).toBe(false);
    expect(bedrockCountTokens.unsupported(400, { message: 'Malformed input request' })).toBe(false);
    expect(bedrockCountTokens.unsupported(400, undefined)).toBe(false);
  });
});
