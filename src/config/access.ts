import { hash } from 'node:crypto';
import { roleAllows } from './model-patterns.js';
import type { GatewayConfig, KeyConfig } from './types.js';

/**
 * Per key list (one per loaded config): entry by base64 sha256 digest, the first entry winning;
 * and the keys that matched lately, as presented, so a caller's next request skips the hash (it
 * was ~4 µs of every request under load, more than the map lookup by ~20×).
 */
interface KeyIndex {
  byDigest: Map<string, KeyConfig>;
  recent: Map<string, KeyConfig>;
}
const indexes = new WeakMap<readonly KeyConfig[], KeyIndex>();
/** Matched keys remembered per key list; past it the list starts again (a flood of distinct keys cannot grow it). */
export const RECENT_KEYS = 1024;

/**
 * Looks the key up by its sha256 digest: one hash and one map lookup, however many keys there
 * are. The lookup compares digests, never the key itself, and a caller cannot steer a digest
 * towards a configured one without a preimage, so its timing says nothing usable about any key.
 * A key that matched before is found as itself first. Only keys that matched are remembered, so
 * an unknown key always goes on to the digest lookup.
 */
export function findKey(keys: readonly KeyConfig[], presented: string): KeyConfig | undefined {
  let index = indexes.get(keys);
  if (!index) {
    index = { byDigest: new Map(), recent: new Map() };
    for (const k of keys) {
      const d = k.sha256.toString('base64');
      if (!index.byDigest.has(d)) index.byDigest.set(d, k);
    }
    indexes.set(keys, index);
  }
  const known = index.recent.get(presented);
  if (known) return known;
  const found = index.byDigest.get(hash('sha256', presented, 'base64'));
  if (found) {
    if (index.recent.size >= RECENT_KEYS) index.recent.clear();
    index.recent.set(presented, found);
  }
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
