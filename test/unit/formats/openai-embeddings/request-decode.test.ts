import { describe, expect, it } from 'vitest';
import { decodeEmbeddingsRequest } from '../../../../src/formats/openai-embeddings/request-decode.js';

describe('decodeEmbeddingsRequest', () => {
  it('reads each input shape as a list of inputs', () => {
    const inputs = (input: unknown) => decodeEmbeddingsRequest({ model: 'm/e', input }).inputs;
    expect(inputs('one text')).toEqual(['one text']);
    expect(inputs(['a', 'b'])).toEqual(['a', 'b']);
    expect(inputs([0, 5, 9])).toEqual([[0, 5, 9]]);
    expect(inputs([[1], [2, 3]])).toEqual([[1], [2, 3]]);
  });

  it('takes encoding_format (float by default), dimensions and user', () => {
    expect(decodeEmbeddingsRequest({ model: 'm/e', input: 'x' })).toEqual({
      model: 'm/e',
      inputs: ['x'],
      encodingFormat: 'float',
    });
    expect(
      decodeEmbeddingsRequest({ model: 'm/e', input: 'x', encoding_format: 'base64', dimensions: 256, user: 'u' }),
    ).toEqual({ model: 'm/e', inputs: ['x'], encodingFormat: 'base64', dimensions: 256 });
    expect(decodeEmbeddingsRequest({ model: 'm/e', input: 'x', encoding_format: null }).encodingFormat).toBe('float');
  });

  it('leaves fields it does not know to the provider', () => {
    expect(decodeEmbeddingsRequest({ model: 'm/e', input: 'x', something_new: { a: 1 } }).inputs).toEqual(['x']);
  });

  const refused: Array<[unknown, string, string]> = [
    [[], '', 'The request body must be a JSON object.'],
    [{ input: 'x' }, 'model', "'model' is required and must be a string."],
    [{ model: '', input: 'x' }, 'model', "'model' is required and must be a string."],
    [{ model: 'm/e' }, 'input', 'is required'],
    [{ model: 'm/e', input: '' }, 'input', "'input' must not be an empty string."],
    [{ model: 'm/e', input: {} }, 'input', 'is required'],
    [{ model: 'm/e', input: [] }, 'input', 'is required'],
    [{ model: 'm/e', input: ['a', ''] }, 'input[1]', "'input[1]' must be a non-empty string"],
    [{ model: 'm/e', input: ['a', null] }, 'input[1]', "'input[1]' must be a non-empty string"],
    [{ model: 'm/e', input: [1, -1] }, 'input[1]', "'input[1]' must be a token id"],
    [{ model: 'm/e', input: [-1] }, 'input[0]', "'input[0]' must be a token id"],
    [{ model: 'm/e', input: [1, 2 ** 53] }, 'input[1]', "'input[1]' must be a token id"],
    [{ model: 'm/e', input: [[1], [1.5]] }, 'input[1]', "'input[1]' must be a non-empty array of token ids"],
    [{ model: 'm/e', input: [[1], 'a'] }, 'input[1]', "'input[1]' must be a non-empty array of token ids"],
    [{ model: 'm/e', input: [{}] }, 'input[0]', "'input[0]' must be a non-empty array of token ids"],
    [{ model: 'm/e', input: Array(2049).fill('a') }, 'input', "'input' holds 2049 inputs; at most 2048"],
    [{ model: 'm/e', input: Array(2049).fill([1]) }, 'input', "'input' holds 2049 inputs; at most 2048"],
    [{ model: 'm/e', input: 'x', encoding_format: 'int8' }, 'encoding_format', "must be 'float' or 'base64'"],
    [{ model: 'm/e', input: 'x', dimensions: 0 }, 'dimensions', "'dimensions' must be an integer of at least 1."],
    [{ model: 'm/e', input: 'x', dimensions: '8' }, 'dimensions', "'dimensions' must be an integer"],
    [{ model: 'm/e', input: 'x', user: 1 }, 'user', "'user' must be a string."],
  ];
  it.each(refused)('refuses %j naming %s', (body, param, message) => {
    expect(() => decodeEmbeddingsRequest(body)).toThrow(
      expect.objectContaining({ code: 'invalid_request', param, message: expect.stringContaining(message) }),
    );
  });

  it('takes 2048 inputs, and a token list of more than 2048 ids (one input)', () => {
    expect(decodeEmbeddingsRequest({ model: 'm/e', input: Array(2048).fill('a') }).inputs).toHaveLength(2048);
    expect(decodeEmbeddingsRequest({ model: 'm/e', input: Array(3000).fill(1) }).inputs).toHaveLength(1);
  });
});
