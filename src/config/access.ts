import { hash } from 'node:crypto';
import { roleAllows } from './model-patterns.js';
import type { GatewayConfig, KeyConfig } from './types.js';

/** Per key list (one per loaded config): entry by base64 sha256 digest, the first entry winning. */
const byDigest = new WeakMap<readonly KeyConfig[], Map<string, KeyConfig>>();

/**
 * Looks the key up by its sha256 digest: one hash and one map lookup, however many keys there
 * are. The lookup compares digests, never the key itself, and a caller cannot steer a digest
 * towards a configured one without a preimage, so its timing says nothing usable about any key.
 */
export function findKey(keys: readonly KeyConfig[], presented: string): KeyConfig | undefined {
  let index = byDigest.get(keys);
  if (!index) {
    index = new Map();
    for (const k of keys) {
      const d = k.sha256.toString('base64');
      if (!index.has(d)) index.set(d, k);
    }
    byDigest.set(keys, index);
  }
  return index.get(hash('sha256', presented, 'base64'));
}

/**
 * Whether a role may use a model id or alias, by the name the caller used (an alias is allowed
 * by its own id, not by its targets'). An unknown role may use nothing.
 */
export function roleMayUse(config: GatewayConfig, roleName: string, id: string): boolean {
  const role = config.roles.get(roleName);
  return role !== undefined && roleAllows(role.models, id);
}
