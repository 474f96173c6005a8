/**
 * Claude Code's real requests (claude-code-fixtures.ts) replayed through the gateway to a Claude
 * model on AWS Bedrock (`api: bedrock`, SigV4), whose strict runtime is the fake upstream's: every
 * messages request, as a stream and as JSON, reaches Converse / ConverseStream in a body the
 * Converse rules accept, carrying every text and tool Claude Code sent, and Claude Code gets a
 * well-formed Anthropic answer back; its count_tokens calls get Bedrock's CountTokens count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Content, type FakeUpstream, startFakeUpstream, type UpstreamCall } from '../helpers/fake-upstream.js';
import { loadTestConfig, type RunningGateway, startGateway } from '../helpers/start-gateway.js';
import {
  CC_KEY,
  type Captured,
  capturedTexts,
  expectAnthropicStream,
  loadScenarios,
  PLAIN_REPLY,
  READ_CALL_ID,
  replay,
} from './claude-code-fixtures.js';

const REGION = 'eu-central-1';
const CREDS = { accessKeyId: 'AKIACLAUDECODEREPLAY', secretAccessKey: 'claude/code/replay/secret/0001' };
const UPSTREAM_MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const MODEL_PATH = `/model/${encodeURIComponent(UPSTREAM_MODEL)}`;
const CONCRETE = 'aws/claude-sonnet-4-5';
const COUNT = 4321;

let up: FakeUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  up = await startFakeUpstream({
    aws: { region: REGION, credentials: CREDS, apiKey: 'unused' },
    handler: bedrockReply,
    countTokens: () => COUNT,
  });
  gw = await startGateway(
    loadTestConfig(`
routing: { retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 } }
providers:
  aws:
    api: bedrock
    region: ${REGION}
    base_url: ${up.url}
    aws: { access_key_id: "${CREDS.accessKeyId}", secret_access_key: "${CREDS.secretAccessKey}" }
    models:
      claude-sonnet-4-5: { upstream_name: "${UPSTREAM_MODEL}", context_window: 200000, max_output_tokens: 64000 }
aliases:
  team/claude: { targets: [ ${CONCRETE} ] }
roles:
  dev: { models: ["*"] }
keys:
  - { id: cc, key: ${CC_KEY}, role: dev }
`),
  );
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
});

/** Converse text blocks (and a toolResult's), joined. */
const textOf = (content: any[]): string =>
  content.map((b) => b?.text ?? (b?.toolResult ? textOf(b.toolResult.content) : '')).join('');

/** claudeCodeReply's answers read from a Converse body: tool said, a Read call or PLAIN_REPLY; thinking if asked. */
function bedrockReply(call: UpstreamCall): Content | undefined {
  if (call.endpoint !== 'chat') return undefined;
  const messages: any[] = call.body.messages;
  const thinking = call.body.additionalModelRequestFields?.thinking ? 'Short answer wanted.' : undefined;
  const results = (messages.at(-1)?.content ?? []).filter((b: any) => b?.toolResult);
  if (results.length > 0) return { thinking, text: `tool said: ${textOf(results)}` };
  const prompt = messages
    .filter((m) => m.role === 'user')
    .map((m) => textOf(m.content))
    .join('\n');
  const wanted = /Read the file (\S+?)(?=[\s,;]|\.(?:\s|$)|$)/.exec(prompt);
  const offersRead = (call.body.toolConfig?.tools ?? []).some((t: any) => t?.toolSpec?.name === 'Read');
  if (wanted && offersRead)
    return { thinking, toolCalls: [{ name: 'Read', args: { file_path: wanted[1] }, id: READ_CALL_ID }] };
  return { thinking, text: PLAIN_REPLY };
}

const modelFor = (captured: string) => (/^claude-/.test(captured) ? CONCRETE : 'team/claude');
const route = (c: Captured) => `${c.method} ${c.path.split('?')[0]}`;

