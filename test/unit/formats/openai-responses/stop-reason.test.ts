import { describe, expect, it } from 'vitest';
import { fromResponsesStatus, toResponsesStatus } from '../../../../src/formats/openai-responses/stop-reason.js';

describe('Responses status ↔ finish reason', () => {
  it('canonical → status and incomplete_details', () => {
    expect(toResponsesStatus('stop')).toEqual({ status: 'completed', incomplete_details: null });
    expect(toResponsesStatus('tool_calls')).toEqual({ status: 'completed', incomplete_details: null });
    expect(toResponsesStatus('other')).toEqual({ status: 'completed', incomplete_details: null });
    expect(toResponsesStatus('length')).toEqual({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
    expect(toResponsesStatus('content_filter')).toEqual({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
    });
    expect(toResponsesStatus('error')).toEqual({ status: 'failed', incomplete_details: null });
  });

  it('status → canonical: tool calls decide a completed finish, the reason an incomplete one', () => {
    expect(fromResponsesStatus('completed', undefined, false)).toBe('stop');
    expect(fromResponsesStatus('completed', undefined, true)).toBe('tool_calls');
    expect(fromResponsesStatus('incomplete', 'max_output_tokens', true)).toBe('length');
    expect(fromResponsesStatus('incomplete', 'content_filter', false)).toBe('content_filter');
    expect(fromResponsesStatus('incomplete', 'something_new', false)).toBe('other');
    expect(fromResponsesStatus('cancelled', undefined, false)).toBe('other');
  });

  it('round trip for every finish a Responses status can carry', () => {
    for (const f of ['stop', 'length', 'content_filter'] as const) {
      const { status, incomplete_details } = toResponsesStatus(f);
      expect(fromResponsesStatus(status, incomplete_details?.reason, false)).toBe(f);
    }
    expect(fromResponsesStatus(toResponsesStatus('tool_calls').status, undefined, true)).toBe('tool_calls');
  });
});
