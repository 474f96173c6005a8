#!/usr/bin/env node
// The dependency rule (README, "Architecture"): every folder of src/ sits in one layer, and a file
// may import only from its own folder or from folders in lower layers; and no two files import each
// other in a cycle. Fails (exit 1) listing each import that points up or sideways and each cycle.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Lowest first. Folders in one layer do not import each other. */
export const LAYERS = [
  ['core'],
  ['sse', 'config', 'http'],
  ['observe', 'tokens'],
  ['state', 'formats', 'providers', 'upstream', 'routing'],
  ['request', 'budget', 'guardrails', 'conversation'],
  ['attempt'],
  ['pipeline'],
  ['server'],
  ['cli'],
  ['.'],
];

const root = resolve(dirname(new URL(import.meta.url).pathname), '..', 'src');
const layerOf = new Map(LAYERS.flatMap((folders, i) => folders.map((f) => [f, i])));

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.name.endsWith('.ts')) yield p;
  }
}

/** The top folder of src/ a path is in ('.' for files directly in src/). */
function folderOf(path) {
  const rel = relative(root, path);
  return rel.includes('/') ? rel.split('/')[0] : '.';
}

const problems = [];
const importRe = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;
for (const file of files(root)) {
  const from = folderOf(file);
  if (!layerOf.has(from)) {
    problems.push(
      `${relative(root, file)}: folder "${from}" is in no layer (add it to LAYERS in scripts/check-layers.mjs)`,
    );
    continue;
  }
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(importRe)) {
    const spec = m[1] ?? m[2];
    const to = folderOf(resolve(dirname(file), spec));
    if (to === from) continue;
    if (!layerOf.has(to) || layerOf.get(to) >= layerOf.get(from)) {
      problems.push(`${relative(root, file)} imports ${spec}: "${from}" may not depend on "${to}"`);
    }
  }
}
// No cycle between files either (value imports; `import type` is erased): within a folder, too,
// the modules form a one-way graph, so any of them can be loaded and tested on its own.
const valueImportRe = /(?:^|\n)\s*(?:import|export)\s(type\s)?[^;]*?from\s+'(\.[^']+)'/g;
const graph = new Map();
for (const file of files(root)) {
  const deps = [];
  for (const m of readFileSync(file, 'utf8').matchAll(valueImportRe)) {
    if (!m[1]) deps.push(resolve(dirname(file), m[2]).replace(/\.js$/, '.ts'));
  }
  graph.set(file, deps);
}
const state = new Map();
const stack = [];
const visit = (file) => {
  state.set(file, 'open');
  stack.push(file);
  for (const dep of graph.get(file) ?? []) {
    if (state.get(dep) === 'open') {
      const cycle = [...stack.slice(stack.indexOf(dep)), dep].map((f) => relative(root, f));
      problems.push(`import cycle: ${cycle.join(' → ')}`);
    } else if (!state.has(dep)) visit(dep);
  }
  stack.pop();
  state.set(file, 'done');
};
for (const file of graph.keys()) if (!state.has(file)) visit(file);

if (problems.length > 0) {
  console.error(`Dependency rule broken (${problems.length}):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`Dependency rule holds: ${LAYERS.length} layers, every import points down, no import cycles.`);
