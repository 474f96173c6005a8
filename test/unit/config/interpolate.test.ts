import { describe, expect, it } from 'vitest';
import { interpolateString } from '../../../src/config/interpolate.js';
import { loadConfigText } from '../../../src/config/load.js';

describe('interpolateString', () => {
  const env = { A: 'alpha', EMPTY: '' };
  it.each([
    ['plain', 'plain'],
    ['${A}', 'alpha'],
    ['x-${A}-y', 'x-alpha-y'],
    ['${UNSET:-fallback}', 'fallback'],
    ['${EMPTY:-fallback}', 'fallback'],
    ['${A:-fallback}', 'alpha'],
    ['${EMPTY}', ''],
    ['${UNSET:-}', ''],
    ['$${A}', '${A}'],
    ['cost $5 and $${x', 'cost $5 and ${x'],
    ['${UNSET:-a:b-c}', 'a:b-c'],
  ])('%s → %s', (input, expected) => {
    const r = interpolateString(input, env);
    expect(r.value).toBe(expected);
    expect(r.missing).toEqual([]);
    expect(r.malformed).toEqual([]);
  });

  it('collects unset variables without default', () => {
    expect(interpolateString('${X}/${A}/${Y}', env)).toMatchObject({ value: '/alpha/', missing: ['X', 'Y'] });
  });

  it('flags malformed references', () => {
    expect(interpolateString('${1BAD}', env).malformed).toHaveLength(1);
    expect(interpolateString('abc ${A', env).malformed).toEqual(['unterminated "${" (write "$${" for a literal "${")']);
  });
});

const PROVIDERS = `providers:
  openai:
    api: openai
    base_url: "\${OPENAI_BASE:-https://api.openai.com/v1}"
    api_key: "\${OPENAI_API_KEY}"
    headers: { X-Team: "team-\${TEAM}" }
    models:
      gpt: { context_window: 1000 }
  local:
    api: mock
    models:
      echo: { context_window: 1000 }
roles:
  dev: { models: ["*"] }
keys:
  - { id: laptop, key: "\${GATEWAY_KEY}", role: dev }
`;

describe('interpolation in loadConfigText', () => {
  it('substitutes set variables and defaults', () => {
    const { config, issues } = loadConfigText(PROVIDERS, 'f.yaml', {
      OPENAI_API_KEY: 'sk-abc',
      TEAM: 'core',
      GATEWAY_KEY: 'gw-key-12345',
    });
    expect(issues).toEqual([]);
    const openai = config!.providers.get('openai')!;
    expect(openai).toMatchObject({ baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-abc', available: true });
    expect(openai.headers).toEqual({ 'X-Team': 'team-core' });
  });

  it('an unset provider api_key is a warning and makes the provider unavailable', () => {
    const { config, issues } = loadConfigText(PROVIDERS, 'f.yaml', { TEAM: 'core', GATEWAY_KEY: 'gw-key-12345' });
    expect(issues).toEqual([
      {
        severity: 'warning',
        file: 'f.yaml',
        line: 5,
        col: 14,
        path: 'providers.openai.api_key',
        message: 'environment variable OPENAI_API_KEY is not set; provider "openai" is unavailable',
      },
    ]);
    const openai = config!.providers.get('openai')!;
    expect(openai.available).toBe(false);
    expect(openai.unavailableReason).toBe('environment variable OPENAI_API_KEY is not set');
    expect(openai.apiKey).toBeUndefined();
    expect(config!.providers.get('local')!.available).toBe(true);
  });

  it('an unset gateway key or header variable is an error', () => {
    const { config, issues } = loadConfigText(PROVIDERS, 'f.yaml', { OPENAI_API_KEY: 'sk-abc' });
    expect(config).toBeUndefined();
    expect(issues.map((i) => [i.severity, i.line, i.col, i.path, i.message])).toEqual([
      ['error', 6, 24, 'providers.openai.headers.X-Team', 'environment variable TEAM is not set'],
      ['error', 16, 24, 'keys[0].key', 'environment variable GATEWAY_KEY is not set (needed for this gateway key)'],
    ]);
  });

  it('validates interpolated values after substitution', () => {
    const { issues } = loadConfigText(PROVIDERS, 'f.yaml', {
      OPENAI_BASE: 'not a url',
      OPENAI_API_KEY: 'sk-abc',
      TEAM: 'core',
      GATEWAY_KEY: 'short',
    });
    expect(issues.map((i) => [i.line, i.col, i.message])).toEqual([
      [4, 15, 'must be an http:// or https:// URL'],
      [16, 24, 'key must be at least 8 characters long'],
    ]);
  });

  it('keeps $${ as a literal ${', () => {
    const text = PROVIDERS.replace('team-${TEAM}', () => 'literal-$${TEAM}');
    const { config } = loadConfigText(text, 'f.yaml', { OPENAI_API_KEY: 'sk-abc', GATEWAY_KEY: 'gw-key-12345' });
    expect(config!.providers.get('openai')!.headers).toEqual({ 'X-Team': 'literal-${TEAM}' });
  });
});

describe('secrets never appear in issues', () => {
  it('no issue message contains a resolved secret', () => {
    const secrets = {
      OPENAI_API_KEY: 'sk-SUPERSECRET-openai',
      TEAM: 'SUPERSECRET-header',
      GATEWAY_KEY: 'SUPERSECRET-gw', // used twice below: a duplicate-key error
      OPENAI_BASE: 'ftp://SUPERSECRET-host',
    };
    const text = `${PROVIDERS}  - { id: other, key: "\${GATEWAY_KEY}", role: dev }
  - { id: tiny, key: "\${TINY}", role: dev }
  - { id: plain, key: "SUPERSECRET-plain", role: nobody }
`;
    const { issues } = loadConfigText(text, 'f.yaml', { ...secrets, TINY: 'pw-7' });
    const json = JSON.stringify(issues);
    // The checks that look at secret values did run...
    expect(json).toContain('same key value as keys[0] (\\"laptop\\")');
    expect(json).toContain('key must be at least 8 characters long');
    expect(json).toContain('must be an http:// or https:// URL');
    expect(json).toContain('unknown role \\"nobody\\"');
    // ...and none of them printed one.
    expect(json).not.toContain('SUPERSECRET');
    expect(json).not.toContain('pw-7');
  });
});
