/**
 * The built-in offline provider's embeddings: deterministic vectors of unit length (the same
 * input always gives the same vector, different inputs practically never the same), made from
 * SHA-256 of the input; usage about four characters per token, as the mock's chat answers count.
 */

import { createHash } from 'node:crypto';
import type { ModelSpec } from '../config/types.js';
import type { EmbeddingInput, EmbeddingsRequest } from '../core/embeddings.js';
import { GatewayError } from '../core/errors.js';

/** The vector size when neither the request nor the model names one. */
export const DEFAULT_MOCK_DIMENSIONS = 8;
/** Values one answer may hold (inputs × dimensions): about 20 MB of JSON, so no request makes a huge one. */
export const MAX_MOCK_VALUES = 1 << 20;

/** Four bytes of hash per value: eight values per SHA-256 block. */
const VALUES_PER_BLOCK = 8;

/** A unit-length vector of `dimensions` values, a pure function of the input. */
export function mockEmbedding(input: EmbeddingInput, dimensions: number): Float32Array {
  // Texts and token lists never share a seed ("1" and [1] are different inputs).
  const seed = createHash('sha256')
    .update(typeof input === 'string' ? `text:${input}` : `tokens:${input.join(',')}`)
    .digest();
  const values = new Float64Array(dimensions);
  let sumOfSquares = 0;
  for (let block = 0; block * VALUES_PER_BLOCK < dimensions; block++) {
    const bytes = createHash('sha256').update(seed).update(String(block)).digest();
    for (let j = 0; j < VALUES_PER_BLOCK && block * VALUES_PER_BLOCK + j < dimensions; j++) {
      const v = (bytes.readUInt32LE(j * 4) / 0xffffffff) * 2 - 1;
      values[block * VALUES_PER_BLOCK + j] = v;
      sumOfSquares += v * v;
    }
  }
  const scale = sumOfSquares > 0 ? 1 / Math.sqrt(sumOfSquares) : 1;
  return Float32Array.from(values, (v) => v * scale);
}

/** ~4 characters per token for a text (at least 1); a token list counts its tokens. */
export function mockPromptTokens(inputs: readonly EmbeddingInput[]): number {
  let tokens = 0;
  for (const input of inputs)
    tokens += typeof input === 'string' ? Math.max(1, Math.ceil(input.length / 4)) : input.length;
  return tokens;
}

/**
 * One vector per input, of the size the request asks for, else the model's `dimensions`, else
 * DEFAULT_MOCK_DIMENSIONS.
 */
export function mockEmbeddings(
  req: EmbeddingsRequest,
  model: ModelSpec,
): { vectors: Float32Array[]; promptTokens: number } {
  const dimensions = req.dimensions ?? model.dimensions ?? DEFAULT_MOCK_DIMENSIONS;
  if (dimensions * req.inputs.length > MAX_MOCK_VALUES) {
    throw new GatewayError(
      'invalid_request',
      `The mock provider makes at most ${MAX_MOCK_VALUES} values per request (inputs × dimensions).`,
      { param: 'dimensions' },
    );
  }
  return {
    vectors: req.inputs.map((input) => mockEmbedding(input, dimensions)),
    promptTokens: mockPromptTokens(req.inputs),
  };
}
