import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../src/core/canonical.js';
import { CancelSignal } from '../../../src/core/cancel.js';
import { foldStream } from '../../../src/core/fold-stream.js';
import { decodeOpenaiRequest } from '../../../src/formats/openai-chat/request-decode.js';
import { mockEvents, mockReply } from '../../../src/providers/mock.js';

const model = {
  id: 'local/echo',
  provider: 'local',
  name: 'echo',
  upstreamName: 'echo',
  kind: 'chat' as const,
  contextWindow: 100,
  timeouts: { connectMs: 1000, firstByteMs: 1000, totalMs: 1000 },
};
const req = (extra: object = {}) =>
  decodeOpenaiRequest({
    model: 'local/echo',
    messages: [{ role: 'user', content: 'alpha beta gamma STOP delta' }],
    ...extra,
  });

describe('mock provider', () => {
  it('echoes the last user message, cut at a stop sequence', () => {
    expect(mockReply(req({ stop: ['STOP'] })).pieces.join('')).toBe('alpha beta gamma ');
  });
  it('stops at max_tokens with finish length', () => {
    expect(mockReply(req({ max_tokens: 2 }))).toEqual({ pieces: ['alpha ', 'beta '], finish: 'length' });
  });
  it('emits a well-formed event sequence with usage', async () => {
    const events: StreamEvent[] = [];
    for await (const ev of mockEvents(req(), model, undefined, new CancelSignal())) events.push(ev);
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'block_start',
      ...Array(5).fill('block_delta'),
      'block_stop',
      'message_stop',
    ]);
    async function* replay() {
      yield* events;
    }
    const folded = await foldStream(replay());
    expect(folded.content).toEqual([{ type: 'text', text: 'alpha beta gamma STOP delta' }]);
    expect(folded.usage.outputTokens).toBe(5);
    expect(folded.usage.inputTokens).toBeGreaterThan(0);
  });
  it('stops waiting when the caller goes away', async () => {
    const ac = new CancelSignal();
    const it = mockEvents(req(), model, { latencyMs: 60_000, chunkDelayMs: 0 }, ac);
    const first = it.next();
    ac.abort();
    await expect(first).rejects.toThrow();
  });
});
