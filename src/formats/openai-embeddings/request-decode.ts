/**
 * OpenAI embeddings request → the gateway's view of it (core/embeddings.ts), validating what the
 * gateway relies on and naming the field at fault. Fields the gateway does not know are not
 * judged: they go up with the caller's bytes for the provider to judge.
 * @see https://platform.openai.com/docs/api-reference/embeddings/create
 */

import type { EmbeddingInput, EmbeddingsRequest } from '../../core/embeddings.js';
import { invalid, isObject, optNumber, optString } from '../field-types.js';

/** Inputs one request may carry (OpenAI's limit). */
export const MAX_EMBEDDING_INPUTS = 2048;

export function decodeEmbeddingsRequest(body: unknown): EmbeddingsRequest {
  if (!isObject(body)) throw invalid('', 'The request body must be a JSON object.');
  const model = body.model;
  if (typeof model !== 'string' || model.length === 0)
    throw invalid('model', "'model' is required and must be a string.");
  const inputs = decodeInputs(body.input);
  const format = body.encoding_format;
  if (format !== undefined && format !== null && format !== 'float' && format !== 'base64')
    throw invalid('encoding_format', "'encoding_format' must be 'float' or 'base64'.");
  const dimensions = optNumber(body, 'dimensions', 1, Infinity, true);
  optString(body, 'user');
  return {
    model,
    inputs,
    encodingFormat: format === 'base64' ? 'base64' : 'float',
    ...(dimensions !== undefined ? { dimensions } : {}),
  };
}

/**
 * A string, an array of strings, an array of token ids (one input) or an array of token arrays.
 * Texts must not be empty; token ids are exact integers ≥ 0.
 */
function decodeInputs(input: unknown): EmbeddingInput[] {
  const shape =
    "'input' is required and must be a non-empty string, an array of strings, of token ids or of token arrays.";
  if (typeof input === 'string') {
    if (input.length === 0) throw invalid('input', "'input' must not be an empty string.");
    return [input];
  }
  if (!Array.isArray(input) || input.length === 0) throw invalid('input', shape);
  if (typeof input[0] === 'number') {
    input.forEach((t, i) => {
      if (!isTokenId(t)) throw invalid(`input[${i}]`, `'input[${i}]' must be a token id (an integer of at least 0).`);
    });
    return [input as number[]];
  }
  if (input.length > MAX_EMBEDDING_INPUTS) {
    throw invalid('input', `'input' holds ${input.length} inputs; at most ${MAX_EMBEDDING_INPUTS} are allowed.`);
  }
  const texts = typeof input[0] === 'string';
  input.forEach((x, i) => {
    if (texts) {
      if (typeof x !== 'string' || x.length === 0)
        throw invalid(`input[${i}]`, `'input[${i}]' must be a non-empty string, like every input.`);
    } else if (!Array.isArray(x) || x.length === 0 || !x.every(isTokenId)) {
      throw invalid(`input[${i}]`, `'input[${i}]' must be a non-empty array of token ids (integers of at least 0).`);
    }
  });
  return input as EmbeddingInput[];
}

function isTokenId(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}
