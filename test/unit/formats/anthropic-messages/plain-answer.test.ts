import { describe, expect, it } from 'vitest';
import { fixDateNow } from '../../../helpers/fixed-date.js';
import {
  checkEdits,
  checkReadEdits,
  checkSeededReads,
  checkUsageEdits,
  fastUsage,
} from '../../../helpers/json-mutations.js';
import { JSON_TEXT_PIECES, random, seededText } from '../../../helpers/seeded-text.js';
import { plainAnswerUsage, plainAnswer, plainUsage } from '../../../../src/formats/anthropic-messages/plain-answer.js';
import { decodeAnthropicResponse } from '../../../../src/formats/anthropic-messages/response.js';
import { usageFromAnthropic } from '../../../../src/formats/anthropic-messages/usage.js';

const ALPHABET = [...JSON_TEXT_PIECES, '}]', '"}', '\\"', '"usage":'];

interface Options {
  id?: string;
  model?: string;
  stopReason?: string | null;
  texts?: string[];
  stopSequence?: string | null;
  cacheCreation?: boolean;
  indent?: number;
}

/** A message as Anthropic writes it. */
const message = (o: Options = {}) =>
  JSON.stringify(
    {
      id: o.id ?? 'msg_01AbCdEfGhJkMnPqRsTuVwXy',
      type: 'message',
      role: 'assistant',
      model: o.model ?? 'claude-sonnet-4-5-20250929',
      content: (o.texts ?? ['Hello! How can I help?']).map((text) => ({ type: 'text', text })),
      stop_reason: o.stopReason !== undefined ? o.stopReason : o.stopSequence ? 'stop_sequence' : 'end_turn',
      stop_sequence: o.stopSequence ?? null,
      usage: {
        input_tokens: 2095,
        cache_creation_input_tokens: 1024,
        cache_read_input_tokens: 4096,
        ...(o.cacheCreation
          ? { cache_creation: { ephemeral_5m_input_tokens: 1024, ephemeral_1h_input_tokens: 0 } }
          : {}),
        output_tokens: 503,
        service_tier: 'standard',
      },
    },
    null,
    o.indent,
  );

const usageOf = (text: string) => fastUsage(plainAnswerUsage, text);

describe('plainAnswerUsage (the Anthropic complete-answer fast path)', () => {
  it('reads the usage of a message of text blocks as Anthropic writes it, compact or indented', () => {
    for (const text of [
      message(),
      message({ texts: ['a', 'b'], stopSequence: '###', cacheCreation: true }),
      message({ texts: [], indent: 2 }),
    ]) {
      expect(usageOf(text), text).toEqual(JSON.parse(text).usage);
    }
  });

  it('agrees with JSON.parse on 5,000 seeded texts, block counts and spacings', () => {
    const next = random(21);
    let fast = 0;
    for (let n = 0; n < 5000; n++) {
      const text = message({
        texts: Array.from({ length: Math.floor(next() * 4) }, () => seededText(next, ALPHABET)),
        stopSequence: next() < 0.5 ? null : seededText(next, ALPHABET),
        cacheCreation: next() < 0.5,
        indent: next() < 0.7 ? undefined : Math.floor(next() * 4),
      });
      const got = usageOf(text);
      expect(got, text).toEqual(JSON.parse(text).usage);
      if (got !== undefined) fast++;
    }
    expect(fast).toBe(5000);
  });

  it('accepts no one-character edit that JSON.parse refuses, and reads the same usage from any it takes', () => {
    const { refused, taken } = checkEdits(
      (next) => message({ texts: [seededText(next, ALPHABET)], cacheCreation: next() < 0.5 }),
      plainAnswerUsage,
      random(22),
    );
    expect(refused).toBeGreaterThan(5000);
    expect(taken).toBeGreaterThan(2000);
  });

  it('leaves every other answer to JSON.parse', () => {
    const base = message();
    const misses = [
      base.replace('"content":[', '"content":[{"type":"thinking","thinking":"t","signature":"s"},'),
      base.replace('"content":[', '"content":[{"type":"tool_use","id":"t","name":"f","input":{}},'),
      base.replace('"type":"text","text":"Hello! How can I help?"', '"type":"text","text":"x","citations":[]'),
      base.replace('"usage":{', '"container":null,"usage":{'),
      base.replace('"model":"claude-sonnet-4-5-20250929"', '"model":1'),
      base.replace('"type":"message"', '"type":"error"'),
      base.replace('"content":[{', '"content":[,{'),
      base.replace('"}],"stop_reason"', '"},],"stop_reason"'),
      base.replace('"output_tokens":503', '"output_tokens":[503]'),
      base.replace('"output_tokens":503', '"output_tokens":{"n":{"m":1}}'),
      `${base} x`,
      base.slice(1),
    ];
    for (const text of misses) expect(plainAnswerUsage(text), text).toBeUndefined();
  });
});