/** What reached Bedrock: accepted, signed for the region, every text and tool Claude Code sent. */
function expectConverse(got: UpstreamCall, sent: any): void {
  expect(got.path).toBe(`${MODEL_PATH}/${sent.stream === true ? 'converse-stream' : 'converse'}`);
  expect(got.status, got.error).toBe(200);
  expect(got.headers.authorization).toContain(`Credential=${CREDS.accessKeyId}/`);
  expect(JSON.stringify(got.headers)).not.toContain(CC_KEY);
  const upstreamText = JSON.stringify([got.body.system, got.body.messages]);
  const sys = typeof sent.system === 'string' ? [sent.system] : (sent.system ?? []).map((b: any) => b.text);
  for (const t of [...capturedTexts(sent), ...sys])
    expect(upstreamText.includes(JSON.stringify(t).slice(1, -1)), `reached Bedrock: ${t.slice(0, 60)}…`).toBe(true);
  expect((got.body.toolConfig?.tools ?? []).map((t: any) => t.toolSpec.name)).toEqual(
    (sent.tools ?? []).map((t: any) => t.name),
  );
}

async function replayMessages(c: Captured, stream: boolean): Promise<void> {
  const model = modelFor(c.body.model);
  up.reset();
  const { res, sentRaw } = await replay(gw, c, model, stream ? undefined : (b) => delete b.stream);
  const at = `${c.file}${stream ? '' : ' (stream off)'}`;
  expect(res.status, `${at}: ${res.status === 200 ? '' : await res.text()}`).toBe(200);
  expect(res.headers.get('x-gateway-model')).toBe(CONCRETE);
  let blocks: any[];
  let stop: string;
  if (stream) ({ blocks, stop } = await expectAnthropicStream(res));
  else ({ content: blocks, stop_reason: stop } = (await res.json()) as any);
  expect(up.received, at).toHaveLength(1);
  expectConverse(up.received[0]!, JSON.parse(sentRaw));
  // Thinking asked of Claude on Bedrock comes back as a thinking block first (signed: expectAnthropicStream keeps
  // no signature deltas, so the JSON answer shows it).
  const thinks = up.received[0]!.body.additionalModelRequestFields?.thinking !== undefined;
  expect(blocks[0].type === 'thinking', at).toBe(thinks);
  if (thinks && !stream) expect(blocks[0].signature).toMatch(/^sig_/);
  const call = blocks.find((b) => b.type === 'tool_use');
  if (call) {
    expect([stop, call.id, call.name]).toEqual(['tool_use', READ_CALL_ID, 'Read']);
    expect(call.input.file_path).toMatch(/notes\.txt$/);
  } else {
    expect(stop).toBe('end_turn');
    // What the upstream answered reached Claude Code: PLAIN_REPLY, or `tool said: …` after the tool round trip.
    const said = bedrockReply(up.received[0]!)!.text;
    expect(blocks.filter((b) => b.type === 'text').map((b) => b.text)).toEqual([said]);
  }
}

async function replayCount(c: Captured): Promise<void> {
  up.reset();
  const { res } = await replay(gw, c, modelFor(c.body.model));
  expect([res.status, await res.json()]).toEqual([200, { input_tokens: COUNT }]);
  expect(res.headers.get('x-gateway-token-count')).toBe('upstream');
  expect(up.received.map((r) => [r.path, r.status])).toEqual([[`${MODEL_PATH}/count-tokens`, 200]]);
}

describe.each(loadScenarios())('Claude Code $version $name → Bedrock', ({ requests }) => {
  it('every messages and count_tokens request is served through Converse and CountTokens', async () => {
    let served = 0;
    for (const c of requests) {
      if (route(c) === 'POST /v1/messages') {
        await replayMessages(c, true);
        await replayMessages(c, false);
        served++;
      } else if (route(c) === 'POST /v1/messages/count_tokens') {
        await replayCount(c);
        served++;
      }
    }
    expect(served, 'the scenario holds model calls').toBeGreaterThan(0);
  });
});
