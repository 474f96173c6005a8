/**
 * The texts of a caller's request body (parsed JSON, either wire format) that input guardrails
 * read, and rebuilding the body with some of them replaced. The body, not the canonical view, is
 * read because it is what reaches the upstream: content parts, message `name`s, tool definitions,
 * `response_format` schemas, server-tool and MCP settings and fields the gateway does not know
 * are all seen, and a redacted body keeps everything else as sent (`cache_control` included).
 *
 * Read: every string, except under the keys in NOT_READ, which hold structure (ids, roles, types,
 * the model), what the model does not read as text (URLs of images and servers, image data URLs,
 * base64 data, encrypted results), signed reasoning (a changed thinking block would be refused), or a
 * credential the caller means to forward (an MCP server's `authorization_token`). JSON payloads —
 * tool-call arguments (a JSON string or an object) and schemas — are read as one JSON text each
 * (keys, strings and numbers), so a redaction keeps them valid JSON.
 *
 * Order (what webhooks see as `parts`): `system`, `instructions`, `messages`, `input`, then the
 * other top-level fields in the body's order. Mappers copy only what changed: with no change, the
 * very same body comes back.
 */

import type { TextMapper } from './content-texts.js';
import type { Json } from '../core/json.js';

const NOT_READ = new Set([
  'model',
  'role',
  'type',
  'id',
  'tool_call_id',
  'tool_use_id',
  'call_id',
  'previous_response_id',
  'cache_control',
  'media_type',
  'url',
  'image_url',
  'data',
  'file_data',
  'file_id',
  'encrypted_content',
  'encrypted_index',
  'signature',
  'thinking',
  'authorization_token',
]);

/** Values that are JSON documents of their own (a string holding JSON, or an object). */
const JSON_PAYLOADS = new Set(['arguments', 'parameters', 'input_schema', 'schema']);

/**
 * `input` is a JSON document only as an object (an Anthropic tool_use's input); in a Responses
 * body it is the conversation (a string or a list of items), and a custom tool call's `input` is
 * free text: both are read as what they hold.
 */
const isPayload = (key: string, v: unknown): boolean =>
  JSON_PAYLOADS.has(key) || (key === 'input' && typeof v === 'object' && v !== null && !Array.isArray(v));

const FIRST = ['system', 'instructions', 'messages', 'input'];

export function mapBodyTexts(body: Json, fn: TextMapper): Json {
  let out: Json | undefined;
  const visit = (key: string): void => {
    const v = body[key];
    const w = mapMember(key, v, fn);
    if (w !== v) (out ??= { ...body })[key] = w;
  };
  for (const k of FIRST) if (Object.hasOwn(body, k)) visit(k);
  for (const k of Object.keys(body)) if (!FIRST.includes(k)) visit(k);
  return out ?? body;
}

function mapMember(key: string, v: unknown, fn: TextMapper): unknown {
  if (NOT_READ.has(key)) return v;
  if (isPayload(key, v)) return mapPayload(v, fn);
  return mapValue(v, fn);
}

function mapValue(v: unknown, fn: TextMapper): unknown {
  if (typeof v === 'string') return v.length === 0 ? v : fn(v, 'text');
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    v.forEach((x, i) => {
      const y = mapValue(x, fn);
      if (y !== x) (out ??= [...v])[i] = y;
    });
    return out ?? v;
  }
  if (typeof v === 'object' && v !== null) {
    const o = v as Json;
    let out: Json | undefined;
    for (const k of Object.keys(o)) {
      const y = mapMember(k, o[k], fn);
      if (y !== o[k]) (out ??= { ...o })[k] = y;
    }
    return out ?? o;
  }
  return v;
}

/**
 * A JSON string is read as it is (OpenAI `arguments`); an object or array as its JSON text, parsed
 * back when it changed. Replacement text that is not JSON (only a webhook can produce it) is kept
 * as a string, which the decoder then refuses where an object is required.
 */
function mapPayload(v: unknown, fn: TextMapper): unknown {
  if (typeof v === 'string') return v.length === 0 ? v : fn(v, 'json');
  if (typeof v !== 'object' || v === null) return v;
  const text = JSON.stringify(v);
  const next = fn(text, 'json');
  if (next === text) return v;
  try {
    return JSON.parse(next) as unknown;
  } catch {
    return next;
  }
}
