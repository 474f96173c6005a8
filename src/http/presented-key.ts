/** The gateway key from `Authorization: Bearer <key>` or `x-api-key: <key>` (Anthropic clients). */
export function presentedKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    // The usual spelling first, without a regex; the scheme in any case and other spacing below.
    if (auth.startsWith('Bearer ')) {
      const key = auth.slice(7).trim();
      if (key.length > 0) return key;
    }
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (m) return m[1].trim();
  }
  const x = headers['x-api-key'];
  return typeof x === 'string' && x.length > 0 ? x.trim() : undefined;
}
