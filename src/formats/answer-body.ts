/**
 * Reading a provider's complete JSON answer: parsed whole (JSON.parse is the cheapest check that
 * it is JSON at all), and, when it is relayed as its own bytes, its `model` renamed in place.
 */

import { GatewayError } from '../core/errors.js';
import { renameModelInBytes } from './response-model.js';

/** The whole answer, parsed; an answer that is not JSON names the provider. */
export function parseAnswer(raw: Buffer, providerId: string): unknown {
  return parseText(raw.toString('utf8'), providerId);
}

export interface RelayedAnswer {
  /** The answer's bytes, its `model` (when a string) renamed to what the caller asked for. */
  body: Buffer;
  /** The answer, parsed. */
  parsed: unknown;
}

export function relayAnswer(raw: Buffer, modelName: string, providerId: string): RelayedAnswer {
  const text = raw.toString('utf8');
  const parsed = parseText(text, providerId);
  const named = typeof (parsed as { model?: unknown } | null)?.model === 'string';
  return { body: named ? renameModelInBytes(raw, text, modelName) : raw, parsed };
}

function parseText(text: string, providerId: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError('upstream_error', `Provider "${providerId}" sent a response that is not JSON.`);
  }
}
