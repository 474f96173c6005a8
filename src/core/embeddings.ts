/**
 * An embeddings request as the gateway reads it (POST /v1/embeddings, OpenAI format). Policies
 * read this view; an OpenAI-format upstream gets the caller's own bytes (`model` spliced).
 */

/** One input: a text, or the token ids of one text. */
export type EmbeddingInput = string | readonly number[];

export type EmbeddingEncoding = 'float' | 'base64';

export interface EmbeddingsRequest {
  /** The model id or alias the caller named. */
  model: string;
  /** The inputs in order (a single string or token list is one input). */
  inputs: readonly EmbeddingInput[];
  /** How vectors come back: JSON numbers, or base64 of little-endian float32 (OpenAI's default is float). */
  encodingFormat: EmbeddingEncoding;
  /** The vector size asked for, when sent. */
  dimensions?: number;
}

/** The token ids the request sends (as token lists): each is one input token. */
export function tokenIdCount(req: EmbeddingsRequest): number {
  let n = 0;
  for (const input of req.inputs) if (typeof input !== 'string') n += input.length;
  return n;
}
