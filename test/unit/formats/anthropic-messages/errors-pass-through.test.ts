import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { anthropicMessages } from '../../../../src/formats/anthropic-messages/index.js';
import { anthropicStopReason } from '../../../../src/formats/anthropic-messages/stop-reason.js';
import { parseSse } from './load-sse.js';
import { parseJsonStrictMembers } from '../../../../src/core/parse-json-strict.js';

const { passThrough } = anthropicMessages;

describe('renderError / streamError', () => {
  it('uses Anthropic error types by kind', () => {
    const type = (err: GatewayError) => (anthropicMessages.renderError(err) as { error: { type: string } }).error.type;
    expect(type(new GatewayError('invalid_request', 'bad', { param: 'model' }))).toBe('invalid_request_error');
    expect(type(new GatewayError('invalid_api_key', 'no'))).toBe('authentication_error');
    expect(type(new GatewayError('model_not_allowed', 'no'))).toBe('permission_error');
    expect(type(new GatewayError('model_not_found', 'no'))).toBe('not_found_error');
    expect(type(new GatewayError('body_too_large', 'no'))).toBe('request_too_large');
    expect(type(new GatewayError('upstream_error', 'slow down', { status: 429, kind: 'rate_limit' }))).toBe(
      'rate_limit_error',
    );
    expect(type(new GatewayError('internal_error', 'oops'))).toBe('api_error');
    expect(type(new GatewayError('upstream_error', 'bad gateway'))).toBe('api_error');
    expect(type(new GatewayError('upstream_timeout', 'slow'))).toBe('timeout_error');
    expect(type(new GatewayError('no_available_provider', 'busy'))).toBe('overloaded_error');
    expect(type(new GatewayError('upstream_error', 'busy', { status: 529, kind: 'overloaded' }))).toBe(
      'overloaded_error',
    );
  });

  it('renders the documented body, in a response and in a stream', () => {
    const err = new GatewayError('invalid_request', "'max_tokens' is required.", { param: 'max_tokens' });
    expect(anthropicMessages.renderError(err)).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: "'max_tokens' is required." },
    });
    const text = anthropicMessages.streamError(err);
    expect(text.endsWith('\n\n')).toBe(true);
    expect(parseSse(text)).toEqual([
      { event: 'error', data: JSON.stringify(anthropicMessages.renderError(err)), id: undefined },
    ]);
    expect(
      passThrough.errorMessage({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    ).toBe('Overloaded');
    expect(passThrough.errorMessage({ nope: 1 })).toBeUndefined();
  });
});

describe('anthropicStopReason', () => {
  it('maps both ways', () => {
    expect(anthropicStopReason.toCanonical('stop_sequence')).toBe('stop');
    expect(anthropicStopReason.fromCanonical('stop', 'X')).toBe('stop_sequence');
    for (const r of ['end_turn', 'max_tokens', 'tool_use', 'refusal'] as const) {
      expect(anthropicStopReason.fromCanonical(anthropicStopReason.toCanonical(r))).toBe(r);
    }
  });
});

describe('passThrough', () => {
  const chat = { stream: true } as ChatRequest;

  it('rewrites only model', () => {
    const raw = Buffer.from(
      '{"model": "alias/fast", "max_tokens": 10,\n "messages":[{"role":"user","content":"hi"}], ' +
        '"service_tier":"standard_only"}',
    );
    const { value: parsed, members } = parseJsonStrictMembers(raw);
    const out = passThrough.prepareBody(
      { raw, members, parsed, chat },
      { model: 'claude-real' },
      {
        dropped: [],
        rewritten: [],
      },
    );
    expect(out.toString()).toBe(
      '{"model": "claude-real", "max_tokens": 10,\n "messages":[{"role":"user","content":"hi"}], ' +
        '"service_tier":"standard_only"}',
    );
  });

  it('watches a stream: usage from message_start and message_delta, complete at message_stop', () => {
    const w = passThrough.watchStream(chat);
    const ev = (event: string, data: unknown) => ({
      event,
      data: JSON.stringify({ type: event, ...(data as object) }),
    });
    expect(w.see({ event: 'ping', data: '{"type":"ping"}' })).toBeUndefined();
    w.see(
      ev('message_start', {
        message: {
          id: 'msg_1',
          usage: { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 300, output_tokens: 1 },
        },
      }),
    );
    expect(w.usage).toEqual({ inputTokens: 12, outputTokens: 1, cacheReadTokens: 300 });
    w.see(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'usage' } }));
    expect(w.output).toEqual(['usage']);
    // message_delta: cumulative output; input/cache omitted here, so message_start's stay.
    w.see(ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 42 } }));
    expect(w.usage).toEqual({ inputTokens: 12, outputTokens: 42, cacheReadTokens: 300 });
    // A later message_delta that reports input counters overrides them, field by field.
    w.see(ev('message_delta', { delta: {}, usage: { input_tokens: 15, output_tokens: 50 } }));
    expect(w.usage).toEqual({ inputTokens: 15, outputTokens: 50, cacheReadTokens: 300 });
    expect(w.complete).toBe(false);
    w.see(ev('message_stop', {}));
    expect(w.complete).toBe(true);
    // Another stream is not affected.
    const other = passThrough.watchStream(chat);
    other.see(ev('message_delta', { delta: {}, usage: { output_tokens: 7 } }));
    expect(other.usage).toEqual({ inputTokens: 0, outputTokens: 7 });
  });

  it('refuses data that is not a JSON object and turns the upstream error event into a GatewayError', () => {
    const w = passThrough.watchStream(chat);
    expect(() => w.see({ event: 'content_block_delta', data: '{"type":"content_block_delta",' })).toThrow(/not JSON/);
    expect(() => w.see({ event: 'content_block_delta', data: '[1,2]' })).toThrow(/not a JSON object/);
    expect(() =>
      w.see({ event: 'error', data: '{"type":"error","error":{"type":"overloaded_error","message":"busy"}}' }),
    ).toThrow(expect.objectContaining({ code: 'upstream_error', status: 529 }));
  });

  it('reads usage from a message body', () => {
    expect(
      passThrough.usageFromBody({
        usage: { input_tokens: 3, output_tokens: 4, cache_creation_input_tokens: 5, cache_read_input_tokens: 0 },
      }),
    ).toEqual({ inputTokens: 3, outputTokens: 4, cacheWriteTokens: 5 });
    expect(passThrough.usageFromBody({})).toBeUndefined();
  });
});
