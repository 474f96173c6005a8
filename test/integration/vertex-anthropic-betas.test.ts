/**
 * Claude on Vertex (vertex-anthropic) takes what Claude Code sends: the strict fake Vertex front
 * (fake-vertex.ts) refuses, as Vertex does, an `anthropic-beta` value and a body field it does not
 * take; the gateway passes on only those Vertex takes, lists the rest in x-gateway-dropped-fields,
 * and adds the betas a provider's `anthropic_betas.allow` names; counts go without betas. Claude
 * Code's captured requests (test/fixtures/claude-code/) replayed on it, messages and count_tokens.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CC_KEY,
  claudeCodeReply,
  expectAnthropicStream,
  loadScenarios,
  replay,
  thinkingFitted,
} from '../clients/claude-code-fixtures.js';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.js';
import { type FakeVertex, startFakeVertex } from '../helpers/fake-vertex.js';
import { loadTestConfig, type RunningGateway, startGateway } from '../helpers/start-gateway.js';

const KEY = 'vertex-betas-suite-key-01';
const PROJECT = 'fake-project';
const LOCATION = 'us-east5';
const LOCATION_PATH = `/v1/projects/${PROJECT}/locations/${LOCATION}`;
const CLAUDE_PATH = `${LOCATION_PATH}/publishers/anthropic/models/claude-sonnet-4-5@20250929`;
const COUNT_PATH = `${LOCATION_PATH}/publishers/anthropic/models/count-tokens:rawPredict`;
const MODEL = 'vx/claude';
/** A beta this project's Vertex takes that the gateway's defaults do not know. */
const NEWER_BETA = 'newer-feature-2026-09-01';
/** What Vertex takes of Claude Code's betas (as the fake front knows them), tool search under its 3P name. */
const VERTEX_NAMES: Record<string, string> = {
  'interleaved-thinking-2025-05-14': 'interleaved-thinking-2025-05-14',
  'context-management-2025-06-27': 'context-management-2025-06-27',
  'advanced-tool-use-2025-11-20': 'tool-search-tool-2025-10-19',
};

let claude: FakeUpstream;
let vertex: FakeVertex;
let gw: RunningGateway;

beforeAll(async () => {
  claude = await startFakeUpstream({ countTokens: () => 321 });
  vertex = await startFakeVertex({
    project: PROJECT,
    location: LOCATION,
    gemini: claude.url,
    geminiKey: 'unused-gemini-key',
    anthropic: claude.url,
    claudeBetas: [NEWER_BETA],
  });
  const provider = (extra = '') => `
    api: vertex-anthropic
    base_url: ${vertex.url}
    vertex: { project: ${PROJECT}, location: ${LOCATION}, credentials_file: "${vertex.keyFile}" }${extra}
    models: { claude: { context_window: 200000, upstream_name: "claude-sonnet-4-5@20250929" } }`;
  gw = await startGateway(
    loadTestConfig(`routing: { retry: { max_retries: 0 }, fallback_on: [] }
providers:
  vx: ${provider()}
  newer: ${provider(`\n    anthropic_betas: { allow: ["${NEWER_BETA}"] }`)}
roles: { dev: { models: ['*'] } }
keys:
  - { id: k, key: ${KEY}, role: dev }
  - { id: cc, key: ${CC_KEY}, role: dev }
`),
  );
});
afterAll(async () => {
  await gw?.close();
  await vertex?.close();
  await claude?.close();
});
beforeEach(() => {
  vertex.received.length = 0;
  claude.reset();
});

