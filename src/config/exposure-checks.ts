/**
 * Checks about what the config exposes: /metrics without protection, and aliases that carry a
 * role to models it may not name. Like the rest of semantic.ts they run on unchecked data.
 */
import { roleAllows } from './model-patterns.js';
import type { Anchor, PathSeg } from './issues.js';
import { type Catalog, patternModels } from './catalog.js';
import { arr, entries, obj, str } from './raw-data.js';
import type { ConfigIssue } from './types.js';

type Report = (severity: ConfigIssue['severity'], segs: PathSeg[], message: string, at?: Anchor) => void;

/**
 * Metrics switched on with neither an admin key nor a port of their own would be served to anyone
 * who can reach the main port (labels name every model, provider and budget).
 */
export function checkMetricsExposure(report: Report, data: Record<string, unknown>): void {
  const metrics = obj(obj(data.observability)?.metrics);
  if (metrics?.enabled !== true) return;
  if (metrics.admin_key !== undefined || metrics.port !== undefined) return;
  report(
    'error',
    ['observability', 'metrics', 'enabled'],
    '/metrics would be public on the main port: ' +
      'set observability.metrics.admin_key (scrapers send it as a Bearer token) ' +
      'or observability.metrics.port (serve /metrics on its own port)',
  );
}

/**
 * An alias a role may use is routed to its targets and fallbacks whatever the role's patterns say
 * (that is how a team gets a model by its alias only). Documented, but worth a warning so it is a
 * choice: one per role pattern that admits such aliases.
 */
export function checkAliasReach(report: Report, data: Record<string, unknown>, c: Catalog): void {
  for (const [rid, r] of entries(data.roles)) {
    const patterns = arr(obj(r)?.models).map((p) => str(p) ?? '');
    patterns.forEach((pattern, i) => {
      const beyond: string[] = [];
      for (const aid of c.aliases.keys()) {
        if (!roleAllows([pattern], aid)) continue;
        const outside = [...patternModels(c, aid)].filter((m) => !roleAllows(patterns, m)).sort();
        if (outside.length > 0) beyond.push(`${aid} → ${outside.join(', ')}`);
      }
      if (beyond.length === 0) return;
      const list = beyond.slice(0, 5).join('; ') + (beyond.length > 5 ? `; and ${beyond.length - 5} more` : '');
      report(
        'warning',
        ['roles', rid, 'models', i],
        `aliases allowed here route to models role "${rid}" may not name directly: ${list}`,
      );
    });
  }
}
