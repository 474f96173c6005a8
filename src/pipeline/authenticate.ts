import { findKey } from '../config/access.js';
import { GatewayError } from '../core/errors.js';
import { presentedKey } from '../http/presented-key.js';
import { leaveBodyUnread, REFUSED_DISCARD } from '../http/unread-body.js';
import type { Stage } from './compose.js';

/**
 * From the headers alone, before the body is read: a caller without a valid key gets its 401
 * without the gateway buffering a byte of what it sends (the rest is dropped, bounded).
 */
export const authenticate: Stage = (ctx, next) => {
  const key = presentedKey(ctx.req.headers);
  const entry = key ? findKey(ctx.config.keys, key) : undefined;
  if (!entry) {
    leaveBodyUnread(ctx.req, REFUSED_DISCARD);
    if (!key)
      throw new GatewayError('missing_api_key', 'No API key was provided. Send it as "Authorization: Bearer <key>".');
    throw new GatewayError('invalid_api_key', 'The API key is not valid for this gateway.');
  }
  ctx.principal = { keyId: entry.id, role: entry.role };
  return next(); // nothing to do on the way out: no async frame of its own
};
