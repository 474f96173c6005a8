import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/core/errors.js';
import { invokeStreamToSse } from '../../../../src/formats/bedrock-invoke/stream.js';
import { eventFrame, exceptionFrame } from '../../../helpers/bedrock-frames.js';

const chunk = (event: unknown, extra: Record<string, unknown> = {}) =>
  eventFrame('chunk', {
    bytes: Buffer.from(typeof event === 'string' ? event : JSON.stringify(event)).toString('base64'),
    ...extra,
  });

async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function sse(bytes: Buffer, size = bytes.length): Promise<string> {
  let out = '';
  for await (const b of invokeStreamToSse(pieces(bytes, size))) out += b.toString('utf8');
  return out;
}

async function failure(bytes: Buffer): Promise<GatewayError> {
  const err = await sse(bytes).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GatewayError);
  return err as GatewayError;
}

const START = '{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":3,"output_tokens":1}}}';
const DELTA = '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hé"}}';

describe('InvokeModelWithResponseStream chunks → Anthropic SSE', () => {
  it('one SSE event per chunk frame, its bytes as they came, whatever the read boundaries', async () => {
    const body = Buffer.concat([chunk(START, { p: 'abc' }), chunk(DELTA), chunk({ type: 'message_stop' })]);
    const expected =
      `event: message_start\ndata: ${START}\n\n` +
      `event: content_block_delta\ndata: ${DELTA}\n\n` +
      'event: message_stop\ndata: {"type":"message_stop"}\n\n';
    for (const size of [body.length, 7, 1]) expect(await sse(body, size)).toBe(expected);
  });

  it('removes amazon-bedrock-invocationMetrics; writes a pretty-printed event on one line', async () => {
    const stop = {
      type: 'message_stop',
      'amazon-bedrock-invocationMetrics': { inputTokenCount: 3, outputTokenCount: 2, invocationLatency: 9 },
    };
    expect(await sse(chunk(stop))).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\n');
    expect(await sse(chunk('{\n  "type": "ping"\n}'))).toBe('event: ping\ndata: {"type":"ping"}\n\n');
  });

  it('skips frames that are not chunks', async () => {
    const body = Buffer.concat([eventFrame('somethingNew', { x: 1 }), chunk({ type: 'ping' })]);
    expect(await sse(body)).toBe('event: ping\ndata: {"type":"ping"}\n\n');
  });

  it('an exception frame throws the catalogue error its type means, after the events before it', async () => {
    const seen: string[] = [];
    const body = Buffer.concat([chunk(START), exceptionFrame('throttlingException', 'Too many tokens')]);
    const err = await (async () => {
      try {
        for await (const b of invokeStreamToSse(pieces(body, body.length))) seen.push(b.toString());
      } catch (e) {
        return e as GatewayError;
      }
    })();
    expect(seen).toEqual([`event: message_start\ndata: ${START}\n\n`]);
    expect(err?.status).toBe(429);
    expect(err?.message).toBe('The upstream reported throttlingException during the stream: Too many tokens');
    expect((await failure(exceptionFrame('serviceUnavailableException', 'x'))).status).toBe(503);
    expect((await failure(exceptionFrame('validationException', 'bad'))).status).toBe(400);
    expect((await failure(exceptionFrame('modelStreamErrorException', 'oops'))).status).toBe(502);
  });

  it('a chunk without bytes, or whose bytes are not an Anthropic event, is a malformed stream', async () => {
    expect((await failure(eventFrame('chunk', { p: 'x' }))).message).toBe(
      'The upstream sent a chunk without bytes in its response stream.',
    );
    for (const bad of ['not json', '[1]', '{"no":"type"}']) {
      expect((await failure(chunk(bad))).message).toBe(
        'The upstream sent a chunk that is not an Anthropic event in its response stream.',
      );
    }
    expect((await failure(chunk({ type: 'ping' }).subarray(0, 20))).message).toBe(
      'The upstream stream ended inside a frame.',
    );
  });
});
