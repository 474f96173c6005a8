import { describe, expect, it } from 'vitest';
import type { ModelSpec } from '../../../src/config/types.js';
import { embeddingsBody, float32Base64 } from '../../../src/formats/openai-embeddings/response.js';
import {
  DEFAULT_MOCK_DIMENSIONS,
  MAX_MOCK_VALUES,
  mockEmbedding,
  mockEmbeddings,
  mockPromptTokens,
} from '../../../src/providers/mock-embeddings.js';

const model: ModelSpec = {
  id: 'local/embed',
  provider: 'local',
  name: 'embed',
  upstreamName: 'embed',
  kind: 'embedding',
  contextWindow: 8192,
  timeouts: { connectMs: 1000, firstByteMs: 1000, totalMs: 1000 },
};
const length = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('mockEmbedding', () => {
  it('is a pure function of the input, of unit length', () => {
    const a = mockEmbedding('hello', 12);
    expect(a).toHaveLength(12);
    expect(mockEmbedding('hello', 12)).toEqual(a);
    expect(Math.abs(length(a) - 1)).toBeLessThan(1e-6);
    expect(a.every((x) => x !== 0)).toBe(true);
  });

  it('differs between inputs, and between a text and token ids that spell the same', () => {
    const vectors = [
      mockEmbedding('hello', 8),
      mockEmbedding('hellO', 8),
      mockEmbedding('1', 8),
      mockEmbedding([1], 8),
    ];
    const distinct = new Set(vectors.map((v) => Array.from(v).join(',')));
    expect(distinct.size).toBe(4);
  });

  it('keeps its first values when more dimensions are asked (blocks of eight, each from its own hash)', () => {
    const short = mockEmbedding('text', 8);
    const long = mockEmbedding('text', 20);
    const scale = length(Float32Array.from(long.slice(0, 8))) / length(short);
    long.slice(0, 8).forEach((x, i) => {
      expect(x).toBeCloseTo(short[i]! * scale, 6);
    });
  });
});

describe('mockEmbeddings', () => {
  const req = (extra: object = {}) => ({
    model: 'local/embed',
    inputs: ['abcde', [7, 8, 9]],
    encodingFormat: 'float' as const,
    ...extra,
  });

  it("makes the request's dimensions, else the model's, else the default", () => {
    expect(mockEmbeddings(req({ dimensions: 3 }), { ...model, dimensions: 5 }).vectors.map((v) => v.length)).toEqual([
      3, 3,
    ]);
    expect(mockEmbeddings(req(), { ...model, dimensions: 5 }).vectors[0]).toHaveLength(5);
    expect(mockEmbeddings(req(), model).vectors[0]).toHaveLength(DEFAULT_MOCK_DIMENSIONS);
  });

  it('counts about four characters per text token (at least one) and each token id', () => {
    expect(mockPromptTokens(['abcde', 'a', [7, 8, 9]])).toBe(2 + 1 + 3);
    expect(mockEmbeddings(req(), model).promptTokens).toBe(2 + 3);
  });

  it('refuses more values than MAX_MOCK_VALUES, naming dimensions', () => {
    expect(() => mockEmbeddings(req({ dimensions: MAX_MOCK_VALUES / 2 }), model)).not.toThrow();
    expect(() => mockEmbeddings(req({ dimensions: MAX_MOCK_VALUES / 2 + 1 }), model)).toThrow(
      expect.objectContaining({ code: 'invalid_request', param: 'dimensions' }),
    );
  });
});

describe('the embeddings body', () => {
  it('base64 is little-endian float32', () => {
    expect(float32Base64(Float32Array.of(1, -2))).toBe(
      Buffer.from([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]).toString('base64'),
    );
  });

  it('numbers or base64 per vector, with usage', () => {
    const v = Float32Array.of(0.5, 0.25);
    expect(embeddingsBody([v], 'team/e', 3, 'float')).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.5, 0.25] }],
      model: 'team/e',
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });
    expect(embeddingsBody([v], 'team/e', 3, 'base64')).toMatchObject({
      data: [{ object: 'embedding', index: 0, embedding: float32Base64(v) }],
    });
  });
});
