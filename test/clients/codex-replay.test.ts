/**
 * The Codex CLI's real requests (captured from codex 0.169 by test/tools/capture-codex.mjs:
 * test/fixtures/codex/) replayed through POST /v1/responses to the strict fake upstream, on a
 * Responses model (pass-through), an Anthropic-format model and an OpenAI chat model
 * (translation). Every request of every conversation Codex can send a non-OpenAI model (its
 * "classic" request shape: the alias and gpt-5.5 runs — plain prompt, shell round, apply_patch
 * round, auto-compaction) must get a 200 stream in the documented order, and the upstream must get
 * what its API accepts: Codex's free-form `apply_patch` tool as a function with one string, its
 * provider-side tools (web_search, tool_search, its sub-agent namespace) and hints dropped and
 * listed, the tool results in place.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.js';
import { gatewayYaml } from '../helpers/gateway-config.js';
import { responsesOrderViolations, sseMessages } from '../helpers/responses-order.js';
import { loadTestConfig, startGateway, type RunningGateway } from '../helpers/start-gateway.js';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'codex', '0.169.0');
const KEY = 'codex-replay-key-0001';
/** Conversations in the shape Codex sends a model it does not know (a gateway alias). */
const SCENARIOS = [
  'plain-alias-model',
  'plain-classic-model',
  'shell-tool-round',
  'apply-patch-round',
  'auto-compaction',
];
const TARGETS = {
  responses: { alias: 'codex/resp', concrete: 'resp/gpt-5.5', path: '/v1/responses' },
  anthropic: { alias: 'codex/claude', concrete: 'ant/claude-sonnet-4-5', path: '/v1/messages' },
  chat: { alias: 'codex/chat', concrete: 'oai/gpt-4.1', path: '/v1/chat/completions' },
} as const;
type Target = keyof typeof TARGETS;

interface Captured {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Record<string, any>;
  body_same_as?: number;
  input_appended?: unknown[];
}

/** A captured request's body, rebuilt where the fixture wrote it as a reference to an earlier one. */
function bodyOf(all: Captured[], c: Captured): Record<string, any> {
  if (c.body) return structuredClone(c.body);
  const base = bodyOf(all, all[c.body_same_as!]);
  return { ...base, input: [...base.input, ...structuredClone(c.input_appended ?? [])] };
}

function load(name: string): Captured[] {
  const fx = JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as { requests: Captured[] };
  return fx.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/responses'));
}

let up: FakeUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  up = await startFakeUpstream({});
  const timeouts = { connect_ms: 2000, first_byte_ms: 5000, total_ms: 15000 };
  const m = (context_window: number, max_output_tokens: number) => ({ context_window, max_output_tokens });
  gw = await startGateway(
    loadTestConfig(
      gatewayYaml({
        server: { host: '127.0.0.1', port: 0, body_limit: '4mb', shutdown_grace_ms: 2000 },
        routing: { retry: { max_retries: 0 } },
        providers: {
          resp: {
            api: 'openai-responses',
            url: up.url,
            api_key: 'sk-codex-resp-0001',
            timeouts,
            models: { 'gpt-5.5': m(400000, 32000) },
          },
          ant: {
            api: 'anthropic',
            url: up.url,
            api_key: 'sk-ant-codex-0002',
            timeouts,
            models: { 'claude-sonnet-4-5': m(200000, 32000) },
          },
          oai: {
            api: 'openai',
            url: up.url,
            api_key: 'sk-oai-codex-0003',
            timeouts,
            models: { 'gpt-4.1': m(1000000, 32000) },
          },
        },
        aliases: Object.fromEntries(Object.values(TARGETS).map((t) => [t.alias, { targets: [t.concrete] }])),
        roles: { dev: { models: ['codex/*'] } },
        keys: [{ id: 'codex', key: KEY, role: 'dev' }],
      }),
    ),
  );
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
});

it('the fixtures hold the conversations this suite replays', () => {
  const files = readdirSync(DIR).map((f) => f.replace(/\.json$/, ''));
  for (const s of SCENARIOS) expect(files).toContain(s);
  expect(load('shell-tool-round')).toHaveLength(2);
  expect(load('apply-patch-round')).toHaveLength(2);
});

describe.each(SCENARIOS)('Codex 0.169 %s', (scenario) => {
  it.each(Object.keys(TARGETS) as Target[])('replays on a %s upstream', async (target) => {
    const requests = load(scenario);
    for (const [i, c] of requests.entries()) {
      const body = bodyOf(requests, c);
      body.model = TARGETS[target].alias;
      // The recorder's encrypted reasoning is its own: a Responses provider accepts only what it
      // issued itself, so towards it the replay leaves those items out (a real Codex sends back
      // the ones that provider gave it). Translation drops them itself.
      if (target === 'responses') body.input = body.input.filter((it: any) => it.type !== 'reasoning');
      const headers: Record<string, string> = { ...c.headers, authorization: `Bearer ${KEY}` };
      delete headers['content-length'];
      delete headers.host;
      up.reset();
      const res = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers, body: JSON.stringify(body) });
      const text = await res.text();
      const at = `${scenario} request ${i} → ${target}`;
      expect(res.status, `${at}: ${text.slice(0, 500)}`).toBe(200);
      expect(res.headers.get('x-gateway-model')).toBe(TARGETS[target].concrete);
      const events = sseMessages(text);
      expect(responsesOrderViolations(events), at).toEqual([]);
      const last = JSON.parse(String(events.at(-1)!.data)) as { type: string; response: { model: string } };
      expect(last.type, at).toBe('response.completed');
      expect(last.response.model).toBe(TARGETS[target].alias);

      expect(up.received, at).toHaveLength(1);
      const got = up.received[0];
      expect(got.path).toBe(TARGETS[target].path);
      expect(got.status, `${at}: ${got.error}`).toBe(200);
      if (target === 'responses') continue; // pass-through: the bytes went up as sent
      const dropped = res.headers.get('x-gateway-dropped-fields') ?? '';
      expect(dropped).toContain('client_metadata');
      if (body.tools?.some((t: any) => t.type === 'web_search')) expect(dropped).toContain('(web_search)');
      const names = (got.body.tools ?? []).map((t: any) => t.name ?? t.function?.name);
      if (body.tools?.some((t: any) => t.name === 'apply_patch')) {
        expect(names).toContain('apply_patch');
        const patch = (got.body.tools as any[]).find((t) => (t.name ?? t.function?.name) === 'apply_patch');
        const schema = patch.input_schema ?? patch.function.parameters;
        expect(schema.properties.input.type).toBe('string');
      }
      expect(names).not.toContain('web_search');
      // Tool outputs Codex sends back reach the model as tool results.
      const outputs = body.input.filter((it: any) => /_call_output$/.test(it.type)).length;
      const results =
        target === 'anthropic'
          ? got.body.messages
              .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
              .filter((b: any) => b.type === 'tool_result')
          : got.body.messages.filter((m: any) => m.role === 'tool');
      expect(results.length, at).toBe(outputs);
    }
  });
});
