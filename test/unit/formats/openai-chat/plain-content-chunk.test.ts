import { describe, expect, it } from 'vitest';
import { JSON_TEXT_PIECES, random, seededText } from '../../../helpers/seeded-text.js';
import type { ChatRequest } from '../../../../src/core/canonical.js';
import { plainContentChunk } from '../../../../src/formats/openai-chat/plain-content-chunk.js';
import { decodeOpenaiStream } from '../../../../src/formats/openai-chat/stream-decode.js';
import { OpenaiStreamWatch } from '../../../../src/formats/openai-chat/stream-watch.js';
import type { SseMessage } from '../../../../src/sse/decode.js';
import { collect, fromArray } from './load-chunks.js';

const ALPHABET = [...JSON_TEXT_PIECES, '}]', '"}', '\\"', '"},'];

/** A content chunk as OpenAI writes it (service tier, usage and obfuscation optional). */
const chunk = (content: string, o: { tier?: boolean; usage?: boolean; obfuscation?: string } = {}) =>
  JSON.stringify({
    id: 'chatcmpl-C1',
    object: 'chat.completion.chunk',
    created: 1757000000,
    model: 'gpt-4o-mini-2024-07-18',
    ...(o.tier ? { service_tier: 'default' } : {}),
    system_fingerprint: 'fp_1',
    choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }],
    ...(o.usage ? { usage: null } : {}),
    ...(o.obfuscation !== undefined ? { obfuscation: o.obfuscation } : {}),
  });

describe('plainContentChunk (the OpenAI chat stream fast path)', () => {
  it('reads a plain content chunk as OpenAI writes it, with or without its optional members', () => {
    expect(plainContentChunk(chunk(' there'))).toBe(' there');
    expect(plainContentChunk(chunk('Hello, é 漢 🙂', { tier: true, usage: true, obfuscation: 'k3Zq' }))).toBe(
      'Hello, é 漢 🙂',
    );
    expect(plainContentChunk(chunk('', { obfuscation: '' }))).toBe('');
    // The bench upstream's and compatible servers' shapes: null fingerprint, no logprobs.
    expect(
      plainContentChunk(
        '{"id":"x","object":"chat.completion.chunk","created":0,"model":"m","system_fingerprint":null,' +
          '"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}',
      ),
    ).toBe('a');
  });

  it('agrees with JSON.parse on 5,000 seeded texts and member sets, or leaves them to it', () => {
    const next = random(7);
    let fast = 0;
    for (let n = 0; n < 5000; n++) {
      const text = seededText(next, ALPHABET);
      const data = chunk(text, {
        tier: next() < 0.5,
        usage: next() < 0.5,
        obfuscation: next() < 0.5 ? text : undefined,
      });
      const got = plainContentChunk(data);
      if (got === undefined) continue;
      fast++;
      expect(got).toBe(JSON.parse(data).choices[0].delta.content);
    }
    expect(fast).toBeGreaterThan(500);
  });

  it('leaves to JSON.parse every chunk with more to say, another shape, spacing or escape', () => {
    const head = '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m",';
    const choice = (delta: string, rest = ',"logprobs":null,"finish_reason":null') =>
      `"choices":[{"index":0,"delta":${delta}${rest}}]`;
    const others = [
      `${head}${choice('{"content":"a\\nb"}')}}`,
      `${head}${choice('{"content":"a\\"b"}')}}`,
      `${head}${choice('{"content":"a\tb"}')}}`,
      `${head}${choice('{"role":"assistant","content":""}')}}`,
      `${head}${choice('{"content":"a","refusal":null}')}}`,
      `${head}${choice('{"reasoning_content":"a"}')}}`,
      `${head}${choice('{"content":"a"}', ',"logprobs":null,"finish_reason":"stop"')}}`,
      `${head}${choice('{"content":"a"}', ',"logprobs":{"content":[]},"finish_reason":null')}}`,
      `${head}${choice('{"content":"a"}')},"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
      `${head}${choice('{"content":"a"}')},"error":{"message":"x"}}`,
      `${head}"error":null,${choice('{"content":"a"}')}}`,
      `${head}${choice('{"content":"a"}')},"x":1}`,
      `${head}"choices":[{"index":1,"delta":{"content":"a"},"finish_reason":null}]}`,
      `${head}"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null},{"index":1}]}`,
      `{"id":"c","object":"chat.completion","created":1,${choice('{"content":"a"}')}}`,
      `{"id":"c","created":01,${choice('{"content":"a"}')}}`,
      `{"id":"c","created":1.5,${choice('{"content":"a"}')}}`,
      `{"id":"c\n","created":1,${choice('{"content":"a"}')}}`,
      `{ "id":"c",${choice('{"content":"a"}')}}`,
      `${head}${choice('{"content": "a"}')}}`,
      `${head}${choice('{"content":"a"}')}} `,
      `${head}${choice('{"content":"a"}')}`,
      `${head}${choice('{"content":"}')}}`,
    ];
    for (const data of others) expect(plainContentChunk(data), data).toBeUndefined();
  });
});

