/**
 * OpenAI embeddings responses: the usage read from an upstream's body (`usage.prompt_tokens`; an
 * embedding has no output), and the body written for vectors made in-process (the mock).
 * @see https://platform.openai.com/docs/api-reference/embeddings/object
 */

import type { Usage } from '../../core/canonical.js';
import type { EmbeddingEncoding } from '../../core/embeddings.js';

export function usageFromEmbeddingsBody(body: unknown): Usage | undefined {
  const usage = (body as { usage?: { prompt_tokens?: unknown } } | null)?.usage;
  const prompt = usage?.prompt_tokens;
  if (typeof prompt !== 'number' || !Number.isFinite(prompt) || prompt < 0) return undefined;
  return { inputTokens: prompt, outputTokens: 0 };
}

/** The response body for `vectors` (one per input, in order). */
export function embeddingsBody(
  vectors: readonly Float32Array[],
  model: string,
  promptTokens: number,
  encoding: EmbeddingEncoding,
): object {
  return {
    object: 'list',
    data: vectors.map((v, index) => ({
      object: 'embedding',
      index,
      embedding: encoding === 'base64' ? float32Base64(v) : Array.from(v),
    })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

/** The vector's float32 values, little-endian, in base64: what OpenAI sends for `encoding_format: base64`. */
export function float32Base64(v: Float32Array): string {
  const bytes = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => {
    bytes.writeFloatLE(x, i * 4);
  });
  return bytes.toString('base64');
}
