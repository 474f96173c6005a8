/**
 * Type checks for the documented fields of a request body, shared by both wire formats: a field
 * the gateway knows is checked for type and shape (also when the body passes through unchanged),
 * naming it in a 400; an absent or null field is "not sent". Values inside a valid type (a new
 * enum string, say) are not judged here: the provider does that.
 */

import { GatewayError } from '../core/errors.js';
import { isObject, type Json } from '../core/json.js';

export { isObject };

export function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

function absent(v: unknown): v is undefined | null {
  return v === undefined || v === null;
}

/** A finite number within [min, max] (an integer when asked), or undefined when not sent. */
export function optNumber(
  body: Json,
  field: string,
  min: number,
  max: number,
  integer = false,
  at = field,
): number | undefined {
  const v = body[field];
  if (absent(v)) return undefined;
  // Integers stay exact (|v| < 2^53): 1e308 is an "integer" to JavaScript, not to a provider.
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isSafeInteger(v))) {
    const what = integer ? 'an integer' : 'a number';
    const range = max === Infinity ? (min === -Infinity ? '' : ` of at least ${min}`) : ` between ${min} and ${max}`;
    throw invalid(at, `'${at}' must be ${what}${range}.`);
  }
  return v;
}

export function optString(body: Json, field: string, at = field): string | undefined {
  const v = body[field];
  if (absent(v)) return undefined;
  if (typeof v !== 'string') throw invalid(at, `'${at}' must be a string.`);
  return v;
}

export function optBoolean(body: Json, field: string, at = field): boolean | undefined {
  const v = body[field];
  if (absent(v)) return undefined;
  if (typeof v !== 'boolean') throw invalid(at, `'${at}' must be a boolean.`);
  return v;
}

export function optObject(body: Json, field: string, at = field): Json | undefined {
  const v = body[field];
  if (absent(v)) return undefined;
  if (!isObject(v)) throw invalid(at, `'${at}' must be an object.`);
  return v;
}

export function optArray(body: Json, field: string, at = field): unknown[] | undefined {
  const v = body[field];
  if (absent(v)) return undefined;
  if (!Array.isArray(v)) throw invalid(at, `'${at}' must be an array.`);
  return v;
}

/** An object whose every value passes `check` (e.g. metadata: strings, logit_bias: numbers). */
export function optRecordOf(
  body: Json,
  field: string,
  what: string,
  check: (v: unknown) => boolean,
  at = field,
): Json | undefined {
  const o = optObject(body, field, at);
  if (o === undefined) return undefined;
  for (const [k, v] of Object.entries(o)) {
    if (!check(v)) throw invalid(`${at}.${k}`, `'${at}.${k}' must be ${what}.`);
  }
  return o;
}

/** An array whose every element passes `check`. */
export function optArrayOf(
  body: Json,
  field: string,
  what: string,
  check: (v: unknown) => boolean,
  at = field,
): unknown[] | undefined {
  const a = optArray(body, field, at);
  if (a === undefined) return undefined;
  a.forEach((v, i) => {
    if (!check(v)) throw invalid(`${at}[${i}]`, `'${at}[${i}]' must be ${what}.`);
  });
  return a;
}

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * A canonical tool call's arguments (JSON text, as the OpenAI formats carry them) as the object the
 * formats that want one take (Anthropic `input`, Gemini `args`, Bedrock `input`); a 400 naming the
 * call when they are not a JSON object.
 */
export function toolArgumentsObject(call: { name: string; id: string; arguments: string }, at: string): Json {
  if (call.arguments.trim() === '') return {};
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    args = undefined;
  }
  if (!isObject(args))
    throw invalid(at, `Tool call "${call.name}" (${call.id}) in ${at} has arguments that are not a JSON object.`);
  return args;
}