/**
 * The same streams with every chunk spaced out (`{ "id": …`): JSON-identical, but never in the
 * fast path's shape, so the full parse reads every chunk.
 */
const spaced = (data: string) => (data.startsWith('{') ? JSON.stringify(JSON.parse(data), null, 1) : data);

function mixedStream(seed: number): string[] {
  const next = random(seed);
  const lines = [chunk('', { tier: true })]; // the first chunk names the message
  for (let i = 0; i < 40; i++) {
    const r = next();
    const text = ALPHABET[Math.floor(next() * ALPHABET.length)];
    if (r < 0.6) lines.push(chunk(text, { usage: true, obfuscation: 'ab' }));
    else if (r < 0.7) lines.push(chunk(text.replace(/"/g, '')));
    else if (r < 0.8)
      lines.push(JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { reasoning_content: text } }] }));
    else if (r < 0.9)
      lines.push(
        JSON.stringify({
          id: 'c',
          choices: [
            { index: 0, delta: { tool_calls: [{ index: 0, id: 't', function: { name: 'f', arguments: text } }] } },
          ],
        }),
      );
    else lines.push(JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { refusal: text } }] }));
  }
  lines.push(JSON.stringify({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
  lines.push(JSON.stringify({ id: 'c', choices: [], usage: { prompt_tokens: 3, completion_tokens: 40 } }));
  lines.push('[DONE]');
  return lines;
}

const messages = (lines: string[]): SseMessage[] => lines.map((data) => ({ data }));

describe('the fast path in the decoder and the relay watch', () => {
  it('decodes 20 seeded mixed streams to the same events as the full parse of every chunk', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const lines = mixedStream(seed);
      const fast = await collect(decodeOpenaiStream(fromArray(messages(lines))));
      const full = await collect(decodeOpenaiStream(fromArray(messages(lines.map(spaced)))));
      expect(fast).toEqual(full);
    }
  });

  it('a first chunk in the plain shape still names the message (it is parsed in full)', async () => {
    const first = chunk('Hi', { obfuscation: 'x' });
    const events = await collect(decodeOpenaiStream(fromArray(messages([first, chunk(' there'), '[DONE]']))));
    expect(events[0]).toEqual({
      type: 'message_start',
      id: 'chatcmpl-C1',
      model: 'gpt-4o-mini-2024-07-18',
      created: 1757000000,
    });
    expect(events.filter((e) => e.type === 'block_delta')).toEqual([
      { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'Hi' } },
      { type: 'block_delta', index: 0, delta: { kind: 'text', text: ' there' } },
    ]);
  });

  it('an `error` event in the plain shape is still the upstream error', async () => {
    const events = await collect(
      decodeOpenaiStream(fromArray([{ data: chunk('') }, { event: 'error', data: chunk('boom') }])),
    );
    expect(events.at(-1)?.type).toBe('error');
    const watch = new OpenaiStreamWatch({ includeUsage: false } as ChatRequest);
    expect(() => watch.see({ event: 'error', data: chunk('boom') })).toThrow();
  });

  it('the relay watch keeps the same text, usage and completion either way', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const lines = mixedStream(seed);
      const watched = (ls: string[]) => {
        const w = new OpenaiStreamWatch({ includeUsage: false } as ChatRequest);
        const drops = ls.map((data) => w.see({ data })?.drop ?? false);
        return { output: w.output, usage: w.usage, complete: w.complete, drops };
      };
      expect(watched(lines)).toEqual(watched(lines.map(spaced)));
    }
  });
});
