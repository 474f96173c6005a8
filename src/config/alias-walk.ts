/**
 * The one alias expansion, shared by routing (the candidates a request tries) and the config
 * checks (the models a role can reach through an alias): an alias's targets in the order given,
 * then its fallbacks, recursively through aliases among them. Each concrete model is reported
 * once; a cycle is cut (check-config rejects cycles, but the walk stays safe without that).
 */

export interface AliasMembers {
  /** Targets in the order to try them (the alias's strategy already applied). */
  targets: readonly string[];
  fallbacks: readonly string[];
}

export interface AliasLookup {
  isModel(id: string): boolean;
  alias(id: string): AliasMembers | undefined;
}

/**
 * Calls `visit` for each concrete model `start` reaches: `via` is the alias that lists it,
 * `fallback` whether it is reached as a fallback (a fallback alias's targets included).
 */
export function walkAlias(
  start: string,
  lookup: AliasLookup,
  visit: (modelId: string, via: string, fallback: boolean) => void,
): void {
  const seen = new Set<string>();
  const visiting = new Set<string>();
  const walk = (id: string, fallback: boolean): void => {
    const members = lookup.alias(id);
    if (!members || visiting.has(id)) return;
    visiting.add(id);
    const add = (member: string, isFallback: boolean) => {
      if (lookup.isModel(member)) {
        if (seen.has(member)) return;
        seen.add(member);
        visit(member, id, isFallback);
      } else walk(member, true);
    };
    for (const t of members.targets) add(t, fallback);
    for (const f of members.fallbacks) add(f, true);
    visiting.delete(id);
  };
  walk(start, false);
}
