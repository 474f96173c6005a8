/**
 * §1 of issue 11: caller and provider speak the same format → what the gateway does not know is
 * forwarded untouched and the provider decides (here the strict upstream, which accepts what the
 * real API accepts). The body is Claude Code 2.1.197's shape: a mid-conversation `system`
 * message, context_management, output_config.effort, adaptive thinking and its anthropic-beta list.
 */
import { useStrictRig } from '../helpers/strict-rig.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { anthropicHeaders, openaiHeaders } from '../helpers/start-gateway.js';

const rig = useStrictRig();
beforeEach(() => rig.up.reset());

const BETAS =
  'claude-code-20250219,interleaved-thinking-2025-05-14,thinking-token-count-2026-05-13,' +
  'context-management-2025-06-27,prompt-caching-scope-2026-01-05,mid-conversation-system-2026-04-07,' +
  'effort-2025-11-24,some-future-beta-2027-01-01';

const claudeCodeBody = (model: string, stream: boolean) => ({
  model,
  max_tokens: 32000,
  stream,
  system: [{ type: 'text', text: 'You are a Claude agent.', cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Say hello', cache_control: { type: 'ephemeral' } }] },
    { role: 'system', content: 'Available agent types: claude.' },
  ],
  tools: [
    {
      name: 'Read',
      description: 'Read a file',
      input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
    },
  ],
  metadata: { user_id: '{"device_id":"x"}' },
  thinking: { type: 'adaptive' },
  output_config: { effort: 'high' },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
});

function post(path: string, body: unknown, headers: Record<string, string>) {
  return fetch(`${rig.gw.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
}

describe('Anthropic → Anthropic pass-through forwards what the gateway does not know', () => {
  for (const stream of [false, true]) {
    it(
      `Claude Code's body through an alias to Sonnet 4.6, ${stream ? 'streamed' : 'JSON'}: bytes up but for ` +
        `model, betas forwarded`,
      async () => {
        const body = claudeCodeBody('ant/claude46', stream);
        const res = await post('/v1/messages', body, anthropicHeaders({ 'anthropic-beta': BETAS }));
        const text = await res.text();
        expect(res.status, text).toBe(200);
        const got = rig.up.last('/v1/messages')!;
        expect(got.status).toBe(200);
        expect(got.rawBody).toBe(JSON.stringify(body).replace('"ant/claude46"', '"claude-sonnet-4-6"'));
        expect(got.headers['anthropic-beta']).toBe(BETAS);
        expect(res.headers.get('x-gateway-dropped-fields')).toBeNull();
        expect(res.headers.get('x-gateway-rewritten-fields')).toBeNull();
      },
    );
  }

  it("the same body to Sonnet 4.5: adaptive thinking as the effort's budget, the effort dropped, named", async () => {
    const body = claudeCodeBody('team/claude', true);
    const res = await post('/v1/messages', body, anthropicHeaders({ 'anthropic-beta': BETAS }));
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const got = rig.up.last('/v1/messages')!;
    expect(got.status).toBe(200);
    const { output_config: _, ...rest } = body;
    expect(got.body).toEqual({
      ...rest,
      model: 'claude-sonnet-4-5',
      thinking: { type: 'enabled', budget_tokens: 16384 },
    });
    expect(res.headers.get('x-gateway-rewritten-fields')).toBe('thinking');
    expect(res.headers.get('x-gateway-dropped-fields')).toBe('output_config.effort');
    const lines = rig.gw.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' || l.message === 'request');
    const line = lines.at(-1);
    expect([line?.rewritten_fields, line?.dropped_fields]).toEqual([['thinking'], ['output_config.effort']]);
  });

  it('an unknown top-level field, role and block type reach the provider, which decides', async () => {
    const body = {
      model: 'ant/claude',
      max_tokens: 100,
      brand_new_field: { a: 1 },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'hologram', data: 'x' },
          ],
        },
        { role: 'narrator', content: 'x' },
      ],
    };
    const res = await post('/v1/messages', body, anthropicHeaders());
    expect(res.status).toBe(400);
    const err = await res.json();
    // The provider's refusal, not the gateway's.
    expect(err.error.message).toMatch(/brand_new_field: Extra inputs are not permitted/);
    expect(rig.up.last('/v1/messages')!.body).toEqual({ ...body, model: 'claude-sonnet-4-5' });
  });

  it("count_tokens with Claude Code's betas and a mid-conversation system message is forwarded as sent", async () => {
    const { max_tokens: _m, stream: _s, metadata: _md, ...count } = claudeCodeBody('team/claude', false);
    const res = await post('/v1/messages/count_tokens', count, anthropicHeaders({ 'anthropic-beta': BETAS }));
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(JSON.parse(text).input_tokens).toBeGreaterThan(0);
    const got = rig.up.last('/v1/messages/count_tokens')!;
    expect(got.body).toEqual({ ...count, model: 'claude-sonnet-4-5' });
    expect(got.headers['anthropic-beta']).toBe(BETAS);
  });
});

describe('OpenAI → OpenAI pass-through forwards what the gateway does not know', () => {
  it('a field and a content-part type the gateway does not know reach the provider, which decides', async () => {
    const body = {
      model: 'oai/gpt',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 10,
      verbosity: 'low',
      brand_new_field: 1,
    };
    const res = await post('/v1/chat/completions', body, openaiHeaders());
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(/Unrecognized request argument supplied: brand_new_field/);
    expect(rig.up.last()!.body).toEqual({ ...body, model: 'gpt-4o' });
  });
});
