/**
 * The openai SDK's Responses client on every new provider kind (kind-rigs.ts), the way it keeps a
 * conversation: a tool round trip continued by `previous_response_id`, JSON and stream. On a Responses
 * kind (azure-openai-responses) the provider holds the conversation, behind its front; on the others
 * the gateway does and sends the whole conversation. The cross-format matrix (cross-format.test.ts)
 * covers the SDKs' stateless calls on the same kinds; this file what only a stateful caller does.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, SCRIPTED, startFakeUpstream } from '../helpers/fake-upstream.js';
import { gatewayYaml, type ProviderSpec } from '../helpers/gateway-config.js';
import { chatCalls, type KindFront, type KindRig, KINDS } from '../helpers/kind-rigs.js';
import { responsesOrderViolations } from '../helpers/responses-order.js';
import { recordingFetch } from '../helpers/sse.js';
import { loadTestConfig, type RunningGateway, startGateway } from '../helpers/start-gateway.js';
import { SseDecoder } from '../../src/sse/decode.js';

const KEY = 'responses-kinds-key-0001';
const TOOLS: OpenAI.Responses.Tool[] = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Current weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: false,
  },
];

let up: FakeUpstream;
let gw: RunningGateway;
let openai: OpenAI;
const fronts = new Map<KindRig, KindFront>();
/** Raw event-stream bodies the SDK received, in order. */
const streams: string[] = [];

beforeAll(async () => {
  up = await startFakeUpstream(SCRIPTED);
  const providers: Record<string, ProviderSpec> = {};
  for (const rig of KINDS) {
    const front = await rig.start(up, ['m']);
    fronts.set(rig, front);
    providers[rig.kind] = front.provider({ m: { context_window: 100000, max_output_tokens: 1000 } });
  }
  const yaml = gatewayYaml({
    server: { host: '127.0.0.1', port: 0, shutdown_grace_ms: 1000 },
    routing: { retry: { max_retries: 0 } },
    providers,
    roles: { dev: { models: ['*'] } },
    keys: [{ id: 'dev', key: KEY, role: 'dev' }],
  });
  gw = await startGateway(loadTestConfig(yaml));
  openai = new OpenAI({ apiKey: KEY, baseURL: `${gw.url}/v1`, maxRetries: 0, fetch: recordingFetch(streams) });
});
afterAll(async () => {
  await gw?.close();
  for (const front of fronts.values()) await front.close();
  await up?.close();
});

/** One Responses call, JSON or through the SDK's stream helper (its raw stream checked for the documented order). */
async function create(params: Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, 'stream'>, stream: boolean) {
  if (!stream) return openai.responses.create({ ...params, stream: false });
  const before = streams.length;
  const res = await openai.responses.stream(params).finalResponse();
  const decoder = new SseDecoder();
  expect(responsesOrderViolations([...decoder.push(streams[before]), ...decoder.end()])).toEqual([]);
  return res;
}

describe.each(KINDS.flatMap((rig) => (['json', 'stream'] as const).map((mode) => [rig.kind, mode, rig] as const)))(
  'openai SDK responses → %s (%s)',
  (_kind, mode, rig) => {
    it('a tool round trip continued by previous_response_id', async () => {
      up.reset();
      const stream = mode === 'stream';
      const model = `${rig.kind}/m`;
      const first = await create({ model, input: 'what is the weather in Paris?', tools: TOOLS }, stream);
      expect(first.model).toBe(model);
      const call = first.output.find((o) => o.type === 'function_call');
      expect(call).toMatchObject({ type: 'function_call', name: 'get_weather' });
      if (call?.type !== 'function_call') throw new Error('no function call');
      expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris' });

      const second = await create(
        {
          model,
          previous_response_id: first.id,
          input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21C' }],
          tools: TOOLS,
        },
        stream,
      );
      expect(second.output_text).toBe('tool said: sunny, 21C');
      expect(second.status).toBe('completed');
      const calls = chatCalls(up, rig.format);
      expect(calls.map((c) => c.status)).toEqual([200, 200]);
      const sent = calls[1].body;
      if (rig.format === 'responses') {
        // The provider holds the conversation: its id and the new item only.
        expect(sent.previous_response_id).toBe(first.id);
        expect(sent.input).toEqual([{ type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21C' }]);
      } else {
        // The gateway holds it: the whole conversation, the question first.
        expect(sent.previous_response_id).toBeUndefined();
        expect(JSON.stringify(sent)).toContain('what is the weather in Paris?');
      }
      const front = fronts.get(rig)!;
      expect(front.secrets().sent).toContain(front.lastCall()?.credential);
    });
  },
);
