/**
 * The one gateway the real-CLI suites (claude-code-cli.test.ts, codex-cli.test.ts) run through: a model on each of
 * the three upstream formats reached directly (the replay's providers and aliases, claude-code-fixtures.ts) and a
 * model on every provider kind of kind-rigs.ts behind its front, all in front of one strict fake upstream. The
 * kinds' fronts start once, with the gateway.
 */
import type { FakeUpstream, WireFormat } from '../helpers/fake-upstream.js';
import { gatewayYaml, type ProviderSpec } from '../helpers/gateway-config.js';
import { type KindFront, type KindId, KINDS, upstreamNameOf } from '../helpers/kind-rigs.js';
import { loadTestConfig, type RunningGateway, startGateway } from '../helpers/start-gateway.js';
import {
  ANT_SECRET,
  CC_KEY,
  DISCOVERABLE_ALIAS,
  OAI_SECRET,
  RESP_SECRET,
  TARGETS,
  type UpstreamFormat,
} from './claude-code-fixtures.js';

/** A model a CLI is pointed at: an upstream format reached directly, or a provider kind. */
export interface CliTarget {
  id: UpstreamFormat | KindId;
  /** What the fake upstream behind any front is spoken to in. */
  format: WireFormat;
  alias: string;
  concrete: string;
}

/** Every target the gateway serves, in a stable order for `describe.each`: the three formats, then the kinds. */
export const CLI_TARGETS: CliTarget[] = [
  ...(['anthropic', 'openai', 'responses'] as const).map((f) => ({ id: f, format: f, ...TARGETS[f] })),
  ...KINDS.map((rig) => ({
    id: rig.kind,
    format: rig.format,
    alias: `team/${rig.kind}`,
    concrete: `${rig.kind}/${rig.model.name}`,
  })),
];

export interface CliGateway {
  gw: RunningGateway;
  /** Every upstream credential the gateway holds or sent (the direct providers' keys, each kind's secrets). */
  secrets(): string[];
  close(): Promise<void>;
}

const TIMEOUTS = { connect_ms: 2000, first_byte_ms: 5000, total_ms: 15000 };

/** The direct providers, as replayConfigYaml names them (ant, oai, resp). */
function directProviders(url: string): Record<string, ProviderSpec> {
  const model = (format: UpstreamFormat, spec: { context_window: number; max_output_tokens: number }) => ({
    [TARGETS[format].upstreamModel]: spec,
  });
  return {
    ant: {
      api: 'anthropic',
      url,
      api_key: ANT_SECRET,
      timeouts: TIMEOUTS,
      models: model('anthropic', { context_window: 200000, max_output_tokens: 64000 }),
    },
    oai: {
      api: 'openai',
      url,
      api_key: OAI_SECRET,
      timeouts: TIMEOUTS,
      models: model('openai', { context_window: 400000, max_output_tokens: 128000 }),
    },
    resp: {
      api: 'openai-responses',
      url,
      api_key: RESP_SECRET,
      timeouts: TIMEOUTS,
      models: model('responses', { context_window: 400000, max_output_tokens: 128000 }),
    },
  };
}

export async function startCliGateway(up: FakeUpstream): Promise<CliGateway> {
  const providers = directProviders(up.url);
  const fronts: KindFront[] = [];
  for (const rig of KINDS) {
    const front = await rig.start(up, [upstreamNameOf(rig.model.name, rig.model.spec)]);
    fronts.push(front);
    providers[rig.kind] = front.provider({ [rig.model.name]: rig.model.spec }, { timeouts: TIMEOUTS });
  }
  const yaml = gatewayYaml({
    server: { host: '127.0.0.1', port: 0, body_limit: '1mb', shutdown_grace_ms: 2000 },
    routing: { retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 } },
    providers,
    aliases: {
      ...Object.fromEntries(CLI_TARGETS.map((t) => [t.alias, { targets: [t.concrete] }])),
      [DISCOVERABLE_ALIAS]: { targets: [TARGETS.anthropic.concrete] },
    },
    roles: { dev: { models: ['*'] } },
    keys: [{ id: 'cc', key: CC_KEY, role: 'dev' }],
  });
  const gw = await startGateway(loadTestConfig(yaml));
  return {
    gw,
    secrets: () => [
      ANT_SECRET,
      OAI_SECRET,
      RESP_SECRET,
      ...fronts.flatMap((f) => {
        const { sent, held } = f.secrets();
        return [...sent, ...held];
      }),
    ],
    async close() {
      await gw.close();
      for (const front of fronts) await front.close();
    },
  };
}
