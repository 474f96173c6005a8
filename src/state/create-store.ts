import type { StateConfig } from '../config/types.js';
import { MemoryStore } from './memory-store.js';
import { RedisStore } from './redis-store.js';
import type { StateStore } from './store.js';

/**
 * The store `state:` describes (embedded by default). A Redis store connects in the background
 * and reconnects on its own; until it answers, requests get the `on_unavailable` policy.
 */
export function createStore(state: StateConfig): StateStore {
  if (state.store === 'redis') return new RedisStore({ url: state.url!, keyPrefix: state.keyPrefix });
  return new MemoryStore({ path: state.path, flushMs: state.flushMs });
}
