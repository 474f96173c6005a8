import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfigPath } from '../../../src/config/load.js';

describe('resolveConfigPath', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-find-'));

  it('prefers the flag, then GATEWAY_CONFIG', () => {
    expect(resolveConfigPath('custom.yaml', { GATEWAY_CONFIG: 'env.yaml' }, dir)).toBe(join(dir, 'custom.yaml'));
    expect(resolveConfigPath(undefined, { GATEWAY_CONFIG: '/etc/gw.yaml' }, dir)).toBe('/etc/gw.yaml');
  });

  it('falls back to gateway.example.yaml until gateway.yaml exists', () => {
    expect(resolveConfigPath(undefined, {}, dir)).toBe(join(dir, 'gateway.example.yaml'));
    writeFileSync(join(dir, 'gateway.yaml'), 'providers: {}\n');
    expect(resolveConfigPath(undefined, {}, dir)).toBe(join(dir, 'gateway.yaml'));
  });
});
