/**
 * The ids a config file declares (providers, models, aliases, namespaces) and what a role or
 * guardrail pattern reaches through them: for the cross-reference checks.
 */
import { walkAlias } from './alias-walk.js';
import { arr, type Obj, obj, entries, splitId, str } from './raw-data.js';

/** Ids known to the config, for reference checks and pattern matching. */
export interface Catalog {
  providers: Set<string>;
  /** Concrete model id → whether it has a price. */
  models: Map<string, boolean>;
  /** Concrete ids of the models with `kind: embedding`. */
  embeddingModels: Set<string>;
  aliases: Map<string, Obj>;
  namespaces: Set<string>;
}

export function buildCatalog(data: Obj): Catalog {
  const c: Catalog = {
    providers: new Set(),
    models: new Map(),
    embeddingModels: new Set(),
    aliases: new Map(),
    namespaces: new Set(),
  };
  for (const [pid, p] of entries(data.providers)) {
    c.providers.add(pid);
    for (const [name, m] of entries(obj(p)?.models)) {
      c.models.set(`${pid}/${name}`, obj(obj(m)?.price) !== undefined);
      if (obj(m)?.kind === 'embedding') c.embeddingModels.add(`${pid}/${name}`);
    }
  }
  for (const [aid, a] of entries(data.aliases)) {
    c.aliases.set(aid, obj(a) ?? {});
    c.namespaces.add(splitId(aid)[0]);
  }
  return c;
}

export const aliasTargets = (a: Obj): string[] => arr(a.targets).flatMap((t) => str(t) ?? str(obj(t)?.model) ?? []);

/** Concrete models an alias can end up at: its targets and, recursively, its fallbacks. */
function expandAlias(c: Catalog, id: string, out: Set<string>): void {
  const lookup = {
    isModel: (m: string) => c.models.has(m),
    alias: (a: string) => {
      const o = c.aliases.get(a);
      return o && { targets: aliasTargets(o), fallbacks: arr(o.fallbacks).flatMap((f) => str(f) ?? []) };
    },
  };
  walkAlias(id, lookup, (m) => out.add(m));
}

/** Concrete models reachable through one role/guardrail pattern. */
export function patternModels(c: Catalog, pattern: string): Set<string> {
  const out = new Set<string>();
  if (pattern === '*') return new Set(c.models.keys());
  if (pattern.endsWith('/*')) {
    const prefix = pattern.slice(0, -2);
    for (const id of c.models.keys()) if (splitId(id)[0] === prefix) out.add(id);
    for (const id of c.aliases.keys()) if (splitId(id)[0] === prefix) expandAlias(c, id, out);
  } else if (c.models.has(pattern)) out.add(pattern);
  else expandAlias(c, pattern, out);
  return out;
}

/** Whether a pattern names at least one model or alias (an alias with broken targets still counts). */
export function patternNamesSomething(c: Catalog, pattern: string): boolean {
  if (pattern === '*') return c.models.size + c.aliases.size > 0;
  if (pattern.endsWith('/*')) {
    const prefix = pattern.slice(0, -2);
    return c.namespaces.has(prefix) || [...c.models.keys()].some((id) => splitId(id)[0] === prefix);
  }
  return c.models.has(pattern) || c.aliases.has(pattern);
}
