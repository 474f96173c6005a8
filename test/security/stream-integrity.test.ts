/**
 * Issue 10 §2: a same-format stream is relayed byte for byte, but checked on the side. Before the
 * fix a malformed event, a stream that stopped before its terminator, or the provider's own error
 * event reached the caller as they came (a clean-looking end, or the provider's raw error body).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reply } from '../helpers/fake-upstream.js';
import { readSse } from '../helpers/sse.js';
import {
  anthropicStream,
  bodyFor,
  openaiStream,
  PAIRS,
  post,
  startRig,
  type Endpoint,
  type SecurityRig,
} from './harness.js';

/** The scenario is named by the caller's text; the upstream answers in its own path's format. */
function scenario(path: string, text: string): Reply {
  const openai = path.endsWith('/chat/completions');
  const words = [' one', ' two', ' three'];
  const full = openai ? openaiStream(words) : anthropicStream(words);
  switch (text) {
    case 'not json': {
      const bad = openai
        ? 'data: {"choices":[{"delta":{"content":"x"}\n\n'
        : 'event: content_block_delta\ndata: {"type":"content_block_delta",\n\n';
      return { kind: 'sse', events: [...full.slice(0, 3), bad, ...full.slice(3)] };
    }
    case 'no terminator':
      // Closed cleanly, but without [DONE] / finish_reason, or without message_stop.
      return {
        kind: 'sse',
        events: openai ? openaiStream(words, { finish: false, done: false }) : anthropicStream(words, { stop: false }),
      };
    case 'cut':
      return { kind: 'drop', events: full.slice(0, 3) };
    case 'provider error': {
      const err = openai
        ? 'data: {"error":{"message":"The server had an error while processing your ' +
          'request.","type":"server_error","code":null}}\n\n'
        : 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
      return { kind: 'sse', events: [...full.slice(0, 3), err] };
    }
    default:
      return { kind: 'sse', events: full };
  }
}

function lastIsGatewayError(
  ep: Endpoint,
  events: Array<{ event?: string; data: string }>,
): { message: string; type: string } {
  const last = events.at(-1)!;
  if (ep === 'openai') {
    expect(events.some((e) => e.data === '[DONE]')).toBe(false);
    const body = JSON.parse(last.data);
    expect(body.error).toMatchObject({
      type: expect.any(String),
      code: expect.any(String),
      message: expect.any(String),
    });
    return body.error;
  }
  expect(events.some((e) => e.event === 'message_stop')).toBe(false);
  expect(last.event).toBe('error');
  const body = JSON.parse(last.data);
  expect(body.type).toBe('error');
  return body.error;
}

describe('same-format and translated streams are checked, not blindly relayed', () => {
  let rig: SecurityRig;
  beforeAll(async () => {
    rig = await startRig(
      (req) =>
        scenario(
          req.path,
          String(req.body?.messages?.at(-1)?.content?.[0]?.text ?? req.body?.messages?.at(-1)?.content),
        ),
      { failures: 1000 },
    );
  });
  afterAll(() => rig.close());

  it.each(PAIRS)('%s caller → %s provider: a complete stream still arrives whole', async (ep, provider) => {
    const res = await post(rig.gw.url, ep, bodyFor(ep, provider, { stream: true, text: 'fine' }));
    const events = await readSse(res);
    if (ep === 'openai') expect(events.at(-1)!.data).toBe('[DONE]');
    else expect(events.at(-1)!.event).toBe('message_stop');
  });

  it.each(PAIRS)(
    "%s caller → %s provider: an event that is not JSON ends the stream with the gateway's error",
    async (ep, provider) => {
      const res = await post(rig.gw.url, ep, bodyFor(ep, provider, { stream: true, text: 'not json' }));
      expect(res.status).toBe(200);
      const err = lastIsGatewayError(ep, await readSse(res));
      expect(err.message).toMatch(/not JSON|JSON/);
    },
  );

  it.each(PAIRS)(
    '%s caller → %s provider: a stream that ends without its terminator is an error, never a clean end',
    async (ep, provider) => {
      const res = await post(rig.gw.url, ep, bodyFor(ep, provider, { stream: true, text: 'no terminator' }));
      expect(res.status).toBe(200);
      const err = lastIsGatewayError(ep, await readSse(res));
      expect(err.message).toMatch(/ended/);
    },
  );

  it.each(PAIRS)('%s caller → %s provider: a stream cut after content is an error', async (ep, provider) => {
    const res = await post(rig.gw.url, ep, bodyFor(ep, provider, { stream: true, text: 'cut' }));
    expect(res.status).toBe(200);
    lastIsGatewayError(ep, await readSse(res));
  });

  it.each(PAIRS)(
    "%s caller → %s provider: the provider's in-stream error is re-rendered as the gateway's",
    async (ep, provider) => {
      const res = await post(rig.gw.url, ep, bodyFor(ep, provider, { stream: true, text: 'provider error' }));
      expect(res.status).toBe(200);
      const err = lastIsGatewayError(ep, await readSse(res));
      expect(err.message).toMatch(/^The upstream reported an error/);
    },
  );
});
