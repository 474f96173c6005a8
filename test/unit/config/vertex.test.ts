import { describe, expect, it } from 'vitest';
import { loadConfigText } from '../../../src/config/load.js';

describe('loadConfigText: vertex providers', () => {
  const load = (provider: string) => loadConfigText(`providers:\n  vx: ${provider}\n`, 'f.yaml', {});
  const issues = (r: ReturnType<typeof load>) => r.issues.map((i) => [i.severity, i.path, i.message]);
  const MODELS = 'models: { m: { context_window: 1 } }';

  it("a region's endpoint, the project and location in the base URL; credentials_file kept", () => {
    const r = load(
      `{ api: vertex, vertex: { project: p-1, location: us-east5, credentials_file: /k.json }, ${MODELS} }`,
    );
    expect(r.issues).toEqual([]);
    const p = r.config!.providers.get('vx')!;
    expect(p.baseUrl).toBe('https://us-east5-aiplatform.googleapis.com/v1/projects/p-1/locations/us-east5');
    expect(p.vertex).toEqual({ project: 'p-1', location: 'us-east5', credentialsFile: '/k.json' });
    expect(p.apiKey).toBeUndefined();
    expect(p.available).toBe(true);
  });

  it('the global location has no regional prefix; base_url replaces the origin only', () => {
    const global = load(`{ api: vertex, vertex: { project: p, location: global }, ${MODELS} }`);
    expect(global.config!.providers.get('vx')!.baseUrl).toBe(
      'https://aiplatform.googleapis.com/v1/projects/p/locations/global',
    );
    expect(global.config!.providers.get('vx')!.vertex).toEqual({ project: 'p', location: 'global' });
    const local = load(
      `{ api: vertex, base_url: "http://127.0.0.1:9/", vertex: { project: p, location: l }, ${MODELS} }`,
    );
    expect(local.config!.providers.get('vx')!.baseUrl).toBe('http://127.0.0.1:9/v1/projects/p/locations/l');
  });

  it('vertex-anthropic takes the same settings', () => {
    const r = load(`{ api: vertex-anthropic, vertex: { project: p, location: us-east5 }, ${MODELS} }`);
    expect(r.issues).toEqual([]);
    const p = r.config!.providers.get('vx')!;
    expect(p.baseUrl).toBe('https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5');
    expect(p.vertex).toEqual({ project: 'p', location: 'us-east5' });
    expect(
      issues(load(`{ api: vertex-anthropic, byok: required, vertex: { project: p, location: l }, ${MODELS} }`)),
    ).toEqual([['error', 'providers.vx.byok', 'must be never on Vertex AI: it signs in with a service account']]);
  });

  it('requires the vertex block, refuses api_key and a location that is no host-name label', () => {
    expect(issues(load(`{ api: vertex, ${MODELS} }`))).toEqual([
      ['error', 'providers.vx', 'missing required property "vertex" (required for api "vertex")'],
    ]);
    expect(issues(load(`{ api: vertex, api_key: k, vertex: { project: p, location: l }, ${MODELS} }`))).toEqual([
      ['error', 'providers.vx', 'property "api_key" is not allowed for api "vertex"'],
    ]);
    expect(issues(load(`{ api: vertex, vertex: { project: p, location: "a.evil/x" }, ${MODELS} }`))).toEqual([
      ['error', 'providers.vx.vertex.location', 'must be a Vertex AI location (us-central1, global…)'],
    ]);
  });

  it('refuses byok: a service account signs in, not a caller key', () => {
    expect(issues(load(`{ api: vertex, byok: optional, vertex: { project: p, location: l }, ${MODELS} }`))).toEqual([
      ['error', 'providers.vx.byok', 'must be never on Vertex AI: it signs in with a service account'],
    ]);
  });

  it('refuses vertex settings on other kinds', () => {
    expect(issues(load(`{ api: gemini, api_key: k, vertex: { project: p, location: l }, ${MODELS} }`))).toEqual([
      ['error', 'providers.vx', 'property "vertex" is not allowed for api "gemini"'],
    ]);
  });
});
