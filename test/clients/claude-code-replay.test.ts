/**
 * Claude Code's real requests (captured from the CLI, see claude-code-fixtures.ts) replayed through
 * the gateway to the strict upstream, on an Anthropic-format model (pass-through), an OpenAI chat
 * one and an OpenAI Responses-only one (translation): the caller gets a 200 and a well-formed
 * stream or message, the upstream gets what its API accepts.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { RunningGateway } from '../helpers/start-gateway.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import {
  claudeCodeReply,
  DIRECT_TARGETS,
  loadScenarios,
  PENDING,
  replayScenario,
  startReplayGateway,
  type UpstreamFormat,
} from './claude-code-fixtures.js';

let up: FakeUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  up = await startFakeUpstream({ handler: claudeCodeReply });
  gw = await startReplayGateway(up.url);
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
});

const FORMATS: UpstreamFormat[] = ['anthropic', 'openai', 'responses'];

describe.each(loadScenarios())('Claude Code $version $name', ({ version, name, requests }) => {
  it.each(FORMATS.filter((f) => !PENDING.has(`${version}/${name}/${f}`)))(
    'replays on an %s-format upstream',
    async (format) => {
      await replayScenario({ gw, up, targets: Object.values(DIRECT_TARGETS) }, requests, DIRECT_TARGETS[format]);
    },
  );
});
