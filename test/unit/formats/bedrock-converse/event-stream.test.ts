import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/core/errors.js';
import { decodeEventStream } from '../../../../src/formats/bedrock-converse/event-stream.js';
import type { SseMessage } from '../../../../src/sse/decode.js';
import { eventFrame, exceptionFrame } from '../../../helpers/bedrock-frames.js';

async function* chunks(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function decode(bytes: Buffer, size = 5): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const m of decodeEventStream(chunks(bytes, size))) out.push(m);
  return out;
}

describe('decodeEventStream', () => {
  it('frames split across chunks of any size → one message each, event type and payload', async () => {
    const bytes = Buffer.concat([
      eventFrame('messageStart', { role: 'assistant' }),
      eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hé' } }),
    ]);
    for (const size of [1, 7, bytes.length]) {
      expect(await decode(bytes, size)).toEqual([
        { event: 'messageStart', data: '{"role":"assistant"}' },
        { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"Hé"}}' },
      ]);
    }
  });

  it('an exception frame is named exception:{type}', async () => {
    expect(await decode(exceptionFrame('throttlingException', 'Too many requests'))).toEqual([
      { event: 'exception:throttlingException', data: '{"message":"Too many requests"}' },
    ]);
  });

  it('a frame whose message CRC is wrong is refused', async () => {
    const bytes = eventFrame('messageStart', { role: 'assistant' });
    bytes[bytes.length - 1] ^= 0xff;
    const err = await decode(bytes).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('upstream_error');
  });

  it('a body that ends inside a frame is an early end', async () => {
    const bytes = eventFrame('messageStart', { role: 'assistant' });
    const err = await decode(bytes.subarray(0, bytes.length - 3)).catch((e: unknown) => e);
    expect((err as GatewayError).code).toBe('upstream_unavailable');
  });

  it('an impossible frame length is refused before buffering', async () => {
    const err = await decode(Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0])).catch((e: unknown) => e);
    expect((err as GatewayError).message).toMatch(/a frame of 4294967295 bytes/);
  });
});
