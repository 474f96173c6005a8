import { describe, expect, it } from 'vitest';
import {
  checkEdits,
  checkReadEdits,
  checkSeededReads,
  checkUsageEdits,
  fastUsage,
  mutate,
} from '../../../helpers/json-mutations.js';
import { JSON_TEXT_PIECES, random, seededText } from '../../../helpers/seeded-text.js';
import { plainAnswer, plainAnswerUsage, plainUsage } from '../../../../src/formats/openai-chat/plain-answer.js';
import { decodeOpenaiResponse } from '../../../../src/formats/openai-chat/response.js';
import { usageFromOpenai } from '../../../../src/formats/openai-chat/usage.js';

const ALPHABET = [...JSON_TEXT_PIECES, '}]', '"}', '\\"', '"usage":'];

interface Options {
  id?: string;
  model?: string;
  content?: string | null;
  refusal?: boolean | string;
  finish?: string | null;
  annotations?: boolean;
  logprobs?: boolean;
  details?: boolean;
  tier?: boolean;
  fingerprint?: string | null;
  indent?: number;
}

/** An answer as OpenAI writes it, with or without its optional members. */
const answer = (o: Options = {}) =>
  JSON.stringify(
    {
      id: o.id ?? 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
      object: 'chat.completion',
      created: 1741569952,
      model: o.model ?? 'gpt-4.1-2025-04-14',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: o.content === undefined ? 'Hello! How can I assist you today?' : o.content,
            ...(o.refusal ? { refusal: o.refusal === true ? null : o.refusal } : {}),
            ...(o.annotations ? { annotations: [] } : {}),
          },
          ...(o.logprobs ? { logprobs: null } : {}),
          finish_reason: o.finish === undefined ? 'stop' : o.finish,
        },
      ],
      usage: {
        prompt_tokens: 19,
        completion_tokens: 10,
        total_tokens: 29,
        ...(o.details
          ? {
              prompt_tokens_details: { cached_tokens: 4, audio_tokens: 0 },
              completion_tokens_details: { reasoning_tokens: 0, accepted_prediction_tokens: 0 },
            }
          : {}),
      },
      ...(o.tier ? { service_tier: 'default' } : {}),
      ...(o.fingerprint !== undefined ? { system_fingerprint: o.fingerprint } : {}),
    },
    null,
    o.indent,
  );

const usageOf = (text: string) => fastUsage(plainAnswerUsage, text);

