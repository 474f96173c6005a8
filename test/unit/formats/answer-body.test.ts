import { describe, expect, it } from 'vitest';
import { fixDateNow } from '../../helpers/fixed-date.js';
import { decodeAnswer, relayAnswer, relayAnswerDecoded, relayAnswerUsage } from '../../../src/formats/answer-body.js';
import { anthropicMessages } from '../../../src/formats/anthropic-messages/index.js';
import { openaiChat } from '../../../src/formats/openai-chat/index.js';
import type { PassThrough, WireFormat } from '../../../src/formats/types.js';
import { renameModelIn } from '../../../src/formats/response-model.js';

fixDateNow(); // Anthropic messages carry no time: decoding one stamps Date.now()

const relay = (text: string, name = 'alias/fast') => {
  const { body, parsed } = relayAnswer(Buffer.from(text), name, 'up');
  return { body: body.toString('utf8'), usage: (parsed as { usage?: unknown } | null)?.usage };
};

const OPENAI =
  '{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-real","choices":[{"index":0,' +
  '"message":{"role":"assistant","content":"the \\"model\\": \\"x\\" and {\\"usage\\":1} é 🎉"},' +
  '"finish_reason":"stop"}],"usage":{"prompt_tokens":24,"completion_tokens":9,"total_tokens":33}}';
const ANTHROPIC =
  '{"id":"msg_1","type":"message","role":"assistant","model":"claude-real","content":[{"type":"text",' +
  '"text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}';
const RESPONSES =
  '{"id":"resp_1","object":"response","status":"completed","model":"gpt-real","output":[{"type":' +
  '"web_search_call","id":"ws_1","action":{"model":"inner"}}],"usage":{"input_tokens":5,"output_tokens":7}}';

describe('relayAnswer', () => {
  it('renames the model in the bytes as the whole-text rename does, and parses the answer', () => {
    for (const text of [OPENAI, ANTHROPIC, RESPONSES]) {
      const out = relay(text);
      expect(out.body).toBe(renameModelIn(text, 'alias/fast'));
      expect(out.usage).toEqual(JSON.parse(text).usage);
      expect(JSON.parse(out.body)).toEqual({ ...JSON.parse(text), model: 'alias/fast' });
    }
  });
  it('keeps every byte around the member, and the accents of a non-ASCII body', () => {
    expect(relay('{ "usage" : null ,\n "model" :  "m" }', 'a"b').body).toBe('{ "usage" : null ,\n "model":"a\\"b" }');
    const accented = '{"id":"é","model":"m","content":"ü"}';
    expect(relay(accented).body).toBe('{"id":"é","model":"alias/fast","content":"ü"}');
  });
  it('leaves an answer without a string model, and a non-object answer, as it is', () => {
    expect(relay('{"model":null,"x":1}')).toEqual({ body: '{"model":null,"x":1}', usage: undefined });
    expect(relay('{"data":[{"model":"inner"}]}').body).toBe('{"data":[{"model":"inner"}]}');
    expect(relay(' [1, 2] ')).toEqual({ body: ' [1, 2] ', usage: undefined });
    expect(relay('"text"').body).toBe('"text"');
  });
  it('refuses what is not JSON, naming the provider', () => {
    for (const bad of ['<html>502</html>', '{"model":"m"', '{"usage":{"a":tru}}', 'nul']) {
      expect(() => relayAnswer(Buffer.from(bad), 'x', 'up'), bad).toThrow(
        'Provider "up" sent a response that is not JSON.',
      );
    }
  });
});

describe('relayAnswerUsage', () => {
  const openaiPassThrough = openaiChat.passThrough;
  const anthropicPassThrough = anthropicMessages.passThrough;
  const text = (b: Buffer) => b.toString('utf8');
  /** The same format, with its fast path taken away: every answer parsed whole. */
  const parsedWhole = (p: PassThrough): PassThrough => ({ ...p, plainAnswerUsage: undefined });

  it('relays the same bytes and reads the same usage by the fast path as by the whole parse', () => {
    const openai = OPENAI.replace('"finish_reason"', '"logprobs":null,"finish_reason"').replace(
      '"total_tokens":33}',
      '"total_tokens":33,"prompt_tokens_details":{"cached_tokens":20}}',
    );
    const anthropic = ANTHROPIC.replace('"usage"', '"stop_sequence":null,"usage"');
    for (const [answer, pass] of [
      [openai, openaiPassThrough],
      [anthropic, anthropicPassThrough],
    ] as const) {
      expect(pass.plainAnswerUsage?.(answer), answer).toBeDefined();
      const fast = relayAnswerUsage(Buffer.from(answer), 'alias/fast', 'up', pass);
      const whole = relayAnswerUsage(Buffer.from(answer), 'alias/fast', 'up', parsedWhole(pass));
      expect(text(fast.body)).toBe(text(whole.body));
      expect(text(fast.body)).toBe(renameModelIn(answer, 'alias/fast'));
      expect(fast.usage).toEqual(whole.usage);
      expect(fast.usage).toEqual(pass.usageFromBody(JSON.parse(answer)));
    }
  });
  it('parses whole what the fast path leaves, and still refuses what is not JSON', () => {
    const tool = OPENAI.replace('"message":{', '"message":{"tool_calls":[],');
    expect(openaiPassThrough.plainAnswerUsage?.(tool)).toBeUndefined();
    expect(relayAnswerUsage(Buffer.from(tool), 'a', 'up', openaiPassThrough).usage).toEqual({
      inputTokens: 24,
      outputTokens: 9,
    });
    // Past the fast path's bound (an escape-heavy text there would overflow V8's regexp stack).
    const long = OPENAI.replace('the \\"model', `${'\\n'.repeat(4_000_000)}the \\"model`);
    expect(() => openaiPassThrough.plainAnswerUsage?.(long)).toThrow(RangeError);
    expect(relayAnswerUsage(Buffer.from(long), 'a', 'up', openaiPassThrough).usage).toEqual({
      inputTokens: 24,
      outputTokens: 9,
    });
    for (const bad of ['<html>502</html>', OPENAI.slice(0, -1), OPENAI.replace('"usage":{', '"usage":{,')]) {
      expect(() => relayAnswerUsage(Buffer.from(bad), 'x', 'up', openaiPassThrough), bad).toThrow(
        'Provider "up" sent a response that is not JSON.',
      );
    }
  });
});

