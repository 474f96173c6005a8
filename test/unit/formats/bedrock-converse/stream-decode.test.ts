import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../../src/core/canonical.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { decodeBedrockStream } from '../../../../src/formats/bedrock-converse/stream-decode.js';
import type { SseMessage } from '../../../../src/sse/decode.js';

async function* messages(...events: [string, unknown][]): AsyncGenerator<SseMessage> {
  for (const [event, payload] of events) yield { event, data: JSON.stringify(payload) };
}

async function decode(...events: [string, unknown][]): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of decodeBedrockStream(messages(...events)))
    out.push(e.type === 'message_start' ? { ...e, id: 'x', created: 0 } : e);
  return out;
}

describe('decodeBedrockStream', () => {
  it('reasoning with its signature, text, a tool use; usage from metadata after messageStop', async () => {
    const events = await decode(
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Think.' } } }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'sig' } } }],
      ['contentBlockStop', { contentBlockIndex: 0 }],
      ['contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Let me ' } }],
      ['contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'check.' } }],
      ['contentBlockStop', { contentBlockIndex: 1 }],
      ['contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tooluse_1', name: 'get' } } }],
      ['contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"city":' } } }],
      ['contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '"Paris"}' } } }],
      ['contentBlockStop', { contentBlockIndex: 2 }],
      ['messageStop', { stopReason: 'tool_use' }],
      [
        'metadata',
        {
          usage: {
            inputTokens: 10,
            outputTokens: 20,
            totalTokens: 42,
            cacheReadInputTokens: 8,
            cacheWriteInputTokens: 4,
          },
          metrics: { latencyMs: 100 },
        },
      ],
    );
    expect(events).toEqual([
      { type: 'message_start', id: 'x', model: '', created: 0 },
      { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
      { type: 'block_delta', index: 0, delta: { kind: 'reasoning', text: 'Think.' } },
      { type: 'block_delta', index: 0, delta: { kind: 'signature', signature: 'sig' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'text' } },
      { type: 'block_delta', index: 1, delta: { kind: 'text', text: 'Let me ' } },
      { type: 'block_delta', index: 1, delta: { kind: 'text', text: 'check.' } },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 'tooluse_1', name: 'get' } },
      { type: 'block_delta', index: 2, delta: { kind: 'tool_arguments', json: '{"city":' } },
      { type: 'block_delta', index: 2, delta: { kind: 'tool_arguments', json: '"Paris"}' } },
      { type: 'block_stop', index: 2 },
      {
        type: 'message_stop',
        finish: 'tool_calls',
        usage: { inputTokens: 10, outputTokens: 20, cacheReadTokens: 8, cacheWriteTokens: 4 },
      },
    ]);
  });

  it('guardrail_intervened is content_filter; max_tokens is length', async () => {
    const stop = async (stopReason: string) =>
      (await decode(['messageStart', { role: 'assistant' }], ['messageStop', { stopReason }])).at(-1);
    expect(await stop('guardrail_intervened')).toMatchObject({ finish: 'content_filter' });
    expect(await stop('content_filtered')).toMatchObject({ finish: 'content_filter' });
    expect(await stop('max_tokens')).toMatchObject({ finish: 'length' });
    expect(await stop('stop_sequence')).toMatchObject({ finish: 'stop' });
  });

  it('an exception frame mid-stream ends it with the catalogue error its type means', async () => {
    const events = await decode(
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }],
      ['exception:throttlingException', { message: 'Too many tokens' }],
    );
    const last = events.at(-1) as Extract<StreamEvent, { type: 'error' }>;
    expect(last.type).toBe('error');
    expect(last.error.status).toBe(429);
    expect(last.error.message).toBe('The upstream reported throttlingException during the stream: Too many tokens');
  });

  it('a stream that ends before messageStop is an early end', async () => {
    const err = await decode(
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }],
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('upstream_unavailable');
  });
});
