import { walkAlias } from '../config/alias-walk.js';
import type { AliasConfig, GatewayConfig, ModelSpec, ProviderConfig } from '../config/types.js';

/** One concrete model the request may be sent to, in the order to try. */
export interface Candidate {
  model: ModelSpec;
  provider: ProviderConfig;
  /** Set when reached through an alias: the alias id, and whether as a fallback. */
  alias?: string;
  fallback: boolean;
}

export type Resolution =
  | { kind: 'model'; id: string; candidates: Candidate[] }
  | { kind: 'alias'; id: string; alias: AliasConfig; candidates: Candidate[] };

/**
 * A concrete id `<provider>/<model>` or an alias `<namespace>/<alias>` → the ordered candidate
 * list: an alias's targets in the order its strategy gives, then its fallbacks in config order,
 * expanded recursively (a fallback alias's targets in its own strategy's order; each concrete
 * model at most once). Undefined when unknown. `random` is injectable for tests.
 */
export function resolveModel(
  config: GatewayConfig,
  name: string,
  random: () => number = Math.random,
): Resolution | undefined {
  const model = config.models.get(name);
  if (model) {
    return {
      kind: 'model',
      id: name,
      candidates: [{ model, provider: config.providers.get(model.provider)!, fallback: false }],
    };
  }
  const alias = config.aliases.get(name);
  if (!alias) return undefined;
  const out: Candidate[] = [];
  const lookup = {
    isModel: (id: string) => config.models.has(id),
    alias: (id: string) => {
      const a = config.aliases.get(id);
      if (!a) return undefined;
      const targets = a.strategy === 'ordered' ? a.targets : weightedOrder(a.targets, random);
      return { targets: targets.map((t) => t.model), fallbacks: a.fallbacks };
    },
  };
  walkAlias(name, lookup, (id, via, fallback) => {
    const model = config.models.get(id)!;
    out.push({ model, provider: config.providers.get(model.provider)!, alias: via, fallback });
  });
  return { kind: 'alias', id: name, alias, candidates: out };
}

/**
 * A random order in which each target comes first with probability weight / total, and so on
 * for the rest (weighted sampling without replacement, Efraimidis–Spirakis: sort by
 * u^(1/weight) descending). Skipping unhealthy targets in this order is a weighted choice
 * among the healthy ones.
 */
export function weightedOrder<T extends { weight: number }>(
  items: readonly T[],
  random: () => number = Math.random,
): T[] {
  if (items.length < 2) return [...items];
  return items
    .map((item) => ({ item, key: random() ** (1 / item.weight) }))
    .sort((a, b) => b.key - a.key)
    .map((x) => x.item);
}
