/**
 * Guardrails see what the model sees, over real sockets: a block rule fires whatever field of the
 * body carries the word (every content part, tool-call arguments as a JSON string or an object,
 * tool definitions, message names, system blocks, response schemas, fields the gateway does not
 * know) and however it is disguised (zero-width characters, soft hyphens, fullwidth letters); a
 * redaction reaches the upstream in those fields too. Also the per-role policy for what runs on
 * the gateway's provider account: Anthropic server tools (allowed by default) and `mcp_servers`
 * (refused by default).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GUARD } from '../helpers/guard-webhook.js';
import { loadTestConfig, startGateway, type RunningGateway } from '../helpers/start-gateway.js';

const KEY = 'coverage-gateway-key-0001';
const KEY_LOCKED = 'coverage-gateway-key-0002';
const KEY_MCP = 'coverage-gateway-key-0003';
const WORD = 'bluebird';

let upstream: FakeUpstream;
let gw: RunningGateway | undefined;

beforeAll(async () => {
  // Bodies here carry what the APIs refuse (object arguments, unknown and beta-only fields without
  // their beta header): the tests check the guardrails see them and the gateway forwards them as sent.
  upstream = await startFakeUpstream({ ...GUARD, accept: { anyBody: true } });
});
afterAll(async () => {
  await upstream.close();
});
afterEach(async () => {
  try {
    if (gw) expect(gw.logs.join('\n').toLowerCase()).not.toContain(WORD);
  } finally {
    await gw?.close();
    gw = undefined;
    upstream.calls.length = 0;
  }
});

/**
 * `rule`: one YAML guardrail list item. Roles: dev (defaults), locked (server_tools: deny), mcp (mcp_servers: allow).
 */
async function start(
  rule = `  - { id: no-bird, applies_to: input, check: { type: keywords, words: [${WORD}] }, action: block }`,
): Promise<RunningGateway> {
  gw = await startGateway(
    loadTestConfig(`
server: { host: 127.0.0.1, port: 0, body_limit: 1mb, shutdown_grace_ms: 1000 }
routing: { retry: { max_retries: 0 } }
providers:
  oai:
    api: openai
    base_url: ${upstream.url}/v1
    api_key: sk-coverage-oai-0001
    models: { m: { context_window: 100000, max_output_tokens: 1000 } }
  ant:
    api: anthropic
    base_url: ${upstream.url}
    api_key: sk-ant-coverage-0001
    models: { m: { context_window: 100000, max_output_tokens: 1000 } }
roles:
  dev: { models: ["*"] }
  locked: { models: ["*"], server_tools: deny }
  mcp: { models: ["*"], mcp_servers: allow }
keys:
  - { id: dev, key: ${KEY}, role: dev }
  - { id: locked, key: ${KEY_LOCKED}, role: locked }
  - { id: mcp, key: ${KEY_MCP}, role: mcp }
guardrails:
${rule}
`),
  );
  return gw;
}

type Endpoint = 'openai' | 'anthropic';
type Json = Record<string, unknown>;

function post(ep: Endpoint, body: Json, key = KEY): Promise<Response> {
  return ep === 'openai'
    ? fetch(`${gw!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'oai/m', ...body }),
      })
    : fetch(`${gw!.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'ant/m', max_tokens: 50, ...body }),
      });
}

const user = (content: unknown) => ({ role: 'user', content });
const schema = (description: string) => ({ type: 'object', properties: { q: { type: 'string', description } } });

