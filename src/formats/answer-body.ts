/**
 * Reading a provider's complete JSON answer. Translated (or guarded) answers are parsed whole.
 * A relayed answer goes back as its own bytes, and most of it is content the gateway never reads:
 * its top-level members are found by the strict scan (structure, nesting and duplicate keys
 * checked, nothing built), `model` is renamed in place and `usage` is the only member parsed.
 * Parsing the whole answer and encoding the renamed text again cost more than the rest of a relay.
 */

import { GatewayError } from '../core/errors.js';
import { spliceTopLevel, topLevelSpans } from '../core/json-splice.js';
import { scanJson } from '../core/parse-json-strict.js';

const QUOTE = 0x22;

/** The whole answer, parsed; an answer that is not JSON names the provider. */
export function parseAnswer(raw: Buffer, providerId: string): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw notJson(providerId);
  }
}

export interface RelayedAnswer {
  /** The answer's bytes, its top-level `model` (when a string) renamed to what the caller asked for. */
  body: Buffer;
  /** Its top-level `usage` member, parsed (undefined when it has none). */
  usage: unknown;
}

export function relayAnswer(raw: Buffer, modelName: string, providerId: string): RelayedAnswer {
  let members: ReturnType<typeof scanJson>;
  try {
    members = scanJson(raw);
  } catch {
    throw notJson(providerId);
  }
  // Not an object (no model, no usage): relayed as it is, as JSON.parse would have let it through.
  if (!members) return { body: checkedScalar(raw, providerId), usage: undefined };
  const spans = topLevelSpans(raw, members);
  const usageSpan = spans.get('usage');
  const usage = usageSpan ? parseAnswer(raw.subarray(usageSpan[0], usageSpan[1]), providerId) : undefined;
  const modelSpan = spans.get('model');
  const body =
    modelSpan && raw[modelSpan[0]] === QUOTE
      ? spliceTopLevel(raw, { model: JSON.stringify(modelName) }, {}, members)
      : raw;
  return { body, usage };
}

/** A top-level array or scalar: JSON.parse has the last word on it (the scan does not read scalars). */
function checkedScalar(raw: Buffer, providerId: string): Buffer {
  parseAnswer(raw, providerId);
  return raw;
}

function notJson(providerId: string): GatewayError {
  return new GatewayError('upstream_error', `Provider "${providerId}" sent a response that is not JSON.`);
}
