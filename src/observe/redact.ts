/**
 * Removing credentials from text that leaves the gateway (error messages, in-stream errors, log
 * details): known secret values are replaced wherever they appear, and anything shaped like a
 * credential is replaced too (keys the gateway was never told about, echoed by a provider).
 */

/**
 * Shorter values are not replaced by value: a 4-character "secret" would mangle ordinary words
 * in every message. Such keys are still caught when they have a credential's shape.
 */
export const MIN_SECRET_LENGTH = 8;

const SECRET_PATTERNS: RegExp[] = [
  /\bsk-[A-Za-z0-9_\-*]{6,}/g, // OpenAI / Anthropic style keys, also masked forms like sk-abc***xyz
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bAIza[0-9A-Za-z_-]{30,}/g, // Google API keys
];

export const REDACTED = '[REDACTED]';

/** Replace known secret values and anything shaped like a credential with `[REDACTED]`. */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= MIN_SECRET_LENGTH && out.includes(s)) out = out.split(s).join(REDACTED);
  for (const re of SECRET_PATTERNS) out = out.replace(re, REDACTED);
  return out;
}

/**
 * At most `max` characters of text. A cut never keeps the start of a word it splits: a secret
 * cut in half would no longer match its value, and its first half must not leak either.
 */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max).replace(/\S+$/, '')}…`;
}
