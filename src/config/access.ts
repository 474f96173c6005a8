import { createHash, timingSafeEqual } from 'node:crypto';
import { roleAllows } from './model-patterns.js';
import type { GatewayConfig, KeyConfig } from './types.js';

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
 * Whether a role may use a model id or alias, by the name the caller used (an alias is allowed
 * by its own id, not by its targets'). An unknown role may use nothing.
 */
export function roleMayUse(config: GatewayConfig, roleName: string, id: string): boolean {
  const role = config.roles.get(roleName);
  return role !== undefined && roleAllows(role.models, id);
}
