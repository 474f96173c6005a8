/**
 * Which `model` a response carries (README, "The model a response names"): the name the caller
 * sent, on every path — pass-through, translated, the mock — in JSON and in every stream event
 * that has one (Claude Code keeps its signed thinking only when the two match); `x-gateway-model`
 * is always the concrete gateway id that served. A pass-through body that names no model is left
 * without one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerBody, answerEvents, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { SCRIPTED_KEY, scriptedGateway } from '../helpers/gateway-config.js';
import { readSse } from '../helpers/sse.js';
import { configOf, loadTestConfig, startGateway, type RunningGateway } from '../helpers/start-gateway.js';

let up: FakeUpstream;
let gw: RunningGateway;
let bare: FakeUpstream;
let bareGw: RunningGateway;

const KEY = 'response-model-key-0001';

beforeAll(async () => {
  up = await startFakeUpstream();
  gw = await startGateway(configOf(scriptedGateway(up.url)));
  // An OpenAI-format upstream whose responses and chunks name no model at all.
  const noModel = (json: string) => json.replace(/"model":"[^"]*",/, '');
  bare = await startFakeUpstream({
    handler: (req) => {
      const content = { text: ['hi'], model: 'x', usage: { input: 3, output: 1 } };
      if (!req.body?.stream)
        return { kind: 'json', body: JSON.parse(noModel(JSON.stringify(answerBody('openai', content)))) };
      return { kind: 'sse', events: answerEvents('openai', content, { includeUsage: true }).map(noModel) };
    },
  });
  bareGw = await startGateway(
    loadTestConfig(`
server: { host: 127.0.0.1, port: 0 }
routing: { retry: { max_retries: 0 } }
providers:
  bare:
    api: openai
    base_url: ${bare.url}/v1
    api_key: sk-bare-provider-key-0001
    timeouts: { connect_ms: 2000, first_byte_ms: 3000, total_ms: 10000 }
    models:
      x: { context_window: 1000, upstream_name: bare-x-2025 }
roles:
  all: { models: ["*"] }
keys:
  - { id: k, key: ${KEY}, role: all }
`),
  );
});
afterAll(async () => {
  await gw?.close();
  await bareGw?.close();
  await up?.close();
  await bare?.close();
});

type Caller = 'openai' | 'anthropic';

function call(base: string, key: string, caller: Caller, model: string, stream: boolean) {
  const body = { model, max_tokens: 50, stream, messages: [{ role: 'user', content: 'hello there' }] };
  const headers: Record<string, string> =
    caller === 'openai'
      ? { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
      : { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
  return fetch(`${base}${caller === 'openai' ? '/v1/chat/completions' : '/v1/messages'}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
}

/** Every `model` the response names: the body's, or each stream event's. */
async function modelsNamed(res: Response, caller: Caller, stream: boolean): Promise<string[]> {
  if (!stream) return [(await res.json()).model];
  const events = await readSse(res);
  if (caller === 'openai') {
    return events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data).model);
  }
  return events.filter((e) => e.event === 'message_start').map((e) => JSON.parse(e.data).message.model);
}

describe('the model a response names', () => {
  const cases = [{ model: 'oai/m' }, { model: 'ant/m' }, { model: 'local/echo' }];
  for (const caller of ['openai', 'anthropic'] as const) {
    for (const stream of [false, true]) {
      it.each(cases)(
        `${caller} caller, stream ${stream}: $model is the model every part of the answer names`,
        async ({ model }) => {
          const res = await call(gw.url, SCRIPTED_KEY, caller, model, stream);
          expect(res.status).toBe(200);
          expect(res.headers.get('x-gateway-model')).toBe(model);
          const named = await modelsNamed(res, caller, stream);
          expect(named.length).toBeGreaterThan(0);
          for (const m of named) expect(m).toBe(model);
        },
      );
    }
  }

  it('an upstream that names no model: translated responses and streams name the one the caller sent', async () => {
    for (const stream of [false, true]) {
      const res = await call(bareGw.url, KEY, 'anthropic', 'bare/x', stream);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-gateway-model')).toBe('bare/x');
      expect(await modelsNamed(res, 'anthropic', stream)).toEqual(['bare/x']);
    }
  });

  it('an upstream that names no model: pass-through bytes stay as they came', async () => {
    const res = await call(bareGw.url, KEY, 'openai', 'bare/x', false);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-model')).toBe('bare/x');
    expect(await res.json()).not.toHaveProperty('model');
  });
});
