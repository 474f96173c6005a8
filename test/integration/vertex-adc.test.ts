/**
 * The Vertex kinds with the environment's application default credentials: the config names no key
 * file, GOOGLE_APPLICATION_CREDENTIALS names the fake Vertex's service-account key (its token_uri on
 * the fake), and both kinds get their tokens from the fake's token endpoint. The variable is set for
 * this file's process only and restored after it.
 */

import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.js';
import { type FakeVertex, startFakeVertex } from '../helpers/fake-vertex.js';
import { loadTestConfig, type RunningGateway, startGateway } from '../helpers/start-gateway.js';

const KEY = 'vertex-adc-suite-key-0001';
const GEMINI_KEY = 'AIza-behind-vertex-adc-000';
const PROJECT = 'adc-project';
const LOCATION = 'us-east5';
const ENV = 'GOOGLE_APPLICATION_CREDENTIALS';

let up: FakeUpstream;
let vertex: FakeVertex;
let gw: RunningGateway;
let openai: OpenAI;
let saved: string | undefined;

beforeAll(async () => {
  up = await startFakeUpstream({ geminiKey: GEMINI_KEY });
  vertex = await startFakeVertex({
    project: PROJECT,
    location: LOCATION,
    gemini: up.url,
    geminiKey: GEMINI_KEY,
    anthropic: up.url,
  });
  saved = process.env[ENV];
  process.env[ENV] = vertex.keyFile;
  const settings = `{ project: ${PROJECT}, location: ${LOCATION} }`;
  gw = await startGateway(
    loadTestConfig(`
providers:
  gem:
    api: vertex
    base_url: ${vertex.url}
    vertex: ${settings}
    models: { gemini-2.5-flash: { context_window: 1048576 } }
  cla:
    api: vertex-anthropic
    base_url: ${vertex.url}
    vertex: ${settings}
    models: { sonnet: { context_window: 200000, upstream_name: "claude-sonnet-4-5@20250929" } }
roles: { dev: { models: ['*'] } }
keys: [{ id: k, key: ${KEY}, role: dev }]
`),
  );
  openai = new OpenAI({ apiKey: KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  if (saved === undefined) delete process.env[ENV];
  else process.env[ENV] = saved;
  await gw?.close();
  await vertex?.close();
  await up?.close();
});

describe('vertex and vertex-anthropic with application default credentials', () => {
  it('each kind gets a token from the key file GOOGLE_APPLICATION_CREDENTIALS names, once', async () => {
    for (const model of ['gem/gemini-2.5-flash', 'cla/sonnet', 'gem/gemini-2.5-flash', 'cla/sonnet']) {
      const res = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
      expect(res.choices[0].message.content).toBe('echo: hi');
    }
    expect(vertex.refusals).toEqual([]);
    expect(vertex.tokenFetches).toBe(2);
    expect(vertex.received.map((c) => c.status)).toEqual([200, 200, 200, 200]);
    const tokens = vertex.received.map((c) => c.authorization);
    expect(tokens.every((t) => /^Bearer ya29\.fake-[12]-/.test(t ?? ''))).toBe(true);
    expect([tokens[0] === tokens[2], tokens[1] === tokens[3], tokens[0] === tokens[1]]).toEqual([true, true, false]);
    expect(up.received.map((c) => c.format)).toEqual(['gemini', 'anthropic', 'gemini', 'anthropic']);
  });
});
