/**
 * Issue 10 §2: a same-format stream is relayed byte for byte, but checked on the side. Before the
 * fix a malformed event, a stream that stopped before its terminator, or the provider's own error
 * event reached the caller as they came (a clean-looking end, or the provider's raw error body).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventFrameOfText } from '../helpers/bedrock-frames.js';
import type { Chunk, Reply } from '../helpers/fake-upstream.js';
import { responsesOrderViolations } from '../helpers/responses-order.js';
import { geminiStreamError } from '../helpers/gemini-wire.js';
import { KINDS } from '../helpers/kind-rigs.js';
import { readSse } from '../helpers/sse.js';
import {
  ALL_PAIRS,
  anthropicStream,
  bedrockException,
  bedrockStream,
  bodyFor,
  formatOfPath,
  geminiStream,
  KIND_PAIRS,
  openaiStream,
  type PairProvider,
  post,
  responsesStream,
  startRig,
  type Endpoint,
  type SecurityRig,
  userTextOf,
} from './harness.js';

const WORDS = [' one', ' two', ' three'];
/** The direct pairs and each new kind's (through its front). */
const PAIRS = [...ALL_PAIRS, ...KIND_PAIRS];
/**
 * A kind whose front re-encodes streams (Bedrock InvokeModel's event stream) relays no raw bytes: an event that is
 * not JSON cannot pass it. Converse's frames are the fake upstream's own, written here as they come.
 */
const reframed = (provider: PairProvider) =>
  KINDS.some((r) => r.kind === provider && r.streams === 'reframed' && r.format !== 'bedrock');
interface Streams {
  full(): Chunk[];
  unterminated(): Chunk[];
  bad: Chunk;
  error: Chunk;
}
/** Per upstream format: the whole stream, one without its terminator, a malformed event, the provider's error. */
const STREAMS: Record<ReturnType<typeof formatOfPath>, Streams> = {
  openai: {
    full: () => openaiStream(WORDS),
    // Closed cleanly, but without [DONE] and finish_reason.
    unterminated: () => openaiStream(WORDS, { finish: false, done: false }),
    bad: 'data: {"choices":[{"delta":{"content":"x"}\n\n',
    error:
      'data: {"error":{"message":"The server had an error while processing your ' +
      'request.","type":"server_error","code":null}}\n\n',
  },
  anthropic: {
    full: () => anthropicStream(WORDS),
    unterminated: () => anthropicStream(WORDS, { stop: false }),
    bad: 'event: content_block_delta\ndata: {"type":"content_block_delta",\n\n',
    error: 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
  },
  responses: {
    full: () => responsesStream(WORDS),
    // Every item closed, but no response.completed.
    unterminated: () => responsesStream(WORDS, { terminal: false }),
    bad: 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",\n\n',
    // After three events (0, 1, 2), as the API numbers them.
    error:
      'event: error\ndata: {"type":"error","sequence_number":3,"code":"server_error","message":"The server had ' +
      'an error while processing your request.","param":null}\n\n',
  },
  gemini: {
    full: () => geminiStream(WORDS),
    // Every word, but no closing chunk with its finishReason.
    unterminated: () => geminiStream(WORDS, { finish: false }),
    bad: 'data: {"candidates":[{"content":\n\n',
    error: geminiStreamError('The service is currently unavailable.', 'overloaded_error'),
  },
  bedrock: {
    full: () => bedrockStream(WORDS),
    // Every word, but no messageStop (nor the metadata after it).
    unterminated: () => bedrockStream(WORDS, { finish: false }),
    // Its frame and CRCs are right; its payload is not JSON.
    bad: eventFrameOfText('contentBlockDelta', '{"contentBlockIndex":0,"delta":'),
    error: bedrockException('The service is currently unavailable.', 'serviceUnavailableException'),
  },
};

/** The scenario is named by the caller's text; the upstream answers in its own path's format. */
function scenario(path: string, text: string): Reply {
  const s = STREAMS[formatOfPath(path)];
  const full = s.full();
  switch (text) {
    case 'not json':
      return { kind: 'sse', events: [...full.slice(0, 3), s.bad, ...full.slice(3)] };
    case 'no terminator':
      return { kind: 'sse', events: s.unterminated() };
    case 'cut':
      return { kind: 'drop', events: full.slice(0, 3) };
    case 'provider error':
      return { kind: 'sse', events: [...full.slice(0, 3), s.error] };
    case 'half a frame':
      // A clean end of the connection with the first 10 bytes of a frame (the prelude's length promises more).
      return { kind: 'sse', events: [...full.slice(0, 3), Buffer.from(full[3]!).subarray(0, 10)] };
    default:
      return { kind: 'sse', events: full };
  }
}

function lastIsGatewayError(
  ep: Endpoint,
  events: Array<{ event?: string; data: string }>,
): { message: string; type: string } {
  const last = events.at(-1)!;
  if (ep === 'responses') {
    // Numbered after what came before it, and nothing after it: the stream is well-formed up to the error.
    expect(responsesOrderViolations(events)).toEqual([]);
    expect(events.some((e) => e.event === 'response.completed')).toBe(false);
    expect(last.event).toBe('error');
    const body = JSON.parse(last.data);
    expect(body).toMatchObject({ type: 'error', code: expect.any(String), message: expect.any(String) });
    return { message: body.message, type: body.code };
  }
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
    rig = await startRig((req) => scenario(req.path, userTextOf(req)), { failures: 1000, kinds: true });
  });
  afterAll(() => rig.close());

  it.each(PAIRS)('%s caller → %s provider: a complete stream still arrives whole', async (ep, provider) => {
    const res = await post(rig.gw.url, ep, bodyFor(ep, provider, { stream: true, text: 'fine' }));
    const events = await readSse(res);
    if (ep === 'openai') expect(events.at(-1)!.data).toBe('[DONE]');
    else if (ep === 'anthropic') expect(events.at(-1)!.event).toBe('message_stop');
    else {
      expect(responsesOrderViolations(events)).toEqual([]);
      expect(events.at(-1)!.event).toBe('response.completed');
    }
  });

  it.each(PAIRS.filter(([, p]) => !reframed(p)))(
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

  // Through a front, the cut reaches the gateway as the platform's own connection ending without its end.
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
      // A reframing kind's front turns the error event into its own exception, named.
      expect(err.message).toMatch(/^The upstream reported (an error|\w+Exception during the stream)/);
    },
  );

  it.each(KIND_PAIRS.filter(([, p]) => p === 'bedrock'))(
    '%s caller → %s provider: a Converse stream that ends inside a frame is an error, never a clean end',
    async (ep, provider) => {
      const res = await post(rig.gw.url, ep, bodyFor(ep, provider, { stream: true, text: 'half a frame' }));
      expect(res.status).toBe(200);
      const err = lastIsGatewayError(ep, await readSse(res));
      expect(err.message).toMatch(/ended inside a frame/);
    },
  );
});