describe('plainUsage (the usage of a fast-path message, read without JSON.parse)', () => {
  const usageText = (text: string) => plainAnswerUsage(text) as string;

  it('reads the common shape as usageFromAnthropic reads the parsed object, cache writes by TTL or not', () => {
    const next = random(23);
    for (let n = 0; n < 2000; n++) {
      const text = message({ cacheCreation: next() < 0.5, indent: next() < 0.5 ? 2 : undefined });
      const got = plainUsage(usageText(text));
      expect(got, text).toBeDefined();
      expect(got).toEqual(usageFromAnthropic(JSON.parse(text).usage));
    }
    expect(plainUsage(usageText(message()))).toEqual({
      inputTokens: 2095,
      outputTokens: 503,
      cacheReadTokens: 4096,
      cacheWriteTokens: 1024,
    });
  });

  it('leaves every other usage shape to JSON.parse', () => {
    for (const usage of [
      '{"output_tokens":9,"input_tokens":24,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}',
      '{"input_tokens":24,"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,' +
        '"output_tokens":9}',
      '{"input_tokens":24,"cache_creation_input_tokens":null,"cache_read_input_tokens":0,"output_tokens":9}',
      '{"input_tokens":24,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":9,' +
        '"server_tool_use":{"web_search_requests":1}}',
      '{"input_tokens":2.5,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":9}',
    ]) {
      expect(plainUsage(usage), usage).toBeUndefined();
    }
  });

  it('reads no one-character edit of a usage text otherwise than usageFromAnthropic reads its JSON', () => {
    const read = checkUsageEdits(
      (next) => usageText(message({ cacheCreation: next() < 0.5, indent: next() < 0.3 ? 2 : undefined })),
      plainUsage,
      usageFromAnthropic,
      random(24),
    );
    expect(read).toBeGreaterThan(1000);
  });
});

describe('plainAnswer (a one-text-block message decoded for a guard or a translation)', () => {
  fixDateNow(); // a message carries no time: decoding stamps Date.now()

  const STOP = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'refusal', null, 'other'];
  const seeded = (next: () => number, blocks = 1) =>
    message({
      id: next() < 0.2 ? seededText(next, ALPHABET) : undefined,
      model: next() < 0.2 ? seededText(next, ALPHABET) : undefined,
      texts: Array.from({ length: blocks }, () => (next() < 0.1 ? '' : seededText(next, ALPHABET))),
      stopReason: STOP[Math.floor(next() * STOP.length)],
      stopSequence: next() < 0.5 ? null : seededText(next, ALPHABET),
      cacheCreation: next() < 0.5,
      indent: next() < 0.7 ? undefined : 2,
    });

  it('decodes 5,000 seeded messages as decodeAnthropicResponse decodes their JSON', () => {
    checkSeededReads(seeded, plainAnswer, decodeAnthropicResponse, random(25));
  });

  it('decodes no one-character edit otherwise than the whole parse, and takes none JSON.parse refuses', () => {
    const { refused, taken } = checkReadEdits(seeded, plainAnswer, decodeAnthropicResponse, random(26));
    expect(refused).toBeGreaterThan(5000);
    expect(taken).toBeGreaterThan(2000);
  });

  it('leaves several blocks, no block and every other message to the whole parse', () => {
    const next = random(27);
    expect(plainAnswer(seeded(next, 2))).toBeUndefined();
    expect(plainAnswer(seeded(next, 0))).toBeUndefined();
    const base = message();
    for (const text of [
      base.replace('"type":"text","text"', '"type":"thinking","thinking"'),
      base.replace('"stop_sequence":null,', ''),
      base.replace('"role":"assistant"', '"role":"user"'),
      base.replace('"model":"claude', '"model":null,"x":"claude'),
      `${base} x`,
    ]) {
      expect(plainAnswer(text), text).toBeUndefined();
    }
  });
});