/** One body per place a text can hide, per endpoint (the upstream of the same format gets it as sent). */
const OPENAI: Array<[string, Json]> = [
  [
    'second content part',
    {
      messages: [
        user([
          { type: 'text', text: 'hi' },
          { type: 'text', text: `about ${WORD}` },
        ]),
      ],
    },
  ],
  [
    'tool-call arguments (JSON string)',
    {
      messages: [
        user('go'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: `{"q":"${WORD}"}` } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
    },
  ],
  [
    'tool-call arguments (object)',
    {
      messages: [
        user('go'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: { q: WORD } } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
    },
  ],
  [
    'tool description',
    {
      messages: [user('hi')],
      tools: [{ type: 'function', function: { name: 'f', description: `find the ${WORD}`, parameters: schema('q') } }],
    },
  ],
  [
    'tool name',
    { messages: [user('hi')], tools: [{ type: 'function', function: { name: WORD, parameters: schema('q') } }] },
  ],
  [
    'tool schema',
    { messages: [user('hi')], tools: [{ type: 'function', function: { name: 'f', parameters: schema(`a ${WORD}`) } }] },
  ],
  ['message name', { messages: [{ role: 'user', name: WORD, content: 'hi' }] }],
  [
    'system content parts',
    {
      messages: [
        {
          role: 'system',
          content: [
            { type: 'text', text: 'be brief' },
            { type: 'text', text: WORD },
          ],
        },
        user('hi'),
      ],
    },
  ],
  [
    'response_format json_schema',
    {
      messages: [user('hi')],
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: schema(WORD) } },
    },
  ],
  ['unknown top-level string field', { messages: [user('hi')], x_note: `the ${WORD}` }],
  ['zero-width space inside the word', { messages: [user('blue\u200Bbird')] }],
  ['fullwidth letters', { messages: [user('ｂｌｕｅｂｉｒｄ')] }],
  ['soft hyphen inside the word', { messages: [user('blue\u00ADbird')] }],
];

const ANTHROPIC: Array<[string, Json]> = [
  [
    'second content part',
    {
      messages: [
        user([
          { type: 'text', text: 'hi' },
          { type: 'text', text: `about ${WORD}` },
        ]),
      ],
    },
  ],
  [
    'tool_use input (object)',
    {
      messages: [
        user('go'),
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: { q: WORD } }] },
        user([{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }]),
      ],
    },
  ],
  [
    'tool description',
    { messages: [user('hi')], tools: [{ name: 'f', description: `find the ${WORD}`, input_schema: schema('q') }] },
  ],
  ['tool name', { messages: [user('hi')], tools: [{ name: WORD, input_schema: schema('q') }] }],
  ['tool schema', { messages: [user('hi')], tools: [{ name: 'f', input_schema: schema(`a ${WORD}`) }] }],
  [
    'system blocks',
    {
      system: [
        { type: 'text', text: 'be brief' },
        { type: 'text', text: WORD },
      ],
      messages: [user('hi')],
    },
  ],
  [
    'output_format schema (a field the gateway does not know)',
    { messages: [user('hi')], output_format: { type: 'json_schema', schema: schema(WORD) } },
  ],
  ['unknown top-level string field', { messages: [user('hi')], x_note: `the ${WORD}` }],
  [
    'server tool settings',
    {
      messages: [user('hi')],
      tools: [{ type: 'web_search_20250305', name: 'web_search', allowed_domains: [`${WORD}.example`] }],
    },
  ],
  [
    'an earlier server tool result',
    {
      messages: [
        user('news?'),
        {
          role: 'assistant',
          content: [
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'news' } },
            {
              type: 'web_search_tool_result',
              tool_use_id: 'srvtoolu_1',
              content: [
                {
                  type: 'web_search_result',
                  url: 'https://n.example',
                  title: `${WORD} sighted`,
                  encrypted_content: 'EqgfCioIARgBIiQ3',
                },
              ],
            },
          ],
        },
        user('more'),
      ],
    },
  ],
  ['zero-width space inside the word', { messages: [user('blue\u200Bbird')] }],
  ['fullwidth letters', { messages: [user('ｂｌｕｅｂｉｒｄ')] }],
  ['soft hyphen inside the word', { messages: [user('blue\u00ADbird')] }],
];

