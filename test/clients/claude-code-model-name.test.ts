/**
 * Claude Code 2.1.197 keeps an assistant turn's signed thinking blocks only when the `model` the
 * response reported equals the model it asked for (else it strips them before the next request,
 * and a thinking tool loop is refused upstream). The gateway names the caller's model in every
 * response (src/formats/response-model.ts): checked with a captured Claude Code request,
 * through an alias and a concrete id, on pass-through to an Anthropic-format model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../helpers/start-gateway.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { claudeCodeReply, loadScenarios, replay, startReplayGateway } from './claude-code-fixtures.js';

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

describe.each(['team/claude', 'ant/claude-sonnet-4-5'])(
  'the response names the model Claude Code asked for (%s)',
  (model) => {
    it('in message_start (stream) and in the message (JSON)', async () => {
      const s = loadScenarios().find((x) => x.version === '2.1.197' && x.name === 'tool-round-trip')!;
      const c = s.requests.find((r) => r.path.startsWith('/v1/messages'))!;
      const streamed = await replay(gw, c, model);
      const text = await streamed.res.text();
      expect(
        JSON.parse(
          text
            .split('\n')
            .find((l) => l.startsWith('data: '))!
            .slice(6),
        ).message.model,
      ).toBe(model);
      const json = await replay(gw, c, model, (b) => delete b.stream);
      expect(((await json.res.json()) as any).model).toBe(model);
    });
  },
);
