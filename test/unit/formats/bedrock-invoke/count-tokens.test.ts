import { describe, expect, it } from 'vitest';
import { ENVELOPES } from '../../../../src/formats/registry.js';

const { countTokens, errorMessage, errorStatus } = ENVELOPES['bedrock-invoke'];

const inner = (body: Buffer) => {
  const outer = JSON.parse(body.toString()) as { input: { invokeModel: { body: string } } };
  expect(Object.keys(outer)).toEqual(['input']);
  expect(Object.keys(outer.input)).toEqual(['invokeModel']);
  return JSON.parse(Buffer.from(outer.input.invokeModel.body, 'base64').toString('utf8'));
};

describe('CountTokens of an InvokeModel body', () => {
  it('wraps the edited body, base64, in input.invokeModel.body; adds the max_tokens InvokeModel requires', () => {
    const edited = '{"anthropic_version":"bedrock-2023-05-31","messages":[{"role":"user","content":"hé"}]}';
    expect(inner(countTokens.body(Buffer.from(edited)))).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      messages: [{ role: 'user', content: 'hé' }],
      max_tokens: 1,
    });
    const thinking = '{"max_tokens":10,"thinking":{"type":"enabled","budget_tokens":2048}}';
    expect(inner(countTokens.body(Buffer.from(thinking))).max_tokens).toBe(10);
    const noCap = '{"thinking":{"type":"enabled","budget_tokens":2048}}';
    expect(inner(countTokens.body(Buffer.from(noCap))).max_tokens).toBe(2049);
  });

  it('reads inputTokens; anything else is no count', () => {
    expect(countTokens.inputTokens({ inputTokens: 17 })).toBe(17);
    for (const bad of [{ input_tokens: 17 }, { inputTokens: '17' }, { inputTokens: -1 }, { inputTokens: 1.5 }, null])
      expect(countTokens.inputTokens(bad)).toBeUndefined();
  });

  it("only Bedrock's 400 saying the model cannot count means counting locally", () => {
    const refusal = { message: "The provided model doesn't support counting tokens." };
    expect(countTokens.unsupported(400, refusal)).toBe(true);
    expect(countTokens.unsupported(400, { message: 'This model does not support counting tokens' })).toBe(true);
    expect(countTokens.unsupported(429, refusal)).toBe(false);
    expect(countTokens.unsupported(400, { message: 'Malformed input request' })).toBe(false);
    expect(countTokens.unsupported(400, undefined)).toBe(false);
  });

  it("errors are AWS's, mapped as for Converse", () => {
    expect(errorMessage({ message: 'Too many requests' })).toBe('Too many requests');
    expect(errorStatus(429, { message: 'not ready', __type: 'ModelNotReadyException' })).toBe(503);
    expect(errorStatus(400, { message: 'x' })).toBe(400);
  });
});
