/** Patterns of credentials that must never be echoed from an upstream message or logged. */
const SECRET_PATTERNS: RegExp[] = [
  /\bsk-[A-Za-z0-9_\-*]{6,}/g, // OpenAI / Anthropic style keys, also masked forms like sk-abc***xyz
  /\bBearer\s+[A-Za-z0-9._~+/=\-]{8,}/gi,
  /\bAKIA[0-9A-Z]{16}\b/g,
];

/** Replace known secret values and anything shaped like a credential with `[REDACTED]`. */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[REDACTED]');
  for (const re of SECRET_PATTERNS) out = out.replace(re, '[REDACTED]');
  return out;
}
