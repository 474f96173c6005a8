import { sseData } from '../helpers/sse.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';

let up: FakeUpstream;
beforeAll(async () => {
  up = await startFakeUpstream();
});
afterAll(() => up.close());

const openai = (body: unknown) =>
  fetch(`${up.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const anthropic = (body: unknown, extra: Record<string, string> = {}, path = '/v1/messages') =>
  fetch(`${up.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...extra },
    body: JSON.stringify(body),
  });

const user = (content: string) => ({ role: 'user', content });

describe('strict upstream: OpenAI chat refusals', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    [
      'unknown role',
      { model: 'gpt-4o', messages: [user('hi'), { role: 'critic', content: 'x' }] },
      /Invalid value: 'critic'/,
    ],
    [
      'unknown argument',
      { model: 'gpt-4o', messages: [user('hi')], thinking: {} },
      /Unrecognized request argument supplied: thinking/,
    ],
    [
      'orphan tool message',
      { model: 'gpt-4o', messages: [user('hi'), { role: 'tool', tool_call_id: 'c1', content: 'r' }] },
      /must be a response to a preceeding message with 'tool_calls'/,
    ],
    [
      'unanswered tool call',
      {
        model: 'gpt-4o',
        messages: [
          user('hi'),
          { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          user('next'),
        ],
      },
      /did not have response messages: c1/,
    ],
    [
      'object arguments',
      {
        model: 'gpt-4o',
        messages: [
          user('hi'),
          { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: {} } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'r' },
        ],
      },
      /expected a string, but got an object/,
    ],
    [
      'max_tokens on a reasoning model',
      { model: 'o3-mini', messages: [user('hi')], max_tokens: 10 },
      /Use 'max_completion_tokens' instead/,
    ],
    [
      'reasoning_effort on gpt-4o',
      { model: 'gpt-4o', messages: [user('hi')], reasoning_effort: 'low' },
      /reasoning_effort/,
    ],
    [
      'json_object without the word',
      { model: 'gpt-4o', messages: [user('hi')], response_format: { type: 'json_object' } },
      /must contain the word 'json'/,
    ],
    [
      'json_schema without name',
      {
        model: 'gpt-4o',
        messages: [user('hi')],
        response_format: { type: 'json_schema', json_schema: { schema: {} } },
      },
      /json_schema.name/,
    ],
    [
      'strict schema not closed',
      {
        model: 'gpt-4o',
        messages: [user('hi')],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'x',
            strict: true,
            schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          },
        },
      },
      /additionalProperties/,
    ],
    [
      'unknown content part',
      { model: 'gpt-4o', messages: [{ role: 'user', content: [{ type: 'thinking', text: 'x' }] }] },
      /Invalid value: 'thinking'/,
    ],
    [
      'stream_options without stream',
      { model: 'gpt-4o', messages: [user('hi')], stream_options: { include_usage: true } },
      /only allowed when 'stream' is enabled/,
    ],
    [
      'tool_choice without tools',
      { model: 'gpt-4o', messages: [user('hi')], tool_choice: 'auto' },
      /only allowed when 'tools' are specified/,
    ],
    [
      'user over 64 characters',
      { model: 'gpt-4o', messages: [user('hi')], user: 'u'.repeat(65) },
      /Invalid 'user': string too long/,
    ],
  ];
  for (const [name, body, message] of cases) {
    it(name, async () => {
      const res = await openai(body);
      expect(res.status).toBe(400);
      const j = await res.json();
      expect(Object.keys(j.error).sort()).toEqual(['code', 'message', 'param', 'type']);
      expect(j.error.type).toBe('invalid_request_error');
      expect(j.error.message).toMatch(message);
    });
  }

  it('401 without a key', async () => {
    const res = await fetch(`${up.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-4o', messages: [user('hi')] }),
    });
    expect(res.status).toBe(401);
  });
});

describe('strict upstream: OpenAI chat answers', () => {
  it('plain answer with non-zero usage; the request is recorded', async () => {
    up.reset();
    const res = await openai({
      model: 'gpt-4o',
      messages: [{ role: 'developer', content: 'be brief' }, user('hello there')],
      max_tokens: 50,
    });
    expect(res.status).toBe(200);
    const j = await res.json();
    expect(j.choices[0].message.content).toBe('echo: hello there');
    expect(j.usage.prompt_tokens).toBeGreaterThan(0);
    expect(j.usage.completion_tokens).toBeGreaterThan(0);
    expect(up.last()!.body.max_tokens).toBe(50);
    expect(up.accepted).toHaveLength(1);
  });

  it('stream: role chunk first, content, finish, usage chunk, [DONE]', async () => {
    const res = await openai({
      model: 'gpt-5',
      messages: [user('a b c')],
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 100,
    });
    const events = sseData(await res.text());
    expect(events[0].choices[0].delta.role).toBe('assistant');
    expect(events.at(-1)).toBe('[DONE]');
    const usage = events.at(-2);
    expect(usage.choices).toEqual([]);
    expect(usage.usage.completion_tokens).toBeGreaterThan(0);
    expect(events.at(-3).choices[0].finish_reason).toBe('stop');
    expect(
      events
        .slice(1, -3)
        .map((e: any) => e.choices[0].delta.content)
        .join(''),
    ).toBe('echo: a b c');
  });

  it('parallel tool calls from the hook, streamed with ids first then argument pieces', async () => {
    up.setHandler(() => ({
      toolCalls: [
        { name: 'get', args: { city: 'Paris' } },
        { name: 'get', args: { city: 'Rome' } },
      ],
    }));
    try {
      const tools = [
        {
          type: 'function',
          function: { name: 'get', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      ];
      const res = await openai({ model: 'gpt-4o', messages: [user('weather')], tools, stream: true });
      const events = sseData(await res.text()).filter((e) => e !== '[DONE]');
      const args: string[] = ['', ''];
      for (const e of events)
        for (const tc of e.choices[0]?.delta.tool_calls ?? []) args[tc.index] += tc.function.arguments ?? '';
      expect(args.map((a) => JSON.parse(a))).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
      expect(events.at(-1).choices[0].finish_reason).toBe('tool_calls');
    } finally {
      up.setHandler(undefined);
    }
  });

  it('structured output by default: JSON text matching the schema', async () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer' } },
      required: ['name', 'age'],
      additionalProperties: false,
    };
    const res = await openai({
      model: 'gpt-4o',
      messages: [user('who')],
      response_format: { type: 'json_schema', json_schema: { name: 'person', strict: true, schema } },
    });
    const j = await res.json();
    expect(JSON.parse(j.choices[0].message.content)).toEqual({ name: 'sample', age: 1 });
  });

  it('scripted error in the OpenAI shape', async () => {
    up.setHandler(() => ({ kind: 'error', status: 429, message: 'slow down' }));
    try {
      const res = await openai({ model: 'gpt-4o', messages: [user('x')] });
      expect(res.status).toBe(429);
      expect((await res.json()).error).toMatchObject({ message: 'slow down', code: 'rate_limit_exceeded' });
    } finally {
      up.setHandler(undefined);
    }
  });
});

describe('strict upstream: OpenAI embeddings', () => {
  const embeddings = (body: unknown, headers: Record<string, string> = { authorization: 'Bearer k' }) =>
    fetch(`${up.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const m = 'text-embedding-3-small';
  const cases: Array<[string, unknown, RegExp]> = [
    ['no model', { input: 'x' }, /you must provide a model parameter/],
    ['no input', { model: m }, /Missing required parameter: 'input'/],
    ['an empty string', { model: m, input: '' }, /'\$\.input' is invalid/],
    ['an empty array', { model: m, input: [] }, /'\$\.input' is invalid/],
    ['2049 inputs', { model: m, input: Array(2049).fill('a') }, /'\$\.input' is invalid/],
    ['an empty text', { model: m, input: ['a', ''] }, /'\$\.input\[1\]' is invalid/],
    ['a negative token id', { model: m, input: [3, -1] }, /'\$\.input\[1\]' is invalid/],
    ['an empty token array', { model: m, input: [[3], []] }, /'\$\.input\[1\]' is invalid/],
    ['a text among token arrays', { model: m, input: [[3], 'a'] }, /'\$\.input\[1\]' is invalid/],
    ['an unknown encoding', { model: m, input: 'x', encoding_format: 'int8' }, /Invalid value: 'int8'/],
    ['zero dimensions', { model: m, input: 'x', dimensions: 0 }, /Invalid 'dimensions'/],
    ['an unknown argument', { model: m, input: 'x', stream: true }, /Unrecognized request argument supplied: stream/],
  ];
  it.each(cases)('refuses %s', async (_, body, message) => {
    const res = await embeddings(body);
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(message);
  });

  it('refuses a call without a key', async () => {
    expect((await embeddings({ model: m, input: 'x' }, {})).status).toBe(401);
  });

  it('answers deterministic vectors, as numbers or base64, of the dimensions asked', async () => {
    const floats = await (await embeddings({ model: m, input: ['abcdefgh', 'xy'], dimensions: 3 })).json();
    expect(floats).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: expect.any(Array) },
        { object: 'embedding', index: 1, embedding: expect.any(Array) },
      ],
      model: m,
      usage: { prompt_tokens: 2 + 1, total_tokens: 3 },
    });
    const tokens = await (await embeddings({ model: m, input: [[1, 2], [3]] })).json();
    expect(tokens.usage.prompt_tokens).toBe(3);
    expect(tokens.data.map((d: any) => d.embedding.length)).toEqual([4, 4]);
    expect(floats.data.map((d: any) => d.embedding.length)).toEqual([3, 3]);
    const again = await (await embeddings({ model: m, input: 'abcdefgh', dimensions: 3 })).json();
    expect(again.data[0].embedding).toEqual(floats.data[0].embedding);
    const b64 = await (
      await embeddings({ model: m, input: 'abcdefgh', dimensions: 3, encoding_format: 'base64' })
    ).json();
    const bytes = Buffer.from(b64.data[0].embedding, 'base64');
    expect([0, 1, 2].map((i) => bytes.readFloatLE(i * 4))).toEqual(floats.data[0].embedding);
  });
});