async function expectBlocked(ep: Endpoint, res: Response): Promise<void> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(400);
  const message = 'The request was blocked by guardrail "no-bird".';
  if (ep === 'openai')
    expect(body).toEqual({
      error: { message, type: 'invalid_request_error', param: 'guardrail:no-bird', code: 'guardrail_blocked' },
    });
  else expect(body).toEqual({ type: 'error', error: { type: 'invalid_request_error', message } });
  expect(upstream.calls).toHaveLength(0);
}

describe('a block rule sees every text the model receives', () => {
  it.each(OPENAI)('/v1/chat/completions: %s', async (_name, body) => {
    await start();
    await expectBlocked('openai', await post('openai', body));
  });
  it.each(ANTHROPIC)('/v1/messages: %s', async (_name, body) => {
    await start();
    await expectBlocked('anthropic', await post('anthropic', body, KEY_MCP));
  });
  it('/v1/messages: an MCP server the role may use is read too', async () => {
    await start();
    await expectBlocked(
      'anthropic',
      await post(
        'anthropic',
        { messages: [user('hi')], mcp_servers: [{ type: 'url', url: 'https://mcp.example', name: WORD }] },
        KEY_MCP,
      ),
    );
  });
  it.each(['openai', 'anthropic'] as const)(
    '%s: without the word anywhere, the same kinds of request are served',
    async (ep) => {
      await start();
      const clean = (ep === 'openai' ? OPENAI : ANTHROPIC).map(
        ([, b]) => JSON.parse(JSON.stringify(b).replace(/blue[\u200b\u00ad]?bird|ｂｌｕｅｂｉｒｄ/gi, 'robin')) as Json,
      );
      for (const b of clean) {
        const res = await post(ep, b, KEY_MCP);
        expect(res.status, `${JSON.stringify(b)} → ${await res.clone().text()}`).toBe(200);
        await res.text();
      }
      expect(upstream.calls).toHaveLength(clean.length);
    },
  );
});

describe('a redaction reaches the upstream in every field, the rest of the request as sent', () => {
  const REDACT = `  - { id: bird, applies_to: input, check: { type: keywords, words: [${WORD}] }, action: redact }`;

  it(
    'OpenAI → OpenAI: message name, tool description, ' + 'object arguments, an unknown field and a disguised word',
    async () => {
      await start(REDACT);
      const res = await post('openai', {
        seed: 7,
        x_note: `the ${WORD} note`,
        messages: [
          { role: 'user', name: WORD, content: 'call it' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: { q: WORD } } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'ok' },
          user('the blue\u200Bbird, not the wren'),
        ],
        tools: [
          { type: 'function', function: { name: 'f', description: `find the ${WORD}`, parameters: schema('q') } },
        ],
      });
      expect(res.status).toBe(200);
      await res.text();
      const call = upstream.calls[0]!;
      expect(call.rawBody.toLowerCase()).not.toContain(WORD);
      expect(call.rawBody).not.toContain('blue\u200Bbird');
      const b = call.body;
      expect(b.seed).toBe(7);
      expect(b.x_note).toBe('the [REDACTED:keyword] note');
      expect(b.messages[0]).toEqual({ role: 'user', name: '[REDACTED:keyword]', content: 'call it' });
      expect(b.messages[1].tool_calls[0].function.arguments).toEqual({ q: '[REDACTED:keyword]' });
      // The disguised word is replaced as a whole, its zero-width space included; the rest stays.
      expect(b.messages[3].content).toBe('the [REDACTED:keyword], not the wren');
      expect(b.tools[0].function).toEqual({
        name: 'f',
        description: 'find the [REDACTED:keyword]',
        parameters: schema('q'),
      });
    },
  );

  it(
    'Anthropic → OpenAI (translated): ' + 'the redacted tool definition and system block are what get translated',
    async () => {
      await start(REDACT);
      const res = await post('anthropic', {
        model: 'oai/m',
        system: [{ type: 'text', text: `watch the ${WORD}` }],
        messages: [user('ｂｌｕｅｂｉｒｄ?')],
        tools: [{ name: 'f', description: `find the ${WORD}`, input_schema: schema(`which ${WORD}`) }],
      });
      expect(res.status).toBe(200);
      await res.text();
      const b = upstream.calls[0]!.body;
      expect(upstream.calls[0]!.path).toBe('/v1/chat/completions');
      expect(upstream.calls[0]!.rawBody.toLowerCase()).not.toContain(WORD);
      expect(b.messages[0]).toEqual({ role: 'system', content: 'watch the [REDACTED:keyword]' });
      expect(b.messages[1].content).toBe('[REDACTED:keyword]?');
      expect(b.tools[0].function.description).toBe('find the [REDACTED:keyword]');
      expect(b.tools[0].function.parameters).toEqual(schema('which [REDACTED:keyword]'));
    },
  );
});

