/** A parsed JSON object, and the one check that a value is one (not null, not an array). */
export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