const json = (s: string) => JSON.parse(s) as Record<string, any>;

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('the fake Vertex front refuses what Vertex refuses', () => {
  const direct = (body: unknown, beta?: string) =>
    fetch(`${vertex.url}${CLAUDE_PATH}:rawPredict`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${vertex.issueToken()}`,
        'content-type': 'application/json',
        ...(beta ? { 'anthropic-beta': beta } : {}),
      },
      body: JSON.stringify(body),
    });
  const body = { anthropic_version: 'vertex-2023-10-16', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] };

  it('an anthropic-beta value it does not take, and a first-party field', async () => {
    const beta = await direct(body, 'interleaved-thinking-2025-05-14,effort-2025-11-24,claude-code-20250219');
    expect(beta.status).toBe(400);
    expect(await beta.json()).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'Unexpected value(s) `effort-2025-11-24`, `claude-code-20250219` for the `anthropic-beta` header. ' +
          'Please consult our documentation at docs.anthropic.com or try again without the header.',
      },
    });
    const field = await direct({ ...body, service_tier: 'auto' });
    expect(field.status).toBe(400);
    expect((await field.json()).error.message).toBe('service_tier: Extra inputs are not permitted');
    expect(claude.received).toEqual([]);
    expect((await direct(body, 'interleaved-thinking-2025-05-14')).status).toBe(200);
  });
});

describe('what Vertex does not take is dropped and listed', () => {
  it('first-party betas and fields: left out, in x-gateway-dropped-fields; Vertex answers', async () => {
    const res = await post(
      {
        model: MODEL,
        max_tokens: 8,
        messages: [{ role: 'user', content: 'x' }],
        speed: 'fast',
        context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
        output_config: { effort: 'high' },
      },
      { 'anthropic-beta': 'claude-code-20250219, effort-2025-11-24,context-management-2025-06-27' },
    );
    expect(res.status, await res.clone().text()).toBe(200);
    // Sonnet 4.5 takes no effort (README, "Pass-through"): left out before the platform's edits.
    expect(res.headers.get('x-gateway-dropped-fields')).toBe(
      'output_config.effort, anthropic-beta:claude-code-20250219, anthropic-beta:effort-2025-11-24, speed',
    );
    const call = vertex.received[0];
    expect(call.anthropicBeta).toBe('context-management-2025-06-27');
    expect(call.body).toBe(
      '{"anthropic_version":"vertex-2023-10-16","max_tokens":8,"messages":[{"role":"user","content":"x"}],' +
        '"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]}}',
    );
    expect(call.status).toBe(200);
  });

  it("a beta the provider's anthropic_betas.allow names goes up; another provider drops it", async () => {
    const body = { model: 'newer/claude', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] };
    const res = await post(body, { 'anthropic-beta': NEWER_BETA });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('x-gateway-dropped-fields')).toBeNull();
    expect(vertex.received[0].anthropicBeta).toBe(NEWER_BETA);
    const dropped = await post({ ...body, model: MODEL }, { 'anthropic-beta': NEWER_BETA });
    expect(dropped.status).toBe(200);
    expect(dropped.headers.get('x-gateway-dropped-fields')).toBe(`anthropic-beta:${NEWER_BETA}`);
    expect(vertex.received[1].anthropicBeta).toBeUndefined();
  });
});

describe("Claude Code's captured requests → Vertex", () => {
  const scenarios = loadScenarios();
  const messages = scenarios.flatMap((s) =>
    s.requests.filter((c) => c.method === 'POST' && c.path.startsWith('/v1/messages?')).map((c) => ({ ...s, c })),
  );

  it.each(messages.map((m) => [`${m.version}/${m.name}/${m.c.file}`, m.c] as const))(
    '%s: a well-formed stream; Vertex gets the betas it takes, the others are listed',
    async (_, c) => {
      claude.setHandler(claudeCodeReply);
      const { res } = await replay(gw, c, MODEL);
      expect(res.status, await res.clone().text()).toBe(200);
      await expectAnthropicStream(res);
      const call = vertex.received[0];
      expect(call.path).toBe(`${CLAUDE_PATH}:${c.body.stream ? 'streamRawPredict' : 'rawPredict'}`);
      const betas = c.headers['anthropic-beta'].split(',');
      expect(call.anthropicBeta).toBe(
        betas
          .filter((b) => VERTEX_NAMES[b])
          .map((b) => VERTEX_NAMES[b])
          .join(','),
      );
      // Adaptive thinking (Claude Code by alias) fitted to Sonnet 4.5, its effort listed first (README, Pass-through).
      const fitted = thinkingFitted(c.body);
      const listed = [
        ...(fitted === c.body ? [] : ['output_config.effort']),
        ...betas.filter((b) => !VERTEX_NAMES[b]).map((b) => `anthropic-beta:${b}`),
      ];
      expect(res.headers.get('x-gateway-dropped-fields')).toBe(listed.join(', '));
      // Claude Code's body fields are all Vertex's (context_management with its beta).
      const sent = json(call.body);
      expect(sent.thinking).toEqual(fitted.thinking);
      expect(Object.keys(sent).sort()).toEqual(
        ['anthropic_version', ...Object.keys(fitted).filter((k) => k !== 'model')].sort(),
      );
      // A mid-conversation system message (its beta dropped) goes up as a user turn.
      const roles = (c.body.messages as Array<{ role: string }>).map((m) => (m.role === 'system' ? 'user' : m.role));
      expect((sent.messages as Array<{ role: string }>).map((m) => m.role)).toEqual(roles);
    },
  );

  it('one replay has a mid-conversation system message (the case above covers it)', () => {
    const withSystem = messages.filter((m) => m.c.body.messages.some((x: { role: string }) => x.role === 'system'));
    expect(withSystem.map((m) => `${m.version}/${m.name}/${m.c.file}`)).toEqual([
      '2.1.197/plain-alias/02-v1-messages.json',
    ]);
  });

  const counts = scenarios.flatMap((s) => s.requests.filter((c) => c.path.startsWith('/v1/messages/count_tokens')));

  it.each(counts.map((c) => [c.file, c] as const))('%s: counted by count-tokens:rawPredict', async (_, c) => {
    const { res } = await replay(gw, c, MODEL);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ input_tokens: 321 });
    expect(vertex.received.map((r) => [r.path, r.status])).toEqual([[COUNT_PATH, 200]]);
    // Claude Code sends betas with every count; Vertex's count takes none (its models' backends refuse
    // betas they have not rolled out, and a count needs none).
    expect(c.headers['anthropic-beta']).toContain('interleaved-thinking-2025-05-14');
    expect(vertex.received[0].anthropicBeta).toBeUndefined();
  });
});