describe('relayAnswerDecoded (an answer an output guard reads)', () => {
  /** The same format, with its fast path taken away: every answer parsed whole and decoded. */
  const parsedWhole = (f: WireFormat): WireFormat => ({ ...f, decodePlainResponse: undefined });
  const both = (answer: string, format: WireFormat) => ({
    fast: relayAnswerDecoded(Buffer.from(answer), 'alias/fast', 'up', format),
    whole: relayAnswerDecoded(Buffer.from(answer), 'alias/fast', 'up', parsedWhole(format)),
  });

  it('relays the same bytes and decodes the same response by the fast path as by the whole parse', () => {
    const refusal = OPENAI.replace('"the \\"model', 'null,"refusal":"I can\\u2019t').replace('"stop"', '"length"');
    for (const answer of [OPENAI, refusal, OPENAI.replace('"content":"', '"content":null,"x":"')]) {
      const { fast, whole } = both(answer, openaiChat);
      expect(fast.body.toString('utf8'), answer).toBe(renameModelIn(answer, 'alias/fast'));
      expect(fast.body.toString('utf8')).toBe(whole.body.toString('utf8'));
      expect(fast.response).toEqual(whole.response);
      expect(fast.response).toEqual(openaiChat.decodeResponse(JSON.parse(answer)));
    }
    expect(openaiChat.decodePlainResponse?.(refusal)).toMatchObject({
      content: [{ type: 'text', text: 'I can\u2019t": "x" and {"usage":1} é 🎉' }],
      finish: 'content_filter',
    });
    // A format without the fast path (Anthropic here) parses and decodes.
    const anthropic = both(ANTHROPIC, anthropicMessages).fast;
    expect(anthropic.response).toEqual(anthropicMessages.decodeResponse(JSON.parse(ANTHROPIC)));
    expect(anthropic.body.toString('utf8')).toBe(renameModelIn(ANTHROPIC, 'alias/fast'));
  });
  it('decodes whole what the fast path leaves, past its bound too, and refuses what is not JSON', () => {
    const tool = OPENAI.replace(
      '"message":{"role":"assistant",',
      '"message":{"role":"assistant","tool_calls":[{"id":"c1","type":"function",' +
        '"function":{"name":"f","arguments":"{}"}}],',
    );
    const long = OPENAI.replace('the \\"model', `${'\\n'.repeat(100_000)}the \\"model`);
    for (const answer of [tool, long]) {
      expect(relayAnswerDecoded(Buffer.from(answer), 'a', 'up', openaiChat).response).toEqual(
        openaiChat.decodeResponse(JSON.parse(answer)),
      );
    }
    for (const bad of ['<html>502</html>', OPENAI.slice(0, -1)]) {
      expect(() => relayAnswerDecoded(Buffer.from(bad), 'x', 'up', openaiChat), bad).toThrow(
        'Provider "up" sent a response that is not JSON.',
      );
    }
  });
});

describe('decodeAnswer (a translated answer)', () => {
  it('decodes as the format decodes the parsed answer, by the fast path or not, or names the provider', () => {
    const tool = OPENAI.replace('"message":{', '"message":{"tool_calls":[],');
    const anthropic = ANTHROPIC.replace('"usage"', '"stop_sequence":null,"usage"');
    expect(anthropicMessages.decodePlainResponse?.(anthropic)).toBeDefined();
    for (const [answer, format] of [
      [OPENAI, openaiChat],
      [tool, openaiChat],
      [ANTHROPIC, anthropicMessages],
      [anthropic, anthropicMessages],
    ] as const) {
      expect(decodeAnswer(Buffer.from(answer), 'up', format), answer).toEqual(
        format.decodeResponse(JSON.parse(answer)),
      );
    }
    expect(openaiChat.decodePlainResponse?.(OPENAI)).toBeDefined();
    expect(openaiChat.decodePlainResponse?.(tool)).toBeUndefined();
    for (const bad of ['{', OPENAI.slice(0, -1)]) {
      expect(() => decodeAnswer(Buffer.from(bad), 'up', openaiChat)).toThrow(
        'Provider "up" sent a response that is not JSON.',
      );
    }
  });
});
