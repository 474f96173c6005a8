/**
 * JSON Schema (what tools declare) → the OpenAPI 3.0 subset Gemini's `Schema` takes. What it
 * cannot carry is converted when the meaning survives (a `["string","null"]` type → `nullable`,
 * a string `const` → a one-value `enum`, `oneOf` → `anyOf`, local `$ref`s inlined; an object's
 * empty `properties`, which Gemini refuses, are left out as saying nothing) and otherwise left out,
 * its keyword named in `dropped` (the model sees a looser schema, never a wrong one).
 * @see https://ai.google.dev/api/caching#Schema
 */

import { invalid } from '../field-types.js';
import { isObject, type Json } from '../../core/json.js';

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
/** Keywords copied as they are. */
const KEPT = new Set([
  'title',
  'description',
  'nullable',
  'maxItems',
  'minItems',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'default',
  'minimum',
  'maximum',
  'propertyOrdering',
]);
/** Keywords that only name or document the schema: left out without a word. */
const SILENT = new Set(['$schema', '$id', '$comment', '$defs', 'definitions', 'examples']);
/** The `format`s Gemini takes, by type; any other is left out (Gemini refuses it). */
const FORMATS: Record<string, readonly string[]> = {
  string: ['enum', 'date-time'],
  integer: ['int32', 'int64'],
  number: ['float', 'double'],
};
/** Nesting the converter follows (refs inlined included) before it refuses the schema. */
const MAX_DEPTH = 32;

/** `at`: the field to name in a refusal (`tools[2].parameters`). */
export function toGeminiSchema(schema: Json, at: string, dropped: string[]): Json {
  const defs = {
    ...(isObject(schema.definitions) ? schema.definitions : {}),
    ...(isObject(schema.$defs) ? schema.$defs : {}),
  };
  const note = (keyword: string) => {
    const name = `${at.replace(/\[\d+\]/g, '')}.${keyword}`;
    if (!dropped.includes(name)) dropped.push(name);
  };
  const convert = (s: unknown, depth: number): Json => {
    if (depth > MAX_DEPTH) throw invalid(at, `${at} nests deeper than ${MAX_DEPTH} levels (or refers to itself).`);
    if (!isObject(s)) return {};
    if (typeof s.$ref === 'string') {
      const m = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(s.$ref);
      const target = m ? defs[m[1]] : undefined;
      if (!isObject(target)) throw invalid(at, `${at} refers to "${s.$ref}", which Gemini cannot be sent.`);
      return convert(target, depth + 1);
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === 'type')
        Object.assign(
          out,
          convertType(v, () => note('type')),
        );
      else if (k === 'const' && typeof v === 'string') out.enum = [v];
      else if (k === 'enum' && Array.isArray(v) && v.every((e) => typeof e === 'string')) out.enum = v;
      else if (k === 'format' && typeof v === 'string' && FORMATS[String(s.type)]?.includes(v)) out.format = v;
      else if (k === 'properties' && isObject(v)) {
        const entries = Object.entries(v);
        if (entries.length > 0)
          out.properties = Object.fromEntries(entries.map(([n, p]) => [n, convert(p, depth + 1)]));
      } else if (k === 'required' && Array.isArray(v)) out.required = v;
      else if (k === 'items' && isObject(v)) out.items = convert(v, depth + 1);
      else if ((k === 'anyOf' || k === 'oneOf') && Array.isArray(v)) out.anyOf = v.map((x) => convert(x, depth + 1));
      else if (KEPT.has(k)) out[k] = v;
      else if (!SILENT.has(k) && k !== '$ref') note(k);
    }
    // Gemini's enums are strings, and say so.
    if (out.enum !== undefined && out.type === undefined) out.type = 'STRING';
    return out;
  };
  return convert(schema, 0);
}

/** Gemini's `type` is one value; JSON Schema's may be a list, of which only "null" can be spelled otherwise. */
function convertType(v: unknown, lost: () => void): Json {
  const list = Array.isArray(v) ? v : [v];
  const types = list.filter((t): t is string => typeof t === 'string' && TYPES.has(t));
  const out: Json = {};
  if (list.includes('null')) out.nullable = true;
  if (types.length === 1) out.type = types[0].toUpperCase();
  else if (types.length > 1 || types.length + (list.includes('null') ? 1 : 0) < list.length) lost();
  return out;
}
