import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/core/errors.js';
import {
  responsesErrorBody,
  responsesErrorMessage,
  responsesStreamError,
  upstreamErrorEvent,
  upstreamFailure,
} from '../../../../src/formats/openai-responses/errors.js';
import { openaiResponses } from '../../../../src/formats/openai-responses/index.js';
import { ResponsesStreamWatch } from '../../../../src/formats/openai-responses/stream-watch.js';
import { parseSse } from './load-sse.js';

describe('Responses errors', () => {
  it('an HTTP error body is the OpenAI one', () => {
    const err = new GatewayError('invalid_request', "'input[2].call_id' is required.", { param: 'input[2].call_id' });
    expect(openaiResponses.renderError(err)).toEqual({
      error: {
        message: "'input[2].call_id' is required.",
        type: 'invalid_request_error',
        param: 'input[2].call_id',
        code: 'invalid_request',
      },
    });
    expect(responsesErrorBody).toBe(openaiResponses.renderError);
  });

  it('an in-stream error: event error with the flat members, sequence_number and the error object', () => {
    const err = new GatewayError('upstream_timeout', 'The upstream took too long.');
    expect(parseSse(responsesStreamError(err, 17))).toEqual([
      {
        event: 'error',
        id: undefined,
        data: JSON.stringify({
          type: 'error',
          sequence_number: 17,
          code: 'upstream_timeout',
          message: 'The upstream took too long.',
          param: null,
          error: {
            message: 'The upstream took too long.',
            type: 'timeout_error',
            param: null,
            code: 'upstream_timeout',
          },
        }),
      },
    ]);
    // The format's own streamError numbers it after the last event a relayed stream passed on, else 0.
    const numbered = (relayed?: ResponsesStreamWatch) =>
      JSON.parse(parseSse(openaiResponses.streamError(err, relayed))[0].data).sequence_number;
    expect(numbered()).toBe(0);
    const watch = new ResponsesStreamWatch();
    for (const n of [0, 1, 2])
      watch.see({ data: JSON.stringify({ type: 'response.in_progress', sequence_number: n }) });
    expect(numbered(watch)).toBe(3);
    expect(numbered(new ResponsesStreamWatch())).toBe(0);
  });

  it('the message of an upstream error body', () => {
    expect(responsesErrorMessage({ error: { message: 'Invalid input' } })).toBe('Invalid input');
    expect(openaiResponses.passThrough.errorMessage({ error: 'nope' })).toBeUndefined();
  });

  it('an upstream error event, nested or flat, → the status of its type or code', () => {
    expect(
      upstreamErrorEvent({ type: 'error', error: { type: 'invalid_request_error', code: null, message: 'bad' } }),
    ).toMatchObject({ code: 'upstream_error', status: 400, message: 'The upstream reported an error mid-stream: bad' });
    expect(upstreamErrorEvent({ type: 'error', code: 'rate_limit_exceeded', message: 'slow down' })).toMatchObject({
      status: 429,
      kind: 'rate_limit',
    });
    expect(upstreamErrorEvent({ type: 'error', code: 'ERR_SOMETHING', message: 'x' })).toMatchObject({ status: 502 });
  });

  it('a failed response: provider failures keep their status, input problems are 400', () => {
    expect(upstreamFailure({ code: 'server_error', message: 'oops' })).toMatchObject({
      status: 500,
      message: 'The upstream response failed (server_error): oops',
    });
    expect(upstreamFailure({ code: 'rate_limit_exceeded', message: '' })).toMatchObject({
      status: 429,
      message: 'The upstream response failed (rate_limit_exceeded).',
    });
    expect(upstreamFailure({ code: 'invalid_prompt', message: 'no' })).toMatchObject({ status: 400 });
    expect(upstreamFailure({ code: '__proto__' })).toMatchObject({ status: 400 });
    expect(upstreamFailure(null)).toMatchObject({
      status: 500,
      message: 'The upstream response failed (server_error).',
    });
  });

  it('redacts credential-shaped text in upstream messages', () => {
    const key = `sk-proj-${'a'.repeat(40)}`;
    expect(upstreamFailure({ code: 'server_error', message: `bad key ${key}` }).message).not.toContain(key);
  });
});
