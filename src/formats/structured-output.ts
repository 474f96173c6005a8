/**
 * Structured output across formats (OpenAI `response_format`, Anthropic `output_config.format`).
 * An Anthropic model without native structured output answers through a forced tool named
 * OUTPUT_TOOL_NAME whose input schema is the requested one; its call is turned back into the JSON
 * text the caller asked for (unwrapOutputTool*), so the caller never sees the tool.
 */

import { appendAll } from '../core/flat-map.js';
import type { ChatResponse, ContentPart, StreamEvent } from '../core/canonical.js';
import { type Json, isObject } from '../core/json.js';

/** The tool an Anthropic model is made to call when it has no native output format. */
export const OUTPUT_TOOL_NAME = 'json_output';

/** Visits every subschema (properties, items, combinators, definitions); stops when `visit` returns false. */
function everySubschema(schema: unknown, visit: (s: Json) => boolean, depth = 0): boolean {
  if (!isObject(schema) || depth > 64) return true;
  if (!visit(schema)) return false;
  const children: unknown[] = [];
  for (const key of ['properties', '$defs', 'definitions', 'patternProperties']) {
    if (isObject(schema[key])) appendAll(children, Object.values(schema[key] as Json));
  }
  for (const key of ['items', 'additionalProperties', 'not', 'contains'])
    if (isObject(schema[key])) children.push(schema[key]);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'])
    if (Array.isArray(schema[key])) appendAll(children, schema[key] as unknown[]);
  return children.every((c) => everySubschema(c, visit, depth + 1));
}

function isObjectSchema(s: Json): boolean {
  return s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object')) || isObject(s.properties);
}

/**
 * Every object in the schema is closed (`additionalProperties: false`): what Anthropic's native output
 * format requires.
 */
export function isClosedSchema(schema: unknown): boolean {
  return everySubschema(schema, (s) => !isObjectSchema(s) || s.additionalProperties === false);
}

/** Closed, and every object requires all its properties: what OpenAI's `strict: true` requires. */
export function isOpenaiStrictSchema(schema: unknown): boolean {
  return everySubschema(schema, (s) => {
    if (!isObjectSchema(s)) return true;
    if (s.additionalProperties !== false) return false;
    const props = isObject(s.properties) ? Object.keys(s.properties) : [];
    const required = Array.isArray(s.required) ? s.required : [];
    return props.every((p) => required.includes(p));
  });
}

/**
 * Canonical events of a reply that may call the output tool → the same reply with that call as
 * text (its arguments are the JSON object). A finish of `tool_calls` caused only by the output
 * tool becomes `stop`.
 */
export async function* unwrapOutputToolEvents(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent> {
  const output = new Set<number>();
  let otherTools = false;
  for await (const ev of events) {
    if (ev.type === 'block_start' && ev.block.kind === 'tool_call') {
      if (ev.block.name === OUTPUT_TOOL_NAME) {
        output.add(ev.index);
        yield { type: 'block_start', index: ev.index, block: { kind: 'text' } };
        continue;
      }
      otherTools = true;
    } else if (ev.type === 'block_delta' && output.has(ev.index) && ev.delta.kind === 'tool_arguments') {
      yield { type: 'block_delta', index: ev.index, delta: { kind: 'text', text: ev.delta.json } };
      continue;
    } else if (ev.type === 'message_stop' && ev.finish === 'tool_calls' && output.size > 0 && !otherTools) {
      yield { ...ev, finish: 'stop' };
      continue;
    }
    yield ev;
  }
}

/** The same for a whole response. */
export function unwrapOutputToolResponse(res: ChatResponse): ChatResponse {
  let unwrapped = false;
  let otherTools = false;
  const content = res.content.map((p): ContentPart => {
    if (p.type !== 'tool_call') return p;
    if (p.name !== OUTPUT_TOOL_NAME) {
      otherTools = true;
      return p;
    }
    unwrapped = true;
    return { type: 'text', text: p.arguments };
  });
  if (!unwrapped) return res;
  return { ...res, content, finish: res.finish === 'tool_calls' && !otherTools ? 'stop' : res.finish };
}
