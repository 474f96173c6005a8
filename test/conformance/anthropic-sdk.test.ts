/**
 * The official `@anthropic-ai/sdk` against the gateway: the built-in mock (`local/echo`), an
 * OpenAI-format upstream (`oai/m`) and an Anthropic-format upstream (`ant/m`), the last two played
 * by test/helpers/fake-upstream.ts (set up as SCRIPTED). Token counting, the Anthropic model list with paging,
 * x-api-key auth, error classes, header forwarding and credential isolation.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SseDecoder } from '../../src/sse/decode.js';
import { assertAnthropicStreamOrder } from '../helpers/anthropic-order.js';
import { COUNT_TOKENS_BASE, type FakeUpstream, SCRIPTED, startFakeUpstream } from '../helpers/fake-upstream.js';
import {
  ANT_SECRET,
  OAI_SECRET,
  SCRIPTED_KEY,
  SCRIPTED_LIMITED_KEY,
  scriptedGateway,
} from '../helpers/gateway-config.js';
import { recordingFetch } from '../helpers/sse.js';
import { configOf, startGateway, type RunningGateway } from '../helpers/start-gateway.js';

let up: FakeUpstream;
let gw: RunningGateway;
let client: Anthropic;
const streams: string[] = [];
/** Headers of every request the SDK client sent. */
const sent: Array<Record<string, string>> = [];

beforeAll(async () => {
  up = await startFakeUpstream(SCRIPTED);
  gw = await startGateway(configOf(scriptedGateway(up.url)));
  client = new Anthropic({
    apiKey: SCRIPTED_KEY,
    baseURL: gw.url,
    maxRetries: 0,
    fetch: recordingFetch(streams, sent),
  });
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
});
beforeEach(() => {
  up.reset();
  streams.length = 0;
  sent.length = 0;
});

const ALL_MODELS = ['ant/m', 'local/echo', 'oai/m', 'resp/m'];
const hi: Anthropic.MessageParam[] = [{ role: 'user', content: 'hello there' }];

function lastStream() {
  expect(streams.length, 'a raw stream was captured').toBeGreaterThan(0);
  const d = new SseDecoder();
  return [...d.push(streams.at(-1)!), ...d.end()];
}

describe.each([
  { model: 'local/echo', reply: 'hello there' },
  { model: 'oai/m', reply: 'echo: hello there' },
  { model: 'ant/m', reply: 'echo: hello there' },
])('$model', ({ model, reply }) => {
  it('messages.create', async () => {
    const msg = await client.messages.create({ model, max_tokens: 100, messages: hi });
    expect(msg).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
    expect(msg.content).toEqual([expect.objectContaining({ type: 'text', text: reply })]);
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
    expect(msg.usage.output_tokens).toBeGreaterThan(0);
  });

  it('messages.stream().finalMessage(), the raw stream in Anthropic order', async () => {
    const msg = await client.messages.stream({ model, max_tokens: 100, messages: hi }).finalMessage();
    expect(msg.content).toEqual([expect.objectContaining({ type: 'text', text: reply })]);
    expect(msg.stop_reason).toBe('end_turn');
    assertAnthropicStreamOrder(lastStream());
  });

  it('messages.countTokens', async () => {
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'an answer' },
      { role: 'user', content: 'second question' },
    ];
    const { data, response } = await client.messages
      .countTokens({ model, system: 'be terse', messages })
      .withResponse();
    if (model === 'ant/m') {
      // The Anthropic upstream's own count, scripted as 1000 + number of messages.
      expect(data.input_tokens).toBe(COUNT_TOKENS_BASE + 3);
      expect(response.headers.get('x-gateway-token-count')).toBe('upstream');
      const [u] = up.on('/v1/messages/count_tokens');
      expect(u.body).toMatchObject({
        model: 'm',
        messages: [{ role: 'user' }, { role: 'assistant' }, { role: 'user' }],
      });
      expect(u.body).not.toHaveProperty('max_tokens');
      expect(u.headers['x-api-key']).toBe(ANT_SECRET);
      expect(u.headers['anthropic-version']).toBe(sent[0]['anthropic-version']);
    } else {
      expect(data.input_tokens).toBeGreaterThan(0);
      expect(data.input_tokens).toBeLessThan(COUNT_TOKENS_BASE);
      expect(response.headers.get('x-gateway-token-count')).toMatch(/^local-/);
      expect(up.received).toEqual([]);
    }
  });
});

