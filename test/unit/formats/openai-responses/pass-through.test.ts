import { describe, expect, it } from 'vitest';
import { openaiResponses } from '../../../../src/formats/openai-responses/index.js';
import { decodeResponsesRequest } from '../../../../src/formats/openai-responses/request-decode.js';
import type { EncodeTarget } from '../../../../src/formats/types.js';

const { passThrough } = openaiResponses;

function prepare(raw: string, target: EncodeTarget = { model: 'gpt-5-2025-08-07' }) {
  const parsed = JSON.parse(raw);
  return passThrough
    .prepareBody({ raw: Buffer.from(raw), parsed, chat: decodeResponsesRequest(parsed) }, target, {
      dropped: [],
      rewritten: [],
    })
    .toString('utf8');
}

describe('Responses pass-through', () => {
  it('splices model in place and adds a default max_output_tokens; every other byte as sent', () => {
    const raw =
      '{ "model" : "team/codex", "input":[{"type":"item_reference","id":"msg_1"}],' +
      '"previous_response_id":"resp_0","store":true,"stream":true, "x_new": {"a": [1, 2]} }';
    expect(prepare(raw)).toBe(
      '{"max_output_tokens":4096, "model" : "gpt-5-2025-08-07", "input":[{"type":"item_reference","id":"msg_1"}],' +
        '"previous_response_id":"resp_0","store":true,"stream":true, "x_new": {"a": [1, 2]} }',
    );
  });

  it("the model's own limit is the default; a caller's limit is left alone; an explicit null is replaced", () => {
    expect(prepare('{"model":"m","input":"hi"}', { model: 'u', maxOutputTokens: 128000 })).toBe(
      '{"max_output_tokens":128000,"model":"u","input":"hi"}',
    );
    expect(prepare('{"model":"m","input":"hi","max_output_tokens":50}')).toBe(
      '{"model":"gpt-5-2025-08-07","input":"hi","max_output_tokens":50}',
    );
    expect(prepare('{"model":"m","max_output_tokens":null,"input":"hi"}')).toBe(
      '{"model":"gpt-5-2025-08-07","max_output_tokens":4096,"input":"hi"}',
    );
  });

  it('usage from a response body; a fresh watcher per stream', () => {
    expect(
      passThrough.usageFromBody({
        object: 'response',
        usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 4 }, output_tokens: 2 },
      }),
    ).toEqual({ inputTokens: 6, outputTokens: 2, cacheReadTokens: 4 });
    expect(passThrough.usageFromBody({ usage: null })).toBeUndefined();
    expect(passThrough.usageFromBody(null)).toBeUndefined();
    const chat = decodeResponsesRequest({ model: 'm', input: 'hi', stream: true });
    expect(passThrough.watchStream(chat)).not.toBe(passThrough.watchStream(chat));
    expect(passThrough.watchStream(chat).complete).toBe(false);
  });
});
