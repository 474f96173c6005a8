import { createHash, timingSafeEqual } from 'node:crypto';
import type { KeyConfig } from '../config/types.js';
import { GatewayError } from '../core/errors.js';
import { leaveBodyUnread, REFUSED_DISCARD } from '../server/unread-body.js';
import type { Stage } from './compose.js';

/** The gateway key from `Authorization: Bearer <key>` or `x-api-key: <key>` (Anthropic clients). */
export function presentedKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (m) return m[1].trim();
  }
  const x = headers['x-api-key'];
  return typeof x === 'string' && x.length > 0 ? x.trim() : undefined;
}

/**
 * Compares the key's sha256 digest with every configured digest, in constant time and without
 * stopping at the first match, so timing reveals neither the key nor which entry matched.
 */
export function findKey(keys: readonly KeyConfig[], presented: string): KeyConfig | undefined {
  const digest = createHash('sha256').update(presented, 'utf8').digest();
  let found: KeyConfig | undefined;
  for (const k of keys) if (timingSafeEqual(k.sha256, digest) && !found) found = k;
  return found;
}

/**
 * From the headers alone, before the body is read: a caller without a valid key gets its 401
 * without the gateway buffering a byte of what it sends (the rest is dropped, bounded).
 */
export const authenticate: Stage = async (ctx, next) => {
  const key = presentedKey(ctx.req.headers);
  const entry = key ? findKey(ctx.config.keys, key) : undefined;
  if (!entry) {
    leaveBodyUnread(ctx.req, REFUSED_DISCARD);
    if (!key)
      throw new GatewayError('missing_api_key', 'No API key was provided. Send it as "Authorization: Bearer <key>".');
    throw new GatewayError('invalid_api_key', 'The API key is not valid for this gateway.');
  }
  ctx.principal = { keyId: entry.id, role: entry.role };
  await next();
};
