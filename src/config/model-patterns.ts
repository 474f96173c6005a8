/**
 * Role model patterns: `*` (everything), `<provider-or-namespace>/*` (everything under that
 * prefix), or an exact concrete model id / alias id.
 */
export function patternCovers(pattern: string, id: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('/*')) return id.startsWith(pattern.slice(0, -1));
  return pattern === id;
}

export function roleAllows(patterns: readonly string[], id: string): boolean {
  for (const p of patterns) if (patternCovers(p, id)) return true;
  return false;
}
