import { describe, expect, it } from 'vitest';
import type { ChatRequest, StreamEvent } from '../../../src/core/canonical.js';
import { WIRE_FORMATS } from '../../../src/formats/registry.js';
import type { WireFormatId } from '../../../src/core/canonical.js';
import { SseDecoder } from '../../../src/sse/decode.js';
import { encodeEvents } from '../../helpers/encode-events.js';

/**
 * The encoders write their hot events (deltas) as text around JSON.stringify'd values instead of
 * stringifying whole objects. Whatever the text holds, every `data:` line must still be exactly
 * what JSON.stringify makes of its own parse: same members, same order, same escapes.
 */
const AWKWARD = [
  'plain',
  'quote " backslash \\ slash / newline \n tab \t',
  '</script><!-- -->',
  'unicode é 漢字 🙂 \u2028 \u2029',
  'lone surrogates \ud800 and \udfff',
  'control \u0000 \u001f \u007f',
  '{"looks":"like json"}',
  '',
];

function events(): StreamEvent[] {
  const out: StreamEvent[] = [
    { type: 'message_start', id: 'msg "1"', model: 'm\u00e9', created: 1736272000, usage: { inputTokens: 3 } },
    { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
    ...AWKWARD.map((text): StreamEvent => ({ type: 'block_delta', index: 0, delta: { kind: 'reasoning', text } })),
    { type: 'block_stop', index: 0 },
    { type: 'block_start', index: 1, block: { kind: 'text' } },
    ...AWKWARD.map((text): StreamEvent => ({ type: 'block_delta', index: 1, delta: { kind: 'text', text } })),
    { type: 'block_stop', index: 1 },
    { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 'call_"x"', name: 'f' } },
    ...AWKWARD.map((json): StreamEvent => ({ type: 'block_delta', index: 2, delta: { kind: 'tool_arguments', json } })),
    { type: 'block_stop', index: 2 },
    { type: 'message_stop', finish: 'tool_calls', usage: { inputTokens: 3, outputTokens: 9 } },
  ];
  return out;
}

const CALLERS: Array<[WireFormatId, unknown]> = [
  ['openai-chat', { model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }],
  ['anthropic-messages', { model: 'm', stream: true, max_tokens: 9, messages: [{ role: 'user', content: 'hi' }] }],
  ['openai-responses', { model: 'm', stream: true, input: 'hi' }],
];

describe.each(CALLERS)('%s stream encoder: data lines are canonical JSON', (id, body) => {
  it('every data line equals JSON.stringify of its parse, and carries the texts unchanged', async () => {
    const format = WIRE_FORMATS[id]!;
    const req: ChatRequest = format.decodeRequest(body);
    const chunks: string[] = [];
    for await (const c of encodeEvents(format.streamEncoder(req), events())) chunks.push(c);
    const d = new SseDecoder();
    const messages = [...d.push(chunks.join('')), ...d.end()].filter((m) => m.data !== '[DONE]');
    expect(messages.length).toBeGreaterThan(AWKWARD.length * 2);
    for (const m of messages) {
      const parsed = JSON.parse(m.data);
      expect(JSON.stringify(parsed)).toBe(m.data);
      // Responses and Anthropic name the event twice; the names agree.
      if (m.event !== undefined) expect(parsed.type).toBe(m.event);
    }
    // Each non-empty awkward string reached the caller intact (escaped as JSON.stringify escapes it).
    for (const s of AWKWARD.filter((a) => a.length > 0)) {
      expect(messages.some((m) => m.data.includes(JSON.stringify(s).slice(1, -1)))).toBe(true);
    }
  });
});

describe('openai-responses stream encoder', () => {
  it('numbers its events from 0 with no gap (sequence_number second)', async () => {
    const format = WIRE_FORMATS['openai-responses']!;
    const chunks: string[] = [];
    const enc = format.streamEncoder(format.decodeRequest(CALLERS[2][1]));
    for await (const c of encodeEvents(enc, events())) chunks.push(c);
    const d = new SseDecoder();
    const data = [...d.push(chunks.join('')), ...d.end()].map((m) => JSON.parse(m.data));
    expect(data.map((e) => e.sequence_number)).toEqual(data.map((_, i) => i));
    for (const e of data) expect(Object.keys(e).slice(0, 2)).toEqual(['type', 'sequence_number']);
  });
});
