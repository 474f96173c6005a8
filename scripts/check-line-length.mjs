#!/usr/bin/env node
// Lines at most 120 columns in the code we write (biome wraps code, but not long strings,
// comments or regex literals). Fails (exit 1) listing each longer line.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 120;
const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'src', 'test', 'bench', 'scripts', 'bin'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => /\.(ts|mjs|js)$/.test(f) && !f.startsWith('test/fixtures/'));
const long = [];
for (const f of files) {
  let text;
  try {
    text = readFileSync(f, 'utf8');
  } catch {
    continue; // listed but deleted in the work tree
  }
  text.split('\n').forEach((line, i) => {
    if ([...line].length > MAX) long.push(`${f}:${i + 1} (${[...line].length})`);
  });
}
if (long.length > 0) {
  console.error(`Lines longer than ${MAX} columns (${long.length}):\n  ${long.join('\n  ')}`);
  process.exit(1);
}
console.log(`Every line is at most ${MAX} columns (${files.length} files).`);
