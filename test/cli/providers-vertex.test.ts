/** `gateway providers --json` on the Vertex kinds, against the fake Vertex AI (its token endpoint included). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.js';
import { type FakeVertex, startFakeVertex } from '../helpers/fake-vertex.js';
import { cli } from './capture.js';

const GEMINI_KEY = 'AIza-providers-vertex-000';
let gemini: FakeUpstream;
let claude: FakeUpstream;
let vertex: FakeVertex;
let file: string;

beforeAll(async () => {
  gemini = await startFakeUpstream({ geminiKey: GEMINI_KEY });
  claude = await startFakeUpstream();
  vertex = await startFakeVertex({
    project: 'proj-1',
    location: 'us-east5',
    gemini: gemini.url,
    geminiKey: GEMINI_KEY,
    anthropic: claude.url,
  });
  file = join(mkdtempSync(join(tmpdir(), 'gw-providers-vertex-')), 'gateway.yaml');
  const settings = (project: string) =>
    `{ project: ${project}, location: us-east5, credentials_file: "${vertex.keyFile}" }`;
  writeFileSync(
    file,
    [
      'providers:',
      `  gem: { api: vertex, base_url: "${vertex.url}", vertex: ${settings('proj-1')},`,
      '         models: { gemini-2.5-flash: { context_window: 1048576 } } }',
      `  cla: { api: vertex-anthropic, base_url: "${vertex.url}", vertex: ${settings('proj-1')},`,
      '         models: { sonnet: { context_window: 200000, upstream_name: "claude-sonnet-4-5@20250929" } } }',
      `  elsewhere: { api: vertex, base_url: "${vertex.url}", vertex: ${settings('proj-2')},`,
      '         models: { gemini-2.5-flash: { context_window: 1048576 } } }',
      'roles:',
      '  all: { models: ["*"] }',
      'keys:',
      '  - { id: k, key: "test-key-123456", role: all }',
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await vertex?.close();
  await gemini?.close();
  await claude?.close();
});

describe('gateway providers: vertex, vertex-anthropic', () => {
  test('--probe --json: a token per provider, the model list, one call per model; another project fails', async () => {
    const r = await cli(['providers', '-c', file, '--probe', '--json']);
    expect(r.code, r.all()).toBe(1);
    const doc = JSON.parse(r.out.join('\n')) as {
      healthy: boolean;
      providers: Array<{ provider: string; kind: string; status: string; credentials: string; httpStatus?: number }>;
    };
    const rows = doc.providers.map((p) => [p.provider, p.kind, p.status, p.credentials, p.httpStatus]);
    expect(rows).toEqual([
      ['gem', 'vertex', 'ok', 'configured', 200],
      ['cla', 'vertex-anthropic', 'ok', 'configured', 200],
      ['elsewhere', 'vertex', 'failed', 'configured', 403],
    ]);
    expect(vertex.tokenFetches).toBe(3);
    const calls = vertex.received.map((c) => `${c.method} ${c.path.replace('/locations/us-east5', '')} ${c.status}`);
    expect(calls.sort()).toEqual([
      'GET /v1/projects/proj-1/models?pageSize=1 200',
      'GET /v1/projects/proj-1/models?pageSize=1 200',
      'GET /v1/projects/proj-2/models?pageSize=1 403',
      'POST /v1/projects/proj-1/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict 200',
      'POST /v1/projects/proj-1/publishers/google/models/gemini-2.5-flash:generateContent 200',
    ]);
    expect(r.all()).not.toContain('ya29.');
  });
});
