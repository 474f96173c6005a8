import { describe, expect, it } from 'vitest';
import { parseAnswer, relayAnswer } from '../../../src/formats/answer-body.js';
import { renameModelIn } from '../../../src/formats/response-model.js';

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

describe('parseAnswer', () => {
  it('parses the whole answer or names the provider', () => {
    expect(parseAnswer(Buffer.from(ANTHROPIC), 'up')).toEqual(JSON.parse(ANTHROPIC));
    expect(() => parseAnswer(Buffer.from('{'), 'up')).toThrow('Provider "up" sent a response that is not JSON.');
  });
});
