/**
 * Reading a provider's complete JSON answer: parsed whole (JSON.parse is the cheapest check that
 * it is JSON at all) unless it is in the format's everyday shape, which a pattern of JSON's own
 * grammar reads (each format's plain-answer.ts); when it is relayed as its own bytes, its `model`
 * renamed in place.
 */

import { GatewayError } from '../core/errors.js';
import type { ChatResponse, Usage } from '../core/canonical.js';
import { renameModelInBytes } from './response-model.js';
import type { PassThrough, UpstreamFormat, WireFormat } from './types.js';

export interface RelayedAnswer {
  /** The answer's bytes, its `model` (when a string) renamed to what the caller asked for. */
  body: Buffer;
  /** The answer, parsed. */
  parsed: unknown;
}

export function relayAnswer(raw: Buffer, modelName: string, providerId: string): RelayedAnswer {
  const text = raw.toString('utf8');
  const parsed = parseText(text, providerId);
  return { body: relayedBytes(raw, text, parsed, modelName), parsed };
}

/**
 * Answers up to this long may take a format's fast path. The pattern keeps a backtracking entry per
 * escape in a string, and V8's regexp stack overflows (a RangeError) at a few million: longer
 * answers, rare, are parsed whole.
 */
const PLAIN_ANSWER_MAX_CHARS = 1 << 16;

/**
 * A relayed answer read only for its usage (no guard reads its text): one in the format's everyday
 * shape is checked by the format's pattern and only its usage parsed (formats/PassThrough
 * `plainAnswerUsage`); any other is parsed whole, as relayAnswer does.
 */
export function relayAnswerUsage(
  raw: Buffer,
  modelName: string,
  providerId: string,
  pass: PassThrough,
): { body: Buffer; usage: Usage | undefined } {
  const text = raw.toString('utf8');
  const usage = text.length <= PLAIN_ANSWER_MAX_CHARS ? pass.plainAnswerUsage?.(text) : undefined;
  if (usage !== undefined) {
    return {
      body: renameModelInBytes(raw, text, modelName),
      usage: pass.plainUsage?.(usage) ?? pass.usageFromBody({ usage: JSON.parse(usage) }),
    };
  }
  const parsed = parseText(text, providerId);
  return { body: relayedBytes(raw, text, parsed, modelName), usage: pass.usageFromBody(parsed) };
}

/**
 * The whole answer decoded to canonical form (a translated answer): one in the format's everyday
 * shape from its pattern's captures (UpstreamFormat `decodePlainResponse`), any other parsed and
 * decoded; an answer that is not JSON names the provider.
 */
export function decodeAnswer(raw: Buffer, providerId: string, format: UpstreamFormat): ChatResponse {
  const text = raw.toString('utf8');
  return plainResponse(text, format) ?? format.decodeResponse(parseText(text, providerId));
}

/**
 * A relayed answer an output guard reads, decoded as decodeAnswer decodes it, its bytes kept (the
 * model renamed) for when no rule changes the answer.
 */
export function relayAnswerDecoded(
  raw: Buffer,
  modelName: string,
  providerId: string,
  format: WireFormat,
): { body: Buffer; response: ChatResponse } {
  const text = raw.toString('utf8');
  const plain = plainResponse(text, format);
  if (plain !== undefined) return { body: renameModelInBytes(raw, text, modelName), response: plain };
  const parsed = parseText(text, providerId);
  return { body: relayedBytes(raw, text, parsed, modelName), response: format.decodeResponse(parsed) };
}

function plainResponse(text: string, format: UpstreamFormat): ChatResponse | undefined {
  return text.length <= PLAIN_ANSWER_MAX_CHARS ? format.decodePlainResponse?.(text) : undefined;
}

function relayedBytes(raw: Buffer, text: string, parsed: unknown, modelName: string): Buffer {
  const named = typeof (parsed as { model?: unknown } | null)?.model === 'string';
  return named ? renameModelInBytes(raw, text, modelName) : raw;
}

function parseText(text: string, providerId: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError('upstream_error', `Provider "${providerId}" sent a response that is not JSON.`);
  }
}
