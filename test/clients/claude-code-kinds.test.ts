/**
 * Claude Code's real requests (claude-code-fixtures.ts) replayed through the gateway on every new provider
 * kind (kind-rigs.ts): each kind's front in front of the strict upstream, by alias and by concrete id,
 * stream and JSON. On top of the replay's own checks: the front took the gateway's credential for the
 * kind, and a same-format body reached it with exactly the kind's edits (and Claude Code's adaptive thinking fitted
 * to Sonnet 4.5, thinkingFitted). One gateway serves every kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.js';
import { gatewayYaml, type ProviderSpec } from '../helpers/gateway-config.js';
import { KINDS as ALL_KINDS, type KindFront, type KindRig, upstreamNameOf } from '../helpers/kind-rigs.js';
import { loadTestConfig, type RunningGateway, startGateway } from '../helpers/start-gateway.js';
import {
  CC_KEY,
  claudeCodeReply,
  DISCOVERABLE_ALIAS,
  loadScenarios,
  PENDING,
  type ReplayTarget,
  replayScenario,
  thinkingFitted,
} from './claude-code-fixtures.js';

let up: FakeUpstream;
let gw: RunningGateway;
const fronts = new Map<KindRig, KindFront>();

/** Bedrock's Converse replay has its own file (claude-code-bedrock-converse.test.ts: the answers in its blocks). */
const KINDS = ALL_KINDS.filter((rig) => rig.format !== 'bedrock');

const aliasOf = (rig: KindRig) => `team/${rig.kind}`;
const concreteOf = (rig: KindRig) => `${rig.kind}/${rig.model.name}`;

/** The replay's target for a kind: its model, its front's credential and edits checked. */
function targetOf(rig: KindRig): ReplayTarget {
  return {
    format: rig.format,
    alias: aliasOf(rig),
    concrete: concreteOf(rig),
    upstreamModel: upstreamNameOf(rig.model.name, rig.model.spec),
    countPath: rig.countPath?.(upstreamNameOf(rig.model.name, rig.model.spec)),
    expectRoute(got, c, sentRaw) {
      const front = fronts.get(rig)!;
      const call = front.lastCall();
      expect(call?.credential, 'the front got the provider’s credential').toBeDefined();
      expect(front.secrets().sent).toContain(call?.credential);
      expect(JSON.stringify(got.headers)).not.toContain(CC_KEY);
      // The messages call's bytes; a count's body is the kind's counter's own.
      if (rig.format !== 'anthropic' || got.endpoint === 'count_tokens') return;
      // A messages caller passes through: the kind's edits spliced into the caller's bytes, and drops only (the
      // betas and fields the platform does not take, listed by the gateway; its own suite checks which).
      const sent = thinkingFitted(JSON.parse(sentRaw));
      const edited = rig.passThroughBody?.(sent, c.headers) ?? { ...sent, model: this.upstreamModel };
      const took = JSON.parse(call?.rawBody ?? '{}');
      // The platforms take a mid-conversation system message only as a user turn (the kinds' own suites check it).
      const rewritten = (k: string) => k === 'messages' && sent.messages.some((m: any) => m.role === 'system');
      expect(Object.keys(took)[0], 'the first member').toBe(Object.keys(edited)[0]);
      for (const [k, v] of Object.entries(took)) {
        if (k === 'anthropic_beta') expect(edited[k]).toEqual(expect.arrayContaining(v as string[]));
        else if (!rewritten(k)) expect(v, `${k} as the caller sent it`).toEqual(edited[k]);
      }
      for (const [k, v] of Object.entries(got.body))
        if (k !== 'model' && k !== 'stream' && !rewritten(k)) expect(v).toEqual(sent[k]);
      expect(got.body.model).toBe(this.upstreamModel);
      const betas = (h: unknown) =>
        String(h ?? '')
          .split(/\s*,\s*/)
          .filter(Boolean);
      expect(betas(c.headers['anthropic-beta'])).toEqual(expect.arrayContaining(betas(got.headers['anthropic-beta'])));
    },
  };
}

beforeAll(async () => {
  up = await startFakeUpstream({ handler: claudeCodeReply });
  const providers: Record<string, ProviderSpec> = {};
  for (const rig of KINDS) {
    const front = await rig.start(up, [upstreamNameOf(rig.model.name, rig.model.spec)]);
    fronts.set(rig, front);
    providers[rig.kind] = front.provider(
      { [rig.model.name]: rig.model.spec },
      { timeouts: { connect_ms: 2000, first_byte_ms: 5000, total_ms: 15000 } },
    );
  }
  const claude = KINDS.find((r) => r.format === 'anthropic')!;
  const yaml = gatewayYaml({
    server: { host: '127.0.0.1', port: 0, body_limit: '1mb', shutdown_grace_ms: 2000 },
    routing: { retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 } },
    providers,
    aliases: {
      ...Object.fromEntries(KINDS.map((r) => [aliasOf(r), { targets: [concreteOf(r)] }])),
      [DISCOVERABLE_ALIAS]: { targets: [concreteOf(claude)] },
    },
    roles: { dev: { models: ['*'] } },
    keys: [{ id: 'cc', key: CC_KEY, role: 'dev' }],
  });
  gw = await startGateway(loadTestConfig(yaml));
});
afterAll(async () => {
  await gw?.close();
  for (const front of fronts.values()) await front.close();
  await up?.close();
});

describe.each(loadScenarios())('Claude Code $version $name', ({ version, name, requests }) => {
  it.each(KINDS.filter((rig) => !PENDING.has(`${version}/${name}/${rig.kind}`)).map((rig) => [rig.kind, rig] as const))(
    'replays on %s',
    async (_kind, rig) => {
      await replayScenario({ gw, up, targets: KINDS.map(targetOf) }, requests, targetOf(rig));
    },
  );
});

it('no log line holds a credential of a kind', () => {
  const logs = gw.logs.join('\n');
  expect(gw.logs.length).toBeGreaterThan(0);
  for (const front of fronts.values()) {
    const { sent, held } = front.secrets();
    expect(sent.length).toBeGreaterThan(0);
    for (const s of [...sent, ...held]) expect(logs).not.toContain(s);
  }
});
