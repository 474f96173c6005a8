import { describe, expect, it } from 'vitest';
import { loadConfigText } from '../../../src/config/load.js';

describe('loadConfigText: anthropic_betas on the third-party Claude kinds', () => {
  const load = (provider: string) => loadConfigText(`providers:\n  p: ${provider}\n`, 'f.yaml', {});
  const issues = (r: ReturnType<typeof load>) => r.issues.map((i) => [i.severity, i.path, i.message]);
  const MODELS = 'models: { m: { context_window: 1 } }';
  const VERTEX = 'vertex: { project: p, location: us-east5 }';

  it('vertex-anthropic and bedrock-anthropic take anthropic_betas.allow, kept as anthropicBetas', () => {
    const vx = load(`{ api: vertex-anthropic, ${VERTEX}, anthropic_betas: { allow: [a-2026-01-01] }, ${MODELS} }`);
    expect(vx.issues).toEqual([]);
    expect(vx.config!.providers.get('p')!.anthropicBetas).toEqual(['a-2026-01-01']);
    const aws = load(
      `{ api: bedrock-anthropic, region: us-east-1, api_key: k, anthropic_betas: { allow: [] }, ${MODELS} }`,
    );
    expect(aws.issues).toEqual([]);
    expect(aws.config!.providers.get('p')!.anthropicBetas).toEqual([]);
    expect(load(`{ api: vertex-anthropic, ${VERTEX}, ${MODELS} }`).config!.providers.get('p')!.anthropicBetas).toBe(
      undefined,
    );
  });

  it('refuses it on other kinds, without allow, and a value that is no beta name', () => {
    expect(issues(load(`{ api: anthropic, anthropic_betas: { allow: [a] }, ${MODELS} }`))).toEqual([
      ['error', 'providers.p', 'property "anthropic_betas" is not allowed for api "anthropic"'],
    ]);
    expect(issues(load(`{ api: vertex-anthropic, ${VERTEX}, anthropic_betas: {}, ${MODELS} }`))).toEqual([
      ['error', 'providers.p.anthropic_betas', 'missing required property "allow"'],
    ]);
    expect(
      issues(load(`{ api: vertex-anthropic, ${VERTEX}, anthropic_betas: { allow: ["a,b"] }, ${MODELS} }`)),
    ).toEqual([['error', 'providers.p.anthropic_betas.allow[0]', 'must match ^[A-Za-z0-9._-]{1,100}$']]);
  });
});
