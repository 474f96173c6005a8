/**
 * GET /v1/models/{id} over real sockets and through both official SDKs: ids with a `/`, raw or
 * percent-encoded; the entry GET /v1/models lists, in the OpenAI shape or the Anthropic one
 * (`anthropic-version`); 403 for a known model outside the role, 404 for an unknown id, in the
 * caller's error format, with X-Correlation-ID.
 * @see https://platform.openai.com/docs/api-reference/models/retrieve
 * @see https://docs.anthropic.com/en/api/models
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatsGateway, OTHER_ROLE_KEY, TEST_KEY } from '../helpers/gateway-config.js';
import { configOf, type RunningGateway, startGateway } from '../helpers/start-gateway.js';

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
let gw: RunningGateway;

beforeAll(async () => {
  // No upstream is called: port 9 (discard) is never reached.
  gw = await startGateway(configOf(formatsGateway('http://127.0.0.1:9')));
});
afterAll(async () => {
  await gw?.close();
});

const openaiHeaders = (key = TEST_KEY) => ({ authorization: `Bearer ${key}` });
const anthropicHeaders = (key = TEST_KEY) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' });

async function get(path: string, headers: Record<string, string>) {
  const res = await fetch(`${gw.url}${path}`, { headers });
  expect(res.headers.get('x-correlation-id')).toMatch(ULID);
  return { status: res.status, body: await res.json() };
}

describe('GET /v1/models/{id}, OpenAI shape', () => {
  it('is the list entry, for an alias and a concrete id, raw or percent-encoded', async () => {
    const list = await get('/v1/models', openaiHeaders());
    for (const id of ['team/fast', 'up/gpt-test', 'local/echo']) {
      const entry = list.body.data.find((m: { id: string }) => m.id === id);
      expect(entry).toBeDefined();
      for (const path of [`/v1/models/${id}`, `/v1/models/${encodeURIComponent(id)}`]) {
        const r = await get(path, openaiHeaders());
        expect(r.status).toBe(200);
        expect(r.body).toEqual(entry);
      }
    }
    const alias = await get('/v1/models/team/fast', openaiHeaders());
    expect(alias.body).toEqual({
      id: 'team/fast',
      object: 'model',
      created: expect.any(Number),
      owned_by: 'team',
      kind: 'chat',
      context_window: 8192,
      max_output_tokens: 4096,
      targets: ['up/gpt-test', 'local/echo'],
    });
  });

  it('ignores a query string', async () => {
    expect((await get('/v1/models/local%2Fecho?x=1', openaiHeaders())).body.id).toBe('local/echo');
  });

  it('404 model_not_found for an unknown id, malformed escapes included', async () => {
    for (const path of [
      '/v1/models/nope/nothing',
      '/v1/models/team%2Fnothing',
      '/v1/models/gpt-4o',
      '/v1/models/%E0%A4%A',
    ]) {
      const r = await get(path, openaiHeaders());
      expect(r.status, path).toBe(404);
      expect(r.body.error).toMatchObject({
        code: 'model_not_found',
        type: expect.any(String),
        message: expect.any(String),
      });
    }
  });

  it('403 model_not_allowed for a known model outside the role; an alias the role may use is allowed', async () => {
    // viewer may use only local/echo: team/fast routes to it but is not its to name.
    for (const id of ['team/fast', 'up/gpt-test', 'up/other']) {
      const r = await get(`/v1/models/${id}`, openaiHeaders(OTHER_ROLE_KEY));
      expect(r.status, id).toBe(403);
      expect(r.body.error).toMatchObject({ code: 'model_not_allowed', param: 'model' });
    }
    // developer may name up/gpt-test but not up/other.
    expect((await get('/v1/models/up/other', openaiHeaders())).status).toBe(403);
    expect((await get('/v1/models/local/echo', openaiHeaders(OTHER_ROLE_KEY))).status).toBe(200);
  });

  it('401 without a key; 405 for POST; an empty id is no route', async () => {
    expect((await get('/v1/models/team/fast', {})).status).toBe(401);
    const post = await fetch(`${gw.url}/v1/models/team/fast`, { method: 'POST', headers: openaiHeaders(), body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    await post.arrayBuffer();
    const empty = await get('/v1/models/', openaiHeaders());
    expect(empty.status).toBe(404);
    expect(empty.body.error.code).toBe('route_not_found');
  });
});

describe('GET /v1/models/{id}, Anthropic shape', () => {
  it('is the Anthropic list entry (ModelInfo)', async () => {
    const list = await get('/v1/models?limit=1000', anthropicHeaders());
    for (const id of ['team/fast', 'up/gpt-test']) {
      const r = await get(`/v1/models/${encodeURIComponent(id)}`, anthropicHeaders());
      expect(r.status).toBe(200);
      expect(r.body).toEqual(list.body.data.find((m: { id: string }) => m.id === id));
    }
    const r = await get('/v1/models/up/gpt-test', anthropicHeaders());
    expect(r.body).toEqual({
      type: 'model',
      id: 'up/gpt-test',
      display_name: 'up/gpt-test',
      created_at: expect.any(String),
      max_input_tokens: 128000,
      max_tokens: 4096,
    });
    expect(new Date(r.body.created_at).toISOString()).toBe(r.body.created_at);
  });

  it('errors in the Anthropic shape: 404 not_found_error, 403 permission_error', async () => {
    const missing = await get('/v1/models/nope%2Fnothing', anthropicHeaders());
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: expect.stringContaining('nope/nothing') },
    });
    const denied = await get('/v1/models/team/fast', anthropicHeaders(OTHER_ROLE_KEY));
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      type: 'error',
      error: { type: 'permission_error', message: expect.stringContaining('team/fast') },
    });
  });
});

describe('the official SDKs', () => {
  it('openai: models.retrieve with a "/" in the id, and its errors', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const m = await client.models.retrieve('team/fast');
    expect(m).toMatchObject({ id: 'team/fast', object: 'model', owned_by: 'team' });
    await expect(client.models.retrieve('nope/nothing')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const viewer = new OpenAI({ apiKey: OTHER_ROLE_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    await expect(viewer.models.retrieve('team/fast')).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
  });

  it('anthropic: models.retrieve with a "/" in the id, and its errors', async () => {
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
    const m = await client.models.retrieve('team/fast');
    expect(m).toMatchObject({ type: 'model', id: 'team/fast', display_name: 'team/fast' });
    expect(Number.isNaN(Date.parse(m.created_at))).toBe(false);
    await expect(client.models.retrieve('nope/nothing')).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    const viewer = new Anthropic({ apiKey: OTHER_ROLE_KEY, baseURL: gw.url, maxRetries: 0 });
    await expect(viewer.models.retrieve('team/fast')).rejects.toBeInstanceOf(Anthropic.PermissionDeniedError);
  });
});
