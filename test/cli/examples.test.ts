/** The configs under examples/ and the bundled example stay valid as the schema evolves. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, ROOT } from './capture.js';

const files = [
  'gateway.example.yaml',
  ...readdirSync(join(ROOT, 'examples'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => `examples/${f}`),
];

describe('bundled configs', () => {
  test.each(files)('%s passes check-config', async (file) => {
    const r = await cli(['check-config', file, '--json']);
    expect(r.code, r.all()).toBe(0);
  });
});
