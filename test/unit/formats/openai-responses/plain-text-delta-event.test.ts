import { describe, expect, it } from 'vitest';
import { JSON_TEXT_PIECES, random, seededText } from '../../../helpers/seeded-text.js';
import { plainTextDeltaEvent } from '../../../../src/formats/openai-responses/plain-text-delta-event.js';
import { decodeResponsesStream } from '../../../../src/formats/openai-responses/stream-decode.js';
import { ResponsesStreamWatch } from '../../../../src/formats/openai-responses/stream-watch.js';
import type { SseMessage } from '../../../../src/sse/decode.js';

const ALPHABET = [...JSON_TEXT_PIECES, '}', '"}', '\\"', '","'];

/** An output text delta as OpenAI writes it (obfuscation optional). */
const deltaEvent = (seq: number, delta: string, obfuscation?: string) =>
  JSON.stringify({
    type: 'response.output_text.delta',
    sequence_number: seq,
    item_id: 'msg_68af105d9a1c8190abcdefabcdef0004',
    output_index: 0,
    content_index: 0,
    delta,
    logprobs: [],
    ...(obfuscation !== undefined ? { obfuscation } : {}),
  });

describe('plainTextDeltaEvent (the Responses relay fast path)', () => {
  it('reads output text deltas as OpenAI writes them (recorded Codex traffic)', () => {
    expect(
      plainTextDeltaEvent(
        '{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_68af105d9a1c8190abcdefabcdef0004",' +
          '"output_index":0,"content_index":0,"delta":"Once upon a time,","logprobs":[],"obfuscation":"G"}',
      ),
    ).toEqual({ sequenceNumber: 4, outputIndex: 0, contentIndex: 0, delta: 'Once upon a time,' });
    expect(plainTextDeltaEvent(deltaEvent(123456789012345, 'é 漢 🙂'))).toEqual({
      sequenceNumber: 123456789012345,
      outputIndex: 0,
      contentIndex: 0,
      delta: 'é 漢 🙂',
    });
    expect(plainTextDeltaEvent(deltaEvent(0, '', ''))).toEqual({
      sequenceNumber: 0,
      outputIndex: 0,
      contentIndex: 0,
      delta: '',
    });
  });

  it('agrees with JSON.parse on 5,000 seeded deltas, or leaves them to it', () => {
    const next = random(11);
    let fast = 0;
    for (let n = 0; n < 5000; n++) {
      const text = seededText(next, ALPHABET);
      const data = deltaEvent(Math.floor(next() * 1e6), text, next() < 0.5 ? text : undefined);
      const got = plainTextDeltaEvent(data);
      if (got === undefined) continue;
      fast++;
      const parsed = JSON.parse(data);
      expect(got).toEqual({
        sequenceNumber: parsed.sequence_number,
        outputIndex: parsed.output_index,
        contentIndex: parsed.content_index,
        delta: parsed.delta,
      });
    }
    expect(fast).toBeGreaterThan(500);
  });

  it('leaves to JSON.parse every other type, shape, spacing, number or escape', () => {
    const at = (members: string) => `{"type":"response.output_text.delta",${members}}`;
    const ids = '"item_id":"m","output_index":0,"content_index":0';
    const others = [
      at(`"sequence_number":1,${ids},"delta":"a\\nb","logprobs":[]`),
      at(`"sequence_number":1,${ids},"delta":"a\\"b","logprobs":[]`),
      at(`"sequence_number":1,${ids},"delta":"a\tb","logprobs":[]`),
      at(`"sequence_number":01,${ids},"delta":"a","logprobs":[]`),
      at(`"sequence_number":1.5,${ids},"delta":"a","logprobs":[]`),
      at(`"sequence_number":1234567890123456,${ids},"delta":"a","logprobs":[]`),
      at(`"sequence_number":1,${ids},"delta":"a","logprobs":[{"token":"a"}]`),
      at(`"sequence_number":1,${ids},"delta":"a","logprobs":[],"x":1`),
      at(`"sequence_number":1,${ids},"delta":"a"`),
      at(`${ids},"sequence_number":1,"delta":"a","logprobs":[]`),
      at(`"sequence_number": 1,${ids},"delta":"a","logprobs":[]`),
      `{"type":"response.refusal.delta","sequence_number":1,${ids},"delta":"a","logprobs":[]}`,
      `{"type":"error","sequence_number":1,${ids},"delta":"a","logprobs":[]}`,
      `${at(`"sequence_number":1,${ids},"delta":"a","logprobs":[]`)} `,
    ];
    for (const data of others) expect(plainTextDeltaEvent(data), data).toBeUndefined();
  });
});