describe('models.list (Anthropic shape)', () => {
  it('lists the role’s models with the Anthropic fields', async () => {
    const page = await client.models.list();
    expect(page.data.map((m) => m.id)).toEqual(ALL_MODELS);
    for (const m of page.data) {
      expect(m).toMatchObject({ type: 'model', id: expect.any(String), display_name: expect.any(String) });
      expect(Number.isNaN(Date.parse(m.created_at))).toBe(false);
      const extra = m as unknown as { max_input_tokens: number; max_tokens: number };
      expect(extra.max_input_tokens).toBeGreaterThan(0);
      expect(extra.max_tokens).toBeGreaterThan(0);
    }
    const ant = page.data.find((m) => m.id === 'ant/m') as unknown as { max_input_tokens: number; max_tokens: number };
    expect(ant.max_input_tokens).toBe(100000);
    expect(ant.max_tokens).toBe(1000);
    expect(page.has_more).toBe(false);
    expect(page.first_id).toBe('ant/m');
    expect(page.last_id).toBe('resp/m');
  });

  it('pages with limit / after_id through the SDK’s auto-pagination', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list({ limit: 1 })) ids.push(m.id);
    expect(ids).toEqual(ALL_MODELS);
  });

  it('pages with limit / after_id / before_id over raw HTTP', async () => {
    const get = async (q: string) => {
      const res = await fetch(`${gw.url}/v1/models${q}`, {
        headers: { 'x-api-key': SCRIPTED_KEY, 'anthropic-version': '2023-06-01' },
      });
      expect(res.status).toBe(200);
      return res.json();
    };
    const p1 = await get('?limit=2');
    expect(p1).toMatchObject({ has_more: true, first_id: 'ant/m', last_id: 'local/echo' });
    expect(p1.data.map((m: { id: string }) => m.id)).toEqual(['ant/m', 'local/echo']);
    const p2 = await get(`?limit=2&after_id=${encodeURIComponent(p1.last_id)}`);
    expect(p2).toMatchObject({ has_more: false, first_id: 'oai/m', last_id: 'resp/m' });
    const back = await get(`?limit=1&before_id=${encodeURIComponent('oai/m')}`);
    expect(back).toMatchObject({ has_more: true, first_id: 'local/echo', last_id: 'local/echo' });
  });

  it('lists only what the role allows', async () => {
    const limited = new Anthropic({ apiKey: SCRIPTED_LIMITED_KEY, baseURL: gw.url, maxRetries: 0 });
    const page = await limited.models.list();
    expect(page.data.map((m) => m.id)).toEqual(['local/echo']);
  });
});

