import type { GatewayConfig, ModelKind } from '../config/types.js';
import { resolveModel } from './resolve-model.js';
import { roleAllows } from '../config/model-patterns.js';

export interface ModelListEntry {
  id: string;
  kind: 'model' | 'alias';
  /** What the model serves (its config `kind`); an alias's is its targets' (one kind per alias). */
  modelKind: ModelKind;
  /** Owning provider for a model; the alias namespace for an alias. */
  owner: string;
  contextWindow: number;
  maxOutputTokens?: number;
  available: boolean;
  /** Alias targets (concrete ids) and fallbacks: only those the role may name itself. */
  targets?: string[];
  fallbacks?: string[];
}

/**
 * The models and aliases a role may use (every one when role is undefined), models first,
 * each group sorted by id. An alias's context window is the smallest among its targets.
 * Only names the role may send appear: an alias may route to models outside the role's patterns
 * (check-config warns), and those stay unnamed here.
 */
export function listModels(config: GatewayConfig, role?: string): ModelListEntry[] {
  const patterns = role === undefined ? ['*'] : (config.roles.get(role)?.models ?? []);
  const out: ModelListEntry[] = [];
  for (const m of config.models.values()) {
    if (!roleAllows(patterns, m.id)) continue;
    out.push({
      id: m.id,
      kind: 'model',
      modelKind: m.kind,
      owner: m.provider,
      contextWindow: m.contextWindow,
      maxOutputTokens: m.maxOutputTokens,
      available: config.providers.get(m.provider)?.available ?? false,
    });
  }
  const aliases: ModelListEntry[] = [];
  for (const a of config.aliases.values()) {
    if (!roleAllows(patterns, a.id)) continue;
    const targets = a.targets.map((t) => config.models.get(t.model)).filter((m) => m !== undefined);
    aliases.push({
      id: a.id,
      kind: 'alias',
      modelKind: targets.some((m) => m.kind === 'embedding') ? 'embedding' : 'chat',
      owner: a.namespace,
      contextWindow: Math.min(...targets.map((m) => m.contextWindow)),
      maxOutputTokens: minDefined(targets.map((m) => m.maxOutputTokens)),
      // Available when any candidate, fallbacks included, can serve it.
      available: resolveModel(config, a.id)?.candidates.some((c) => c.provider.available) ?? false,
      targets: a.targets.map((t) => t.model).filter((id) => roleAllows(patterns, id)),
      fallbacks: a.fallbacks.filter((id) => roleAllows(patterns, id)),
    });
  }
  const byId = (x: ModelListEntry, y: ModelListEntry) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
  return [...out.sort(byId), ...aliases.sort(byId)];
}

function minDefined(values: Array<number | undefined>): number | undefined {
  const defined = values.filter((v): v is number => v !== undefined);
  return defined.length > 0 ? Math.min(...defined) : undefined;
}