describe('strict upstream: Anthropic messages refusals', () => {
  const tu = { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] };
  const cases: Array<[string, unknown, RegExp, Record<string, string>?]> = [
    ['max_tokens missing', { model: 'claude-x', messages: [user('hi')] }, /max_tokens: Field required/],
    [
      'unknown top-level field',
      { model: 'claude-x', max_tokens: 10, messages: [user('hi')], frobnicate: 1 },
      /frobnicate: Extra inputs are not permitted/,
    ],
    [
      'context_management without its beta',
      { model: 'claude-x', max_tokens: 10, messages: [user('hi')], context_management: { edits: [] } },
      /context_management: Extra inputs/,
    ],
    [
      'system role without the beta',
      { model: 'claude-x', max_tokens: 10, messages: [user('hi'), { role: 'system', content: 'x' }] },
      /Input should be 'user' or 'assistant'/,
    ],
    [
      'first message assistant',
      { model: 'claude-x', max_tokens: 10, messages: [{ role: 'assistant', content: 'x' }] },
      /first message must use the "user" role/,
    ],
    [
      'orphan tool_result',
      {
        model: 'claude-x',
        max_tokens: 10,
        messages: [
          user('hi'),
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'r' }] },
        ],
      },
      /unexpected `tool_use_id`/,
    ],
    [
      'tool_use without result',
      { model: 'claude-x', max_tokens: 10, messages: [user('hi'), tu, user('next')] },
      /without `tool_result` blocks/,
    ],
    [
      'tool_result after text',
      {
        model: 'claude-x',
        max_tokens: 10,
        messages: [
          user('hi'),
          tu,
          {
            role: 'user',
            content: [
              { type: 'text', text: 'x' },
              { type: 'tool_result', tool_use_id: 'toolu_1', content: 'r' },
            ],
          },
        ],
      },
      /must come first/,
    ],
    [
      'budget below 1024',
      {
        model: 'claude-x',
        max_tokens: 4000,
        messages: [user('hi')],
        thinking: { type: 'enabled', budget_tokens: 500 },
      },
      /greater than or equal to 1024/,
    ],
    [
      'budget not below max_tokens',
      {
        model: 'claude-x',
        max_tokens: 2000,
        messages: [user('hi')],
        thinking: { type: 'enabled', budget_tokens: 2000 },
      },
      /`max_tokens` must be greater than `thinking.budget_tokens`/,
    ],
    [
      'temperature with thinking',
      { model: 'claude-x', max_tokens: 4000, messages: [user('hi')], thinking: { type: 'adaptive' }, temperature: 0.5 },
      /`temperature` may only be set to 1/,
    ],
    [
      'adaptive thinking on Claude before 4.6 (a Bedrock id too)',
      {
        model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
        max_tokens: 4000,
        messages: [user('hi')],
        thinking: { type: 'adaptive' },
      },
      /^adaptive thinking is not supported on this model$/,
    ],
    [
      'a thinking budget on Opus 4.7',
      {
        model: 'claude-opus-4-7',
        max_tokens: 4000,
        messages: [user('hi')],
        thinking: { type: 'enabled', budget_tokens: 1024 },
      },
      /^"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive"/,
    ],
    [
      'an effort on Sonnet 4.5 (a Vertex id)',
      { model: 'claude-sonnet-4-5@20250929', max_tokens: 10, messages: [user('hi')], output_config: { effort: 'low' } },
      /^This model does not support the effort parameter\.$/,
    ],
    [
      'temperature above 1',
      { model: 'claude-x', max_tokens: 10, messages: [user('hi')], temperature: 1.5 },
      /less than or equal to 1/,
    ],
    [
      'unknown block type',
      {
        model: 'claude-x',
        max_tokens: 10,
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }],
      },
      /Input tag 'image_url'/,
    ],
    [
      'thinking without signature',
      {
        model: 'claude-x',
        max_tokens: 10,
        messages: [
          user('hi'),
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 't' },
              { type: 'text', text: 'a' },
            ],
          },
          user('more'),
        ],
      },
      /signature: Field required/,
    ],
    [
      'tool loop without its thinking block',
      {
        model: 'claude-x',
        max_tokens: 4000,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [
          user('hi'),
          tu,
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'r' }] },
        ],
      },
      /Expected `thinking` or `redacted_thinking`/,
    ],
    [
      'open output format schema',
      {
        model: 'claude-x',
        max_tokens: 10,
        messages: [user('hi')],
        output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: {} } } },
      },
      /additionalProperties/,
    ],
    [
      'thinking on a model without it',
      {
        model: 'claude-3-5-haiku-20241022',
        max_tokens: 4000,
        messages: [user('hi')],
        thinking: { type: 'enabled', budget_tokens: 1024 },
      },
      /does not support extended thinking/,
    ],
    [
      'output format on a model without it',
      {
        model: 'claude-sonnet-4-20250514',
        max_tokens: 100,
        messages: [user('hi')],
        output_config: { format: { type: 'json_schema', schema: { type: 'object', additionalProperties: false } } },
      },
      /does not support structured outputs/,
    ],
    [
      'forced tool with thinking',
      {
        model: 'claude-x',
        max_tokens: 4000,
        thinking: { type: 'adaptive' },
        messages: [user('hi')],
        tools: [{ name: 'f', input_schema: { type: 'object' } }],
        tool_choice: { type: 'any' },
      },
      /forces tool use/,
    ],
  ];
  for (const [name, body, message, headers] of cases) {
    it(name, async () => {
      const res = await anthropic(body, headers);
      expect(res.status).toBe(400);
      const j = await res.json();
      expect(j.type).toBe('error');
      expect(j.error.type).toBe('invalid_request_error');
      expect(j.error.message).toMatch(message);
    });
  }

  it('what each Claude takes: adaptive and effort on 4.6+, a budget on Sonnet 4.6 and on Opus 4.5', async () => {
    const think = (model: string, thinking: object, effort?: string) =>
      anthropic({
        model,
        max_tokens: 4000,
        messages: [user('hi')],
        thinking,
        ...(effort ? { output_config: { effort } } : {}),
      });
    const adaptive = { type: 'adaptive' };
    const budget = { type: 'enabled', budget_tokens: 1024 };
    expect((await think('claude-sonnet-4-6', adaptive, 'high')).status).toBe(200);
    expect((await think('anthropic.claude-opus-4-7', adaptive, 'max')).status).toBe(200);
    expect((await think('claude-sonnet-4-6', budget)).status).toBe(200);
    expect((await think('claude-opus-4-5-20251101', budget, 'medium')).status).toBe(200);
    expect((await think('claude-3-7-sonnet-20250219', budget)).status).toBe(200);
    expect((await think('MiniMax-M2', adaptive, 'high')).status).toBe(200);
  });

  it('count_tokens refuses max_tokens', async () => {
    const res = await anthropic(
      { model: 'claude-x', max_tokens: 10, messages: [user('hi')] },
      {},
      '/v1/messages/count_tokens',
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(/max_tokens: Extra inputs/);
  });

  it('anthropic-version required', async () => {
    const res = await fetch(`${up.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'k' },
      body: JSON.stringify({ model: 'claude-x', max_tokens: 10, messages: [user('hi')] }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(/anthropic-version/);
  });
});

describe('strict upstream: Anthropic messages answers', () => {
  it('mid-conversation system message and beta fields accepted with their betas', async () => {
    const res = await anthropic(
      {
        model: 'claude-x',
        max_tokens: 4000,
        messages: [
          user('hi'),
          { role: 'assistant', content: 'yo' },
          { role: 'system', content: 'be terse' },
          user('again'),
        ],
        context_management: { edits: [] },
        thinking: { type: 'adaptive' },
        output_config: { effort: 'high' },
      },
      { 'anthropic-beta': 'mid-conversation-system-clear-at-2026-08-21,context-management-2025-06-27' },
    );
    expect(res.status).toBe(200);
    const j = await res.json();
    expect(j.content[0]).toEqual({ type: 'text', text: 'echo: again' });
    expect(j.usage.input_tokens).toBeGreaterThan(0);
    expect(j.usage.cache_creation).toBeDefined();
  });

  it('stream: documented event order with thinking, text and parallel tool_use', async () => {
    up.setHandler(() => ({
      thinking: 'let me see',
      text: 'calling',
      toolCalls: [
        { name: 'f', args: { a: 1 } },
        { name: 'f', args: { a: 2 } },
      ],
    }));
    try {
      const res = await anthropic({
        model: 'claude-x',
        max_tokens: 4000,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        stream: true,
        messages: [user('hi')],
        tools: [{ name: 'f', input_schema: { type: 'object' } }],
      });
      const text = await res.text();
      const events = sseData(text);
      expect(events.map((e) => e.type)).toEqual([
        'message_start',
        'ping',
        // thinking: three words and the signature
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'content_block_start',
        ...events.filter((e) => e.index === 2 && e.type === 'content_block_delta').map(() => 'content_block_delta'),
        'content_block_stop',
        'content_block_start',
        ...events.filter((e) => e.index === 3 && e.type === 'content_block_delta').map(() => 'content_block_delta'),
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      const start = events[0].message.usage;
      expect(start.input_tokens).toBeGreaterThan(0);
      expect(start).toHaveProperty('cache_creation_input_tokens');
      expect(start).toHaveProperty('cache_read_input_tokens');
      expect(events.at(-2).delta.stop_reason).toBe('tool_use');
      expect(events.at(-2).usage.output_tokens).toBeGreaterThan(0);
    } finally {
      up.setHandler(undefined);
    }
  });

  it('structured output: output_config.format → JSON text; forced tool → tool_use with sampled input', async () => {
    const schema = {
      type: 'object',
      properties: { ok: { type: 'boolean' } },
      required: ['ok'],
      additionalProperties: false,
    };
    const a = await (
      await anthropic({
        model: 'claude-x',
        max_tokens: 100,
        messages: [user('hi')],
        output_config: { format: { type: 'json_schema', schema } },
      })
    ).json();
    expect(JSON.parse(a.content[0].text)).toEqual({ ok: true });
    const b = await (
      await anthropic({
        model: 'claude-x',
        max_tokens: 100,
        messages: [user('hi')],
        tools: [{ name: 'out', input_schema: schema }],
        tool_choice: { type: 'tool', name: 'out' },
      })
    ).json();
    expect(b.content[0]).toMatchObject({ type: 'tool_use', name: 'out', input: { ok: true } });
    expect(b.stop_reason).toBe('tool_use');
  });

  it('count_tokens answers input_tokens; scripted errors in the Anthropic shape', async () => {
    const c = await (
      await anthropic({ model: 'claude-x', messages: [user('hi')] }, {}, '/v1/messages/count_tokens')
    ).json();
    expect(c.input_tokens).toBeGreaterThan(0);
    up.setHandler(() => ({ kind: 'error', status: 529, message: 'busy' }));
    try {
      const res = await anthropic({ model: 'claude-x', max_tokens: 10, messages: [user('hi')] });
      expect(res.status).toBe(529);
      expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } });
    } finally {
      up.setHandler(undefined);
    }
  });
});