/** The same event spaced out (`{ "type": …`): JSON-identical, never in the fast path's shape. */
const spaced = (data: string) => JSON.stringify(JSON.parse(data), null, 1);

function mixedStream(seed: number): string[] {
  const next = random(seed);
  const lines = [JSON.stringify({ type: 'response.created', sequence_number: 0, response: { id: 'r' } })];
  let seq = 1;
  for (let i = 0; i < 40; i++) {
    const r = next();
    const text = ALPHABET[Math.floor(next() * ALPHABET.length)];
    if (r < 0.7) lines.push(deltaEvent(seq++, text, 'ob'));
    else if (r < 0.8)
      lines.push(
        JSON.stringify({ type: 'response.reasoning_summary_text.delta', sequence_number: seq++, delta: text }),
      );
    else if (r < 0.9)
      lines.push(
        JSON.stringify({
          type: 'response.output_item.added',
          sequence_number: seq++,
          item: { type: 'function_call', name: `f${i}` },
        }),
      );
    else lines.push(JSON.stringify({ type: 'response.in_progress', sequence_number: seq++ }));
  }
  lines.push(
    JSON.stringify({
      type: 'response.completed',
      sequence_number: seq,
      response: { usage: { input_tokens: 5, output_tokens: 40, total_tokens: 45 } },
    }),
  );
  return lines;
}

describe('the fast path in the Responses relay watch', () => {
  it('keeps the same text, usage, completion and next sequence number as the full parse', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const lines = mixedStream(seed);
      const watched = (ls: string[]) => {
        const w = new ResponsesStreamWatch();
        const seqs = ls.map((data) => {
          w.see({ event: JSON.parse(data).type, data });
          return w.nextSequenceNumber;
        });
        return { output: w.output, usage: w.usage, complete: w.complete, seqs };
      };
      expect(watched(lines)).toEqual(watched(lines.map(spaced)));
    }
  });
});

/** A whole upstream Responses stream: a message with text deltas, a reasoning item, a function call. */
function upstreamStream(seed: number): string[] {
  const next = random(seed);
  let seq = 0;
  const ev = (type: string, fields: Record<string, unknown>) =>
    JSON.stringify({ type, sequence_number: seq++, ...fields });
  const texts = Array.from({ length: 30 }, () => ALPHABET[Math.floor(next() * ALPHABET.length)]);
  const at = (i: number) => ({ item_id: `msg_${i}`, output_index: i, content_index: 0 });
  return [
    ev('response.created', { response: { id: 'resp_1', model: 'gpt-x', created_at: 7 } }),
    ev('response.output_item.added', { output_index: 0, item: { type: 'reasoning', id: 'rs_0' } }),
    ev('response.reasoning_summary_text.delta', { output_index: 0, summary_index: 0, delta: 'think' }),
    ev('response.output_item.done', { output_index: 0, item: { type: 'reasoning', id: 'rs_0' } }),
    ev('response.output_item.added', { output_index: 1, item: { type: 'message', id: 'msg_1' } }),
    ev('response.content_part.added', { ...at(1), part: { type: 'output_text', text: '' } }),
    ...texts.map((t) => deltaEvent(seq++, t, 'ob').replace(/"output_index":0/, '"output_index":1')),
    ev('response.content_part.done', { ...at(1), part: { type: 'output_text', text: texts.join('') } }),
    ev('response.output_item.done', { output_index: 1, item: { type: 'message', id: 'msg_1' } }),
    ev('response.output_item.added', {
      output_index: 2,
      item: { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'f', arguments: '' },
    }),
    ev('response.function_call_arguments.delta', { item_id: 'fc_2', output_index: 2, delta: '{"a":1}' }),
    ev('response.output_item.done', { output_index: 2, item: { type: 'function_call', call_id: 'call_2' } }),
    ev('response.completed', {
      response: { id: 'resp_1', status: 'completed', usage: { input_tokens: 3, output_tokens: 40, total_tokens: 43 } },
    }),
  ];
}

describe('the fast path in the Responses stream decoder', () => {
  it('decodes 20 seeded upstream streams to the same events as the full parse of every event', async () => {
    const decode = async (lines: string[]) => {
      const out = [];
      const msgs: SseMessage[] = lines.map((data) => ({ event: JSON.parse(data).type, data }));
      for await (const e of decodeResponsesStream(
        (async function* () {
          yield* msgs;
        })(),
      ))
        out.push(e);
      return out;
    };
    for (let seed = 1; seed <= 20; seed++) {
      const lines = upstreamStream(seed);
      const fast = await decode(lines);
      expect(fast.filter((e) => e.type === 'block_delta').length).toBeGreaterThan(20);
      expect(fast).toEqual(await decode(lines.map(spaced)));
    }
  });
});
