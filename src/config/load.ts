/**
 * Config loading pipeline: YAML → JSON Schema → ${VAR} interpolation → cross-reference checks
 * → normalised, frozen GatewayConfig. Every problem found is returned at once as a ConfigIssue
 * with the line:col of the offending YAML node; `config` is present only when no issue is an
 * error (warnings alone still yield a config).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { takeAwsEnvCredentials } from './aws-env.js';
import { interpolateConfig } from './interpolate.js';
import { ajvErrorsToIssues, createLocator } from './issues.js';
import { normalise } from './normalise.js';
import { schemaValidator } from './schema.js';
import { obj } from './raw-data.js';
import { semanticChecks } from './semantic.js';
import type { ConfigIssue, LoadResult } from './types.js';
import { yamlSyntaxIssue } from './yaml-errors.js';

export { resolveConfigPath } from './find-config-file.js';
export { formatIssue } from './issues.js';

/**
 * Reads and loads a config file. A missing file is reported as one "file not found" issue (so
 * the CLI prints it like any other config problem); any other read failure (permissions, a
 * directory, I/O) is thrown, and the CLI maps it to exit 1.
 */
export async function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      return { issues: [{ severity: 'error', file, line: 1, col: 1, path: '', message: 'file not found' }] };
    }
    throw e;
  }
  return loadConfigText(text, file, env, resolve(file));
}

/** Pure: loads config text as if read from `file` (used for messages and `config.source`). */
export function loadConfigText(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  absolutePath?: string,
): LoadResult {
  const lineCounter = new LineCounter();
  // prettyErrors off: we format positions ourselves, without yaml's code-frame suffix.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const issues: ConfigIssue[] = [];
  const yamlIssue = (severity: ConfigIssue['severity'], offset: number, message: string) =>
    issues.push({ severity, file, ...lineCounter.linePos(offset), path: '', message });
  // One error, at the line that is wrong (yaml-errors.ts): the parser's later ones are echoes.
  const syntax = yamlSyntaxIssue(text, doc.errors);
  if (syntax) yamlIssue('error', syntax.offset, syntax.message);
  for (const w of doc.warnings) yamlIssue('warning', w.pos[0], `YAML: ${w.message}`);
  // Syntax errors leave the document partial; checking its shape would only add noise.
  if (doc.errors.length > 0) return { issues: sortIssues(issues) };

  const raw: unknown = doc.toJS();
  const locate = createLocator(doc, lineCounter);
  const validate = schemaValidator();
  if (!validate(raw)) issues.push(...ajvErrorsToIssues(validate.errors ?? [], raw, file, locate));

  // Interpolation and cross-checks run even after schema errors (they are written defensively),
  // so one run shows every problem. A non-map root has nothing more to check.
  const interpolated = interpolateConfig(raw, env, file, locate);
  issues.push(...interpolated.issues);
  issues.push(...takeAwsEnvCredentials(interpolated.data, env, interpolated.unavailable, file, locate));
  const data = obj(interpolated.data);
  if (data) issues.push(...semanticChecks(data, file, locate, interpolated.missingPaths));

  const sorted = sortIssues(issues);
  if (!data || sorted.some((i) => i.severity === 'error')) return { issues: sorted };
  return { config: normalise(data, file, interpolated.unavailable, absolutePath), issues: sorted };
}

/**
 * File order, so the report reads top to bottom (stable for issues on the same node), without
 * exact duplicates (e.g. a bad base_url fails both the schema pattern and the URL check).
 */
function sortIssues(issues: ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues
    .filter((i) => {
      const k = `${i.line}:${i.col}:${i.path}:${i.message}`;
      return !seen.has(k) && seen.add(k);
    })
    .map((i, n) => [i, n] as const)
    .sort(([a, an], [b, bn]) => a.line - b.line || a.col - b.col || an - bn)
    .map(([i]) => i);
}