describe('server tools and MCP servers: what runs on the gateway’s account, per role', () => {
  const WEB_SEARCH = { type: 'web_search_20250305', name: 'web_search', max_uses: 3 };
  const MCP = [{ type: 'url', url: 'https://mcp.example/sse', name: 'tickets' }];

  it('mcp_servers are refused by default: 403 permission_error naming the field, nothing sent upstream', async () => {
    await start();
    const res = await post('anthropic', { messages: [user('hi')], mcp_servers: MCP });
    expect(res.status).toBe(403);
    const body = await res.json();
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('permission_error');
    expect(body.error.message).toContain("'mcp_servers'");
    expect(upstream.calls).toHaveLength(0);
    // The OpenAI endpoint says the same in its own format.
    const oai = await post('openai', { messages: [user('hi')], mcp_servers: MCP });
    expect(oai.status).toBe(403);
    expect((await oai.json()).error).toMatchObject({
      type: 'permission_error',
      param: 'mcp_servers',
      code: 'tool_not_allowed',
    });
    expect(upstream.calls).toHaveLength(0);
  });

  it(
    'mcp_servers are forwarded as sent for a role with mcp_servers: allow; ' + 'an empty list needs no permission',
    async () => {
      await start();
      const res = await post('anthropic', { messages: [user('hi')], mcp_servers: MCP }, KEY_MCP);
      expect(res.status).toBe(200);
      await res.text();
      expect(upstream.calls[0]!.body.mcp_servers).toEqual(MCP);
      const empty = await post('anthropic', { messages: [user('hi')], mcp_servers: [] });
      expect(empty.status).toBe(200);
      await empty.text();
    },
  );

  it('a server tool is allowed by default and forwarded as sent', async () => {
    await start();
    const res = await post('anthropic', { messages: [user('what is new?')], tools: [WEB_SEARCH] });
    expect(res.status).toBe(200);
    await res.text();
    expect(upstream.calls[0]!.body.tools).toEqual([WEB_SEARCH]);
  });

  it(
    'a role with server_tools: deny gets 403 naming tools[i]; ' + 'client-executed Anthropic tools stay allowed',
    async () => {
      await start();
      const bash = { type: 'bash_20250124', name: 'bash' };
      const res = await post('anthropic', { messages: [user('hi')], tools: [bash, WEB_SEARCH] }, KEY_LOCKED);
      expect(res.status).toBe(403);
      const body = await res.json();
      expect(body.error.type).toBe('permission_error');
      expect(body.error.message).toContain("'tools[1]'");
      expect(upstream.calls).toHaveLength(0);
      const ok = await post('anthropic', { messages: [user('hi')], tools: [bash] }, KEY_LOCKED);
      expect(ok.status).toBe(200);
      await ok.text();
    },
  );

  it('a server tool cannot be translated to an OpenAI-format model: 400 naming it', async () => {
    await start();
    const res = await post('anthropic', { model: 'oai/m', messages: [user('hi')], tools: [WEB_SEARCH] });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('tools[0]');
    expect(upstream.calls).toHaveLength(0);
  });
});
