/** `gateway providers` on `api: gemini` providers, against the fake upstream's strict Gemini API. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.js';
import { cli } from './capture.js';

const GOOGLE_KEY = 'AIza-providers-test-key-0123';
let up: FakeUpstream;
let file: string;

beforeAll(async () => {
  up = await startFakeUpstream({ geminiKey: GOOGLE_KEY });
  file = join(mkdtempSync(join(tmpdir(), 'gw-providers-gemini-')), 'gateway.yaml');
  const models = '{ gemini-2.5-flash: { context_window: 1048576 } }';
  writeFileSync(
    file,
    [
      'providers:',
      `  google: { api: gemini, base_url: "${up.url}/v1beta", api_key: "\${GEMINI_KEY}", models: ${models} }`,
      `  wrong: { api: gemini, base_url: "${up.url}/v1beta", api_key: "AIza-wrong-key-000", models: ${models} }`,
      'roles:',
      '  all: { models: ["*"] }',
      'keys:',
      '  - { id: k, key: "test-key-123456", role: all }',
      '',
    ].join('\n'),
  );
});
afterAll(() => up?.close());
beforeEach(() => up.reset());

describe('gateway providers: gemini', () => {
  test('GET /models with x-goog-api-key; a key Google refuses (its 400) is a credential failure; exit 1', async () => {
    const r = await cli(['providers', '-c', file], { env: { GEMINI_KEY: GOOGLE_KEY } });
    expect(r.code, r.all()).toBe(1);
    const lines = r.out.slice(1).map((l) => l.trim().split(/\s{2,}/));
    expect(lines.find((l) => l[0] === 'google')?.slice(1, 3)).toEqual(['gemini', 'ok']);
    expect(lines.find((l) => l[0] === 'wrong')?.slice(1, 3)).toEqual(['gemini', 'failed']);
    expect(r.out.join('\n')).toContain('credentials rejected (HTTP 400)');
    expect(up.received.map((c) => `${c.path} ${c.status}`).sort()).toEqual([
      '/v1beta/models 200',
      '/v1beta/models 400',
    ]);
    expect(r.all()).not.toContain(GOOGLE_KEY);
  });

  test('--probe sends one generateContent of one output token per model', async () => {
    const r = await cli(['providers', '-c', file, '--probe'], { env: { GEMINI_KEY: GOOGLE_KEY } });
    const probe = up.received.find((c) => c.path.endsWith(':generateContent') && c.status === 200);
    expect(probe?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(probe?.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'ping' }] }],
      generationConfig: { maxOutputTokens: 1 },
    });
    const row = r.out.map((l) => l.trim().split(/\s{2,}/)).find((l) => l[0] === 'google/gemini-2.5-flash');
    expect(row?.slice(1, 3)).toEqual(['model', 'ok']);
  });
});