describe('plainAnswerUsage (the OpenAI chat complete-answer fast path)', () => {
  it('reads the usage of a text answer as OpenAI writes it, compact or indented', () => {
    const full = { refusal: true, annotations: true, logprobs: true, details: true, tier: true, fingerprint: 'fp_1' };
    for (const text of [answer(), answer(full), answer({ ...full, indent: 2 }), answer({ content: null })]) {
      expect(usageOf(text), text).toEqual(JSON.parse(text).usage);
    }
    // The bench upstream's and compatible servers' shape: a null fingerprint.
    expect(usageOf(answer({ fingerprint: null, logprobs: true }))).toEqual({
      prompt_tokens: 19,
      completion_tokens: 10,
      total_tokens: 29,
    });
  });

  it('agrees with JSON.parse on 5,000 seeded texts, member sets and spacings', () => {
    const next = random(11);
    let fast = 0;
    for (let n = 0; n < 5000; n++) {
      const text = answer({
        content: seededText(next, ALPHABET),
        refusal: next() < 0.5,
        annotations: next() < 0.5,
        logprobs: next() < 0.5,
        details: next() < 0.5,
        tier: next() < 0.5,
        fingerprint: next() < 0.3 ? undefined : next() < 0.5 ? null : seededText(next, ALPHABET),
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
      (next) =>
        answer({ content: seededText(next, ALPHABET), details: next() < 0.5, indent: next() < 0.5 ? 2 : undefined }),
      plainAnswerUsage,
      random(12),
    );
    expect(refused).toBeGreaterThan(5000);
    expect(taken).toBeGreaterThan(2000);
  });

  it('leaves every other answer to JSON.parse', () => {
    const base = answer({ refusal: true, logprobs: true, tier: true, fingerprint: 'fp_1' });
    const toolCall = base.replace(
      '"refusal":null',
      '"refusal":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]',
    );
    const twoChoices = base.replace(
      /"choices":\[(.*)\],"usage"/,
      (_m, c: string) => `"choices":[${c},${c.replace('"index":0', '"index":1')}],"usage"`,
    );
    const misses = [
      toolCall,
      twoChoices,
      base.replace('}],"usage"', '}],"usage":null,"usage"'),
      base.replace('"model":"gpt-4.1-2025-04-14"', '"model":null'),
      base.replace('"logprobs":null', '"logprobs":{"content":[]}'),
      base.replace('"object":"chat.completion"', '"object":"chat.completion.chunk"'),
      base.replace('"id":"chatcmpl-', '"extra":1,"id":"chatcmpl-'),
      base.replace('"role":"assistant"', '"role":"user"'),
      base.replace('"total_tokens":', '"total_tokens":[1],"x":'),
      `${base}x`,
      `${base},{}`,
      base.slice(0, -1),
      base.replace('How', 'H\u0007ow'),
      base.replace('How', 'H\\xow'),
      base.replace('How', 'H\\u12ow'),
      base.replace('"created":1741569952', '"created":01741569952'),
      base.replace('"total_tokens":29', '"total_tokens":29,'),
      base.replace('"total_tokens":29', '"total_tokens":+29'),
      base.replace('"total_tokens":29', '"total_tokens":29.'),
      '',
      '[]',
    ];
    for (const text of misses) expect(plainAnswerUsage(text), text).toBeUndefined();
    // A duplicate inside usage is JSON: its text parses as the whole answer's does (the last one wins).
    const duplicate = base.replace('"usage":{', '"usage":{"prompt_tokens":1,"prompt_tokens":2,');
    expect(usageOf(duplicate)).toEqual(JSON.parse(duplicate).usage);
  });
});

describe('plainUsage (the usage of a fast-path answer, read without JSON.parse)', () => {
  const usageText = (text: string) => plainAnswerUsage(text) as string;

  it('reads the common shape as usageFromOpenai reads the parsed object, details or not', () => {
    const next = random(13);
    for (let n = 0; n < 2000; n++) {
      const text = answer({ details: next() < 0.5, indent: next() < 0.5 ? 2 : undefined });
      const got = plainUsage(usageText(text));
      expect(got, text).toBeDefined();
      expect(got).toEqual(usageFromOpenai(JSON.parse(text).usage));
    }
    // The cached tokens are taken out of the input, as the parsed path does.
    expect(plainUsage(usageText(answer({ details: true })))).toEqual({
      inputTokens: 15,
      outputTokens: 10,
      cacheReadTokens: 4,
    });
  });

  it('leaves every other usage shape to JSON.parse', () => {
    for (const usage of [
      '{"completion_tokens":10,"prompt_tokens":19,"total_tokens":29}',
      '{"prompt_tokens":19,"prompt_tokens":20,"completion_tokens":10,"total_tokens":29}',
      '{"prompt_tokens":19.0,"completion_tokens":10,"total_tokens":29}',
      '{"prompt_tokens":1e3,"completion_tokens":10,"total_tokens":29}',
      '{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,"extra":1}',
      '{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,' +
        '"prompt_tokens_details":{"audio_tokens":0,"cached_tokens":4}}',
      '{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,"prompt_tokens_details":null}',
      '{"prompt_tokens":12345678901234567,"completion_tokens":10,"total_tokens":29}',
    ]) {
      expect(plainUsage(usage), usage).toBeUndefined();
    }
  });

  it('reads no one-character edit of a usage text otherwise than usageFromOpenai reads its JSON', () => {
    const read = checkUsageEdits(
      (next) => usageText(answer({ details: next() < 0.5, indent: next() < 0.3 ? 2 : undefined })),
      plainUsage,
      (parsed) => usageFromOpenai(parsed as Parameters<typeof usageFromOpenai>[0]),
      random(14),
    );
    expect(read).toBeGreaterThan(1000);
  });
});

describe('plainAnswer (a fast-path answer decoded for an output guard)', () => {
  const FINISH = ['stop', 'length', 'content_filter', 'tool_calls', null, 'other'];
  const seeded = (next: () => number) =>
    answer({
      id: next() < 0.2 ? seededText(next, ALPHABET) : undefined,
      model: next() < 0.2 ? seededText(next, ALPHABET) : undefined,
      content: next() < 0.1 ? null : next() < 0.1 ? '' : seededText(next, ALPHABET),
      refusal: next() < 0.6 ? next() < 0.5 : seededText(next, ALPHABET),
      finish: FINISH[Math.floor(next() * FINISH.length)],
      annotations: next() < 0.5,
      logprobs: next() < 0.5,
      details: next() < 0.5,
      tier: next() < 0.5,
      fingerprint: next() < 0.5 ? undefined : 'fp_1',
      indent: next() < 0.7 ? undefined : 2,
    });

  it('decodes 5,000 seeded answers as decodeOpenaiResponse decodes their JSON', () => {
    checkSeededReads(seeded, plainAnswer, decodeOpenaiResponse, random(15));
  });

  it('decodes no one-character edit otherwise than the whole parse, and takes none JSON.parse refuses', () => {
    const { refused, taken } = checkReadEdits(seeded, plainAnswer, decodeOpenaiResponse, random(16));
    expect(refused).toBeGreaterThan(5000);
    expect(taken).toBeGreaterThan(2000);
  });

  it('takes exactly the answers the usage fast path takes', () => {
    const next = random(17);
    for (let n = 0; n < 2000; n++) {
      const text = mutate(seeded(next), next);
      expect(plainAnswer(text) === undefined, text).toBe(plainAnswerUsage(text) === undefined);
    }
  });
});
