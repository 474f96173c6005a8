/** `gateway providers` on `api: bedrock` providers, against the fake upstream's Bedrock runtime (SigV4 verified). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.js';
import { cli } from './capture.js';

const REGION = 'ap-northeast-1';
const CREDS = { accessKeyId: 'AKIAPROVIDERSTEST001', secretAccessKey: 'providers/secret/key/0001' };
const API_KEY = 'ABSKcHJvdmlkZXJzLXRlc3Q=';
let up: FakeUpstream;
let file: string;

beforeAll(async () => {
  up = await startFakeUpstream({ aws: { region: REGION, credentials: CREDS, apiKey: API_KEY } });
  file = join(mkdtempSync(join(tmpdir(), 'gw-providers-bedrock-')), 'gateway.yaml');
  const models = '{ claude: { upstream_name: "anthropic.claude-3-5-haiku-20241022-v1:0", context_window: 200000 } }';
  const at = `region: ${REGION}, base_url: "${up.url}"`;
  writeFileSync(
    file,
    [
      'providers:',
      `  signed: { api: bedrock, ${at}, models: ${models} }`,
      `  keyed: { api: bedrock, ${at}, api_key: "${API_KEY}", models: ${models} }`,
      `  wrong: { api: bedrock, ${at}, aws: { access_key_id: "${CREDS.accessKeyId}", secret_access_key: "no" },`,
      `           models: ${models} }`,
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

const ENV = { AWS_ACCESS_KEY_ID: CREDS.accessKeyId, AWS_SECRET_ACCESS_KEY: CREDS.secretAccessKey };

describe('gateway providers: bedrock', () => {
  test('GET /async-invoke, signed from AWS_* or with the API key; a refused signature fails; exit 1', async () => {
    const r = await cli(['providers', '-c', file], { env: ENV });
    expect(r.code, r.all()).toBe(1);
    const lines = r.out.slice(1).map((l) => l.trim().split(/\s{2,}/));
    expect(lines.find((l) => l[0] === 'signed')?.slice(1, 3)).toEqual(['bedrock', 'ok']);
    expect(lines.find((l) => l[0] === 'keyed')?.slice(1, 3)).toEqual(['bedrock', 'ok']);
    expect(lines.find((l) => l[0] === 'wrong')?.slice(1, 3)).toEqual(['bedrock', 'failed']);
    expect(r.out.join('\n')).toContain('credentials rejected (HTTP 403)');
    expect(up.accepted.map((c) => c.url)).toEqual(['/async-invoke?maxResults=1', '/async-invoke?maxResults=1']);
    expect(up.rejected.map((c) => [c.url, c.status])).toEqual([['/async-invoke?maxResults=1', 403]]);
    expect(r.all()).not.toContain(CREDS.secretAccessKey);
    expect(r.all()).not.toContain(API_KEY);
  });

  test('without any AWS credentials the SigV4 provider is reported as missing them', async () => {
    const r = await cli(['providers', '-c', file], { env: {} });
    expect(r.code, r.all()).toBe(1);
    const row = r.out.map((l) => l.trim().split(/\s{2,}/)).find((l) => l[0] === 'signed');
    expect(row?.slice(1, 3)).toEqual(['bedrock', 'failed']);
    expect(r.out.join('\n')).toContain('no credentials: no AWS credentials');
  });

  test('--probe sends one Converse call of one output token per model', async () => {
    const r = await cli(['providers', '-c', file, '--probe'], { env: ENV });
    const probes = up.received.filter((c) => c.endpoint === 'chat');
    expect(probes.map((c) => c.path)).toEqual([
      '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse',
      '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse',
    ]);
    expect(probes[0].body).toEqual({
      messages: [{ role: 'user', content: [{ text: 'ping' }] }],
      inferenceConfig: { maxTokens: 1 },
    });
    const row = r.out.map((l) => l.trim().split(/\s{2,}/)).find((l) => l[0] === 'signed/claude');
    expect(row?.slice(1, 3)).toEqual(['model', 'ok']);
  });
});