describe('authentication and authorisation', () => {
  it('accepts the key the way the SDK sends it', async () => {
    // @anthropic-ai/sdk 1.x sends `Authorization: Bearer <apiKey>` (0.x sent `x-api-key`).
    const msg = await client.messages.create({ model: 'local/echo', max_tokens: 10, messages: hi });
    expect(msg.type).toBe('message');
    expect(sent[0].authorization).toBe(`Bearer ${SCRIPTED_KEY}`);
  });

  it('accepts the key in x-api-key alone (older SDKs, curl examples)', async () => {
    const viaHeader = new Anthropic({
      apiKey: null,
      baseURL: gw.url,
      maxRetries: 0,
      defaultHeaders: { 'x-api-key': SCRIPTED_KEY },
      fetch: recordingFetch(streams, sent),
    });
    const msg = await viaHeader.messages.create({ model: 'local/echo', max_tokens: 10, messages: hi });
    expect(msg.type).toBe('message');
    expect(sent[0]['x-api-key']).toBe(SCRIPTED_KEY);
    expect(sent[0].authorization).toBeUndefined();
    const res = await fetch(`${gw.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': SCRIPTED_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local/echo', messages: hi }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).input_tokens).toBeGreaterThan(0);
  });

  it('wrong key → AuthenticationError', async () => {
    const bad = new Anthropic({ apiKey: 'not-a-gateway-key-000', baseURL: gw.url, maxRetries: 0 });
    const err = await bad.messages
      .create({ model: 'local/echo', max_tokens: 10, messages: hi })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((err as { status?: number }).status).toBe(401);
    await expect(bad.models.list()).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    await expect(bad.messages.countTokens({ model: 'local/echo', messages: hi })).rejects.toBeInstanceOf(
      Anthropic.AuthenticationError,
    );
  });

  it('unknown model → NotFoundError', async () => {
    await expect(
      client.messages.create({ model: 'nope/nothing', max_tokens: 10, messages: hi }),
    ).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    await expect(client.messages.countTokens({ model: 'nope/nothing', messages: hi })).rejects.toBeInstanceOf(
      Anthropic.NotFoundError,
    );
    expect(up.received).toEqual([]);
  });

  it('model outside the role → PermissionDeniedError', async () => {
    const limited = new Anthropic({ apiKey: SCRIPTED_LIMITED_KEY, baseURL: gw.url, maxRetries: 0 });
    await expect(limited.messages.create({ model: 'ant/m', max_tokens: 10, messages: hi })).rejects.toBeInstanceOf(
      Anthropic.PermissionDeniedError,
    );
    await expect(
      limited.messages.stream({ model: 'oai/m', max_tokens: 10, messages: hi }).finalMessage(),
    ).rejects.toBeInstanceOf(Anthropic.PermissionDeniedError);
    await expect(limited.messages.countTokens({ model: 'ant/m', messages: hi })).rejects.toBeInstanceOf(
      Anthropic.PermissionDeniedError,
    );
    expect(up.received).toEqual([]);
    // …while its own models work.
    const ok = await limited.messages.create({ model: 'local/echo', max_tokens: 10, messages: hi });
    expect(ok.type).toBe('message');
  });
});

describe('headers towards the upstream', () => {
  it('passes the caller’s anthropic-version and anthropic-beta on to the Anthropic upstream', async () => {
    const beta = 'prompt-caching-2024-07-31,token-efficient-tools-2025-02-19';
    await client.messages.create(
      { model: 'ant/m', max_tokens: 10, messages: hi },
      { headers: { 'anthropic-beta': beta } },
    );
    await client.messages
      .stream({ model: 'ant/m', max_tokens: 10, messages: hi }, { headers: { 'anthropic-beta': beta } })
      .finalMessage();
    await client.messages.countTokens({ model: 'ant/m', messages: hi }, { headers: { 'anthropic-beta': beta } });
    expect(up.received.map((r) => r.path)).toEqual(['/v1/messages', '/v1/messages', '/v1/messages/count_tokens']);
    const sdkVersion = sent[0]['anthropic-version'];
    expect(sdkVersion).toEqual(expect.any(String));
    for (const r of up.received) {
      expect(r.headers['anthropic-version']).toBe(sdkVersion);
      expect(r.headers['anthropic-beta']).toBe(beta);
    }
    // A version other than the SDK's default is passed on as sent, not replaced.
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': SCRIPTED_KEY, 'anthropic-version': '2024-10-22', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'ant/m', max_tokens: 10, messages: hi }),
    });
    expect(res.status).toBe(200);
    expect(up.received.at(-1)!.headers['anthropic-version']).toBe('2024-10-22');
    expect(up.received.at(-1)!.headers).not.toHaveProperty('anthropic-beta');
  });

  it('sends no anthropic-* headers to an OpenAI-format upstream', async () => {
    await client.messages.create(
      { model: 'oai/m', max_tokens: 10, messages: hi },
      { headers: { 'anthropic-beta': 'some-beta' } },
    );
    const [u] = up.received;
    expect(u.path).toBe('/v1/chat/completions');
    expect(Object.keys(u.headers).filter((h) => h.startsWith('anthropic-'))).toEqual([]);
  });

  it('never passes the gateway key on; each upstream sees its provider key in its own header', async () => {
    await client.messages.create({ model: 'ant/m', max_tokens: 10, messages: hi });
    await client.messages.stream({ model: 'ant/m', max_tokens: 10, messages: hi }).finalMessage();
    await client.messages.countTokens({ model: 'ant/m', messages: hi });
    await client.messages.create({ model: 'oai/m', max_tokens: 10, messages: hi });
    await client.messages.stream({ model: 'oai/m', max_tokens: 10, messages: hi }).finalMessage();
    // The same with the gateway key in x-api-key instead of Authorization.
    const viaHeader = new Anthropic({
      apiKey: null,
      baseURL: gw.url,
      maxRetries: 0,
      defaultHeaders: { 'x-api-key': SCRIPTED_KEY },
    });
    await viaHeader.messages.create({ model: 'ant/m', max_tokens: 10, messages: hi });
    await viaHeader.messages.countTokens({ model: 'ant/m', messages: hi });
    await viaHeader.messages.create({ model: 'oai/m', max_tokens: 10, messages: hi });
    expect(up.received).toHaveLength(8);
    for (const r of up.received) {
      expect(JSON.stringify(r.headers)).not.toContain(SCRIPTED_KEY);
      expect(r.rawBody).not.toContain(SCRIPTED_KEY);
      if (r.path.startsWith('/v1/messages')) {
        expect(r.headers['x-api-key']).toBe(ANT_SECRET);
        expect(r.headers.authorization).toBeUndefined();
      } else {
        expect(r.headers.authorization).toBe(`Bearer ${OAI_SECRET}`);
        expect(r.headers['x-api-key']).toBeUndefined();
      }
    }
  });
});
