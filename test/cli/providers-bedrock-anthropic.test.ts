/**
 * `gateway providers` on `api: bedrock-anthropic` providers, against the strict fake InvokeModel front
 * (SigV4 verified) in front of the fake Anthropic API.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type FakeBedrockInvoke, startFakeBedrockInvoke } from '../helpers/fake-bedrock-invoke.js';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.js';
import { cli } from './capture.js';

const REGION = 'eu-north-1';
const CREDS = { accessKeyId: 'AKIAPROVIDERSINVOKE1', secretAccessKey: 'providers/invoke/secret/0001' };
const API_KEY = 'ABSKcHJvdmlkZXJzLWludm9rZQ==';
const CLAUDE = 'anthropic.claude-haiku-4-5-20251001-v1:0';
let claude: FakeUpstream;
let bedrock: FakeBedrockInvoke;
let file: string;

beforeAll(async () => {
  claude = await startFakeUpstream();
  bedrock = await startFakeBedrockInvoke({
    region: REGION,
    credentials: CREDS,
    apiKey: API_KEY,
    anthropic: claude.url,
  });
  file = join(mkdtempSync(join(tmpdir(), 'gw-providers-bedrock-anthropic-')), 'gateway.yaml');
  const models = `{ claude: { upstream_name: "${CLAUDE}", context_window: 200000 } }`;
  const at = `api: bedrock-anthropic, region: ${REGION}, base_url: "${bedrock.url}"`;
  writeFileSync(
    file,
    [
      'providers:',
      `  signed: { ${at}, models: ${models} }`,
      `  keyed: { ${at}, api_key: "${API_KEY}", models: ${models} }`,
      `  wrong: { ${at}, aws: { access_key_id: "${CREDS.accessKeyId}", secret_access_key: "no" }, models: ${models} }`,
      'roles:',
      '  all: { models: ["*"] }',
      'keys:',
      '  - { id: k, key: "test-key-123456", role: all }',
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await bedrock?.close();
  await claude?.close();
});
beforeEach(() => {
  bedrock.received.length = 0;
  claude.reset();
});

const ENV = { AWS_ACCESS_KEY_ID: CREDS.accessKeyId, AWS_SECRET_ACCESS_KEY: CREDS.secretAccessKey };
const rows = (out: string[]) => out.map((l) => l.trim().split(/\s{2,}/));

describe('gateway providers: bedrock-anthropic', () => {
  test("the bedrock kind's health call, signed from AWS_* or with the API key; a refused signature fails", async () => {
    const r = await cli(['providers', '-c', file], { env: ENV });
    expect(r.code, r.all()).toBe(1);
    expect(
      rows(r.out)
        .find((l) => l[0] === 'signed')
        ?.slice(1, 3),
    ).toEqual(['bedrock-anthropic', 'ok']);
    expect(
      rows(r.out)
        .find((l) => l[0] === 'keyed')
        ?.slice(1, 3),
    ).toEqual(['bedrock-anthropic', 'ok']);
    expect(
      rows(r.out)
        .find((l) => l[0] === 'wrong')
        ?.slice(1, 3),
    ).toEqual(['bedrock-anthropic', 'failed']);
    expect(r.out.join('\n')).toContain('credentials rejected (HTTP 403)');
    // The providers are checked in parallel: the calls in any order.
    expect(bedrock.received.map((c) => `${c.method} ${c.path} ${c.status}`).sort()).toEqual([
      'GET /async-invoke?maxResults=1 200',
      'GET /async-invoke?maxResults=1 200',
      'GET /async-invoke?maxResults=1 403',
    ]);
    expect(r.all()).not.toContain(CREDS.secretAccessKey);
    expect(r.all()).not.toContain(API_KEY);
  });

  test('--probe sends one InvokeModel body of max_tokens 1 per model, which Bedrock takes', async () => {
    const r = await cli(['providers', '-c', file, '--probe', '--provider', 'signed', '--provider', 'keyed'], {
      env: ENV,
    });
    expect(r.code, r.all()).toBe(0);
    const probes = bedrock.received.filter((c) => c.method === 'POST');
    expect(probes.map((c) => [c.path, c.status])).toEqual([
      [`/model/${encodeURIComponent(CLAUDE)}/invoke`, 200],
      [`/model/${encodeURIComponent(CLAUDE)}/invoke`, 200],
    ]);
    expect(JSON.parse(probes[0].body)).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'ping' }],
    });
    expect(claude.accepted).toHaveLength(2);
    expect(
      rows(r.out)
        .find((l) => l[0] === 'signed/claude')
        ?.slice(1, 3),
    ).toEqual(['model', 'ok']);
  });
});
