/**
 * §2 of issue 11: translation covers what current clients send, through the gateway to the strict
 * upstream (which refuses what the real APIs refuse), both directions, JSON and streams:
 * mid-conversation system messages, effort and thinking, structured output (native and forced
 * tool), hints dropped and listed in x-gateway-dropped-fields, output-changing fields refused by
 * name, earlier-turn reasoning, and complete message_start usage.
 */
import { useStrictRig } from '../helpers/strict-rig.js';
import { sseData } from '../helpers/sse.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { anthropicHeaders, openaiHeaders } from '../helpers/start-gateway.js';

const rig = useStrictRig();
beforeEach(() => {
  rig.up.reset();
  rig.up.setHandler(undefined);
});

const BETAS =
  'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,' +
  'mid-conversation-system-2026-04-07,effort-2025-11-24';

function post(path: string, body: unknown, headers: Record<string, string>) {
  return fetch(`${rig.gw.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
}
const messages = (body: unknown, beta = BETAS) =>
  post('/v1/messages', body, anthropicHeaders(beta ? { 'anthropic-beta': beta } : {}));
const chat = (body: unknown) => post('/v1/chat/completions', body, openaiHeaders());

const dropped = (res: Response) => (res.headers.get('x-gateway-dropped-fields') ?? '').split(', ').filter(Boolean);

const readTool = {
  name: 'Read',
  description: 'Read a file',
  input_schema: {
    type: 'object',
    properties: { file_path: { type: 'string' } },
    required: ['file_path'],
    additionalProperties: false,
  },
};

/** Claude Code 2.1.197's request shape (captured): through an alias, the model name is not a Claude id. */
const claudeCode = (model: string, stream: boolean, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 32000,
  stream,
  system: [
    { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.197;' },
    { type: 'text', text: 'You are a Claude agent.', cache_control: { type: 'ephemeral' } },
  ],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: '<system-reminder>date</system-reminder>' },
        { type: 'text', text: 'Say hello', cache_control: { type: 'ephemeral' } },
      ],
    },
    { role: 'system', content: 'Available agent types: claude.' },
  ],
  tools: [readTool],
  metadata: {
    user_id: JSON.stringify({
      device_id: 'd'.repeat(64),
      account_uuid: '',
      session_id: '101c4592-75d4-434b-87db-d5d600129d00',
    }),
  },
  thinking: { type: 'adaptive' },
  output_config: { effort: 'high' },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  ...extra,
});

describe('Anthropic caller (Claude Code) → OpenAI-format model', () => {
  for (const stream of [false, true]) {
    it(
      `through an alias to a non-reasoning model, ${stream ? 'streamed' : 'JSON'}: system messages in place, hints ` +
        `and thinking dropped and listed`,
      async () => {
        const res = await messages(claudeCode('team/gpt', stream));
        const text = await res.text();
        expect(res.status, text).toBe(200);
        const sent = rig.up.last()!;
        expect(sent.status).toBe(200);
        expect(sent.body.model).toBe('gpt-4o');
        expect(sent.body.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'system']);
        expect(sent.body.messages[2].content).toBe('Available agent types: claude.');
        expect(sent.body).not.toHaveProperty('reasoning_effort');
        expect(sent.body.max_tokens).toBe(16384); // the model's own limit, not 32000
        // Claude Code's long user_id, hashed to fit OpenAI's 64 characters
        expect(sent.body.user).toMatch(/^[0-9a-f]{64}$/);
        expect(dropped(res)).toEqual(
          expect.arrayContaining([
            'cache_control',
            'context_management',
            'thinking',
            'output_config.effort',
            'anthropic-beta:claude-code-20250219',
            'anthropic-beta:mid-conversation-system-2026-04-07',
          ]),
        );
        if (stream) {
          const events = sseData(text);
          expect(events.map((e) => e.type).at(-1)).toBe('message_stop');
          expect(
            events
              .filter((e) => e.type === 'content_block_delta')
              .map((e) => e.delta.text)
              .join(''),
          ).toBe('echo: <system-reminder>date</system-reminder> Say hello');
        } else {
          expect(JSON.parse(text).content).toEqual([
            { type: 'text', text: 'echo: <system-reminder>date</system-reminder> Say hello' },
          ]);
        }
      },
    );
  }

  it(
    'to a reasoning model: ' + 'adaptive thinking + effort high → reasoning_effort high, max_completion_tokens',
    async () => {
      const res = await messages(claudeCode('oai/reasoner', false));
      expect(res.status, await res.text()).toBe(200);
      const sent = rig.up.last()!.body;
      expect(sent.reasoning_effort).toBe('high');
      expect(sent.max_completion_tokens).toBe(32000);
      expect(sent).not.toHaveProperty('max_tokens');
      expect(dropped(res)).not.toContain('thinking');
    },
  );

  it('thinking.enabled budget → effort by bucket; temperature a reasoning model refuses is dropped', async () => {
    const res = await messages({
      model: 'oai/reasoner',
      max_tokens: 32000,
      thinking: { type: 'enabled', budget_tokens: 4096 },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.status, await res.text()).toBe(200);
    expect(rig.up.last()!.body.reasoning_effort).toBe('medium');
    const cold = await messages(
      { model: 'oai/reasoner', max_tokens: 100, temperature: 0.2, messages: [{ role: 'user', content: 'hi' }] },
      '',
    );
    expect(cold.status, await cold.text()).toBe(200);
    expect(rig.up.last()!.body).not.toHaveProperty('temperature');
    expect(dropped(cold)).toEqual(['temperature']);
  });

  it(
    'a tool round trip with thinking in the earlier turn: the thinking block is dropped (listed), the pairing is ' +
      'kept',
    async () => {
      const body = claudeCode('team/gpt', true, {
        messages: [
          { role: 'user', content: 'Read notes.txt' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'I should read it.', signature: 'c2ln' },
              { type: 'redacted_thinking', data: 'opaque' },
              { type: 'text', text: 'I will read it.' },
              { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'notes.txt' } },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                content: 'tangerine',
                cache_control: { type: 'ephemeral' },
              },
            ],
          },
        ],
      });
      const res = await messages(body);
      expect(res.status, await res.text()).toBe(200);
      const sent = rig.up.last()!.body;
      expect(sent.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
      expect(sent.messages[2]).toEqual({
        role: 'assistant',
        content: 'I will read it.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"notes.txt"}' } },
        ],
      });
      expect(dropped(res)).toEqual(expect.arrayContaining(['messages.thinking', 'messages.redacted_thinking']));
    },
  );

  it('parallel tool calls come back as tool_use blocks (stream)', async () => {
    rig.up.setHandler(() => ({
      toolCalls: [
        { name: 'Read', args: { file_path: 'a' } },
        { name: 'Read', args: { file_path: 'b' } },
      ],
    }));
    const res = await messages(claudeCode('team/gpt', true));
    const events = sseData(await res.text());
    const starts = events.filter((e) => e.type === 'content_block_start').map((e) => e.content_block);
    expect(starts.map((b) => [b.type, b.name])).toEqual([
      ['tool_use', 'Read'],
      ['tool_use', 'Read'],
    ]);
    expect(events.find((e) => e.type === 'message_delta').delta.stop_reason).toBe('tool_use');
  });

  it(
    'stream: message_start usage is complete and never 0 for a non-empty prompt; ' + 'message_delta has the real count',
    async () => {
      rig.up.setHandler(() => ({ text: 'hello there', usage: { input: 900, cacheRead: 100, output: 2 } }));
      const res = await messages(claudeCode('team/gpt', true));
      const events = sseData(await res.text());
      const start = events[0].message.usage;
      expect(Object.keys(start)).toEqual([
        'input_tokens',
        'cache_creation_input_tokens',
        'cache_read_input_tokens',
        'cache_creation',
        'output_tokens',
      ]);
      expect(start.input_tokens).toBeGreaterThan(0);
      expect(start.cache_creation).toEqual({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 });
      const delta = events.find((e) => e.type === 'message_delta').usage;
      expect(delta).toMatchObject({ input_tokens: 900, cache_read_input_tokens: 100, output_tokens: 2 });
    },
  );

  it('output_config.format → response_format json_schema; the answer is the JSON text', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, temp: { type: 'number' } },
      required: ['city'],
      additionalProperties: false,
    };
    for (const stream of [false, true]) {
      const res = await messages(
        {
          model: 'oai/gpt',
          max_tokens: 200,
          stream,
          messages: [{ role: 'user', content: 'weather?' }],
          output_config: { format: { type: 'json_schema', schema } },
        },
        '',
      );
      const text = await res.text();
      expect(res.status, text).toBe(200);
      // Not every property is required, so not strict (OpenAI would refuse strict mode).
      expect(rig.up.last()!.body.response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'response', schema, strict: false },
      });
      const out = stream
        ? sseData(text)
            .filter((e) => e.type === 'content_block_delta')
            .map((e) => e.delta.text)
            .join('')
        : JSON.parse(text).content[0].text;
      expect(JSON.parse(out)).toEqual({ city: 'sample', temp: 1.5 });
    }
  });

  it('fields that change the output are refused by name: top_k, a document block, an unknown field', async () => {
    const base = { model: 'oai/gpt', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ top_k: 5 }, 'top_k'],
      [
        {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'read' },
                { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'd' } },
              ],
            },
          ],
        },
        'messages[0].content[1]',
      ],
      [{ brand_new: true }, 'brand_new'],
    ];
    for (const [extra, name] of cases) {
      const res = await messages({ ...base, ...extra }, '');
      expect(res.status).toBe(400);
      expect((await res.json()).error.message).toContain(name);
    }
    expect(rig.up.received).toHaveLength(0);
  });
});

describe('OpenAI caller (OpenAI SDK, AI SDK, LangChain) → Anthropic-format model', () => {
  const closed = {
    type: 'object',
    properties: { name: { type: 'string' }, age: { type: 'integer' } },
    required: ['name', 'age'],
    additionalProperties: false,
  };
  const open = { type: 'object', properties: { name: { type: 'string' } } };
  const asks = (model: string, rf: unknown, stream = false) => ({
    model,
    stream,
    messages: [{ role: 'user', content: 'Describe a person as JSON.' }],
    response_format: rf,
  });

  for (const stream of [false, true]) {
    it(
      'json_schema on a model with native structured output → ' +
        `output_config.format, ${stream ? 'streamed' : 'JSON'}`,
      async () => {
        const res = await chat(
          asks(
            'ant/claude',
            { type: 'json_schema', json_schema: { name: 'person', strict: true, schema: closed } },
            stream,
          ),
        );
        const text = await res.text();
        expect(res.status, text).toBe(200);
        const sent = rig.up.last()!.body;
        expect(sent.output_config).toEqual({ format: { type: 'json_schema', schema: closed } });
        expect(sent).not.toHaveProperty('tools');
        const content = stream
          ? sseData(text)
              .filter((e) => e !== '[DONE]')
              .map((e) => e.choices[0]?.delta?.content ?? '')
              .join('')
          : JSON.parse(text).choices[0].message.content;
        expect(JSON.parse(content)).toEqual({ name: 'sample', age: 1 });
      },
    );

    it(
      'json_schema the model cannot take natively → a forced tool, ' +
        `answered as JSON text (finish stop), ${stream ? 'streamed' : 'JSON'}`,
      async () => {
        for (const [model, schema] of [
          ['ant/claude', open],
          ['ant/old', closed],
        ] as const) {
          const res = await chat(asks(model, { type: 'json_schema', json_schema: { name: 'person', schema } }, stream));
          const text = await res.text();
          expect(res.status, text).toBe(200);
          const sent = rig.up.last()!.body;
          expect(sent.tool_choice).toEqual({ type: 'tool', name: 'json_output' });
          expect(sent.tools).toEqual([
            { name: 'json_output', description: 'Give the answer as this JSON object.', input_schema: schema },
          ]);
          if (stream) {
            const chunks = sseData(text).filter((e) => e !== '[DONE]');
            expect(chunks.some((c) => c.choices[0]?.delta?.tool_calls)).toBe(false);
            expect(JSON.parse(chunks.map((e) => e.choices[0]?.delta?.content ?? '').join(''))).toEqual(
              schema === open ? { name: 'sample' } : { name: 'sample', age: 1 },
            );
            expect(chunks.find((c) => c.choices[0]?.finish_reason).choices[0].finish_reason).toBe('stop');
          } else {
            const choice = JSON.parse(text).choices[0];
            expect(choice.finish_reason).toBe('stop');
            expect(choice.message.tool_calls).toBeUndefined();
            expect(JSON.parse(choice.message.content)).toEqual(
              schema === open ? { name: 'sample' } : { name: 'sample', age: 1 },
            );
          }
        }
      },
    );
  }

  it('json_object → a forced tool taking any object', async () => {
    rig.up.setHandler(() => ({ json: { anything: [1, 2] } }));
    const res = await chat({
      model: 'ant/claude',
      messages: [{ role: 'user', content: 'Reply in JSON.' }],
      response_format: { type: 'json_object' },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse((await res.json()).choices[0].message.content)).toEqual({ anything: [1, 2] });
    expect(rig.up.last()!.body.tools[0].input_schema).toEqual({ type: 'object' });
  });

  it("structured output with the caller's own tools: the model must call one of them or the output tool", async () => {
    rig.up.setHandler(() => ({ toolCalls: [{ name: 'lookup', args: { q: 'x' } }] }));
    const tools = [
      {
        type: 'function',
        function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
      },
    ];
    const res = await chat({
      ...asks('ant/old', { type: 'json_schema', json_schema: { name: 'person', schema: closed } }),
      tools,
    });
    const body = await res.json();
    expect(rig.up.last()!.body.tool_choice).toEqual({ type: 'any' });
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    expect(body.choices[0].message.tool_calls[0].function.name).toBe('lookup');
  });

  it('reasoning_effort → thinking on a model that thinks; dropped (listed) where it cannot', async () => {
    const res = await chat({
      model: 'ant/claude',
      messages: [{ role: 'user', content: 'hi' }],
      reasoning_effort: 'high',
      max_completion_tokens: 1000,
    });
    expect(res.status, await res.text()).toBe(200);
    expect(rig.up.last()!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(rig.up.last()!.body.max_tokens).toBe(17384);
    const old = await chat({
      model: 'ant/old',
      messages: [{ role: 'user', content: 'hi' }],
      reasoning_effort: 'high',
      temperature: 0.3,
    });
    expect(old.status, await old.text()).toBe(200);
    expect(rig.up.last()!.body).not.toHaveProperty('thinking');
    expect(rig.up.last()!.body.temperature).toBe(0.3);
    expect(dropped(old)).toEqual(['reasoning_effort']);
  });

  it(
    'with thinking on, temperature is dropped (listed); a tool loop continued without a thinking block goes without ' +
      'thinking',
    async () => {
      const warm = await chat({
        model: 'ant/claude',
        messages: [{ role: 'user', content: 'hi' }],
        reasoning_effort: 'low',
        temperature: 0.3,
      });
      expect(warm.status, await warm.text()).toBe(200);
      expect(rig.up.last()!.body).not.toHaveProperty('temperature');
      expect(dropped(warm)).toEqual(['temperature']);
      const loop = await chat({
        model: 'ant/claude',
        reasoning_effort: 'medium',
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
        messages: [
          { role: 'user', content: 'call f' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'done' },
        ],
      });
      expect(loop.status, await loop.text()).toBe(200);
      expect(rig.up.last()!.body).not.toHaveProperty('thinking');
      expect(dropped(loop)).toEqual(['reasoning_effort']);
    },
  );

  it('system and developer messages are hoisted into system, in order, wherever they stand', async () => {
    const res = await chat({
      model: 'ant/claude',
      messages: [
        { role: 'system', content: 'one' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'yo' },
        { role: 'developer', content: 'two' },
        { role: 'user', content: 'again' },
      ],
    });
    expect(res.status, await res.text()).toBe(200);
    const sent = rig.up.last()!.body;
    expect(sent.system).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]);
    expect(sent.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('hints are dropped and listed; output-changing fields refused by name', async () => {
    const res = await chat({
      model: 'ant/claude',
      messages: [{ role: 'user', content: 'hi' }],
      store: true,
      metadata: { team: 'a' },
      prompt_cache_key: 'k',
    });
    expect(res.status).toBe(200);
    expect(dropped(res)).toEqual(['store', 'metadata', 'prompt_cache_key']);
    for (const [extra, name] of [
      [{ n: 2 }, 'n'],
      [{ logprobs: true }, 'logprobs'],
      [{ seed: 1 }, 'seed'],
      [{ verbosity: 'low' }, 'verbosity'],
    ] as const) {
      const bad = await chat({ model: 'ant/claude', messages: [{ role: 'user', content: 'hi' }], ...extra });
      expect(bad.status).toBe(400);
      expect((await bad.json()).error.message).toContain(name);
    }
  });

  it('the log line names the dropped fields', async () => {
    const res = await chat({ model: 'ant/claude', messages: [{ role: 'user', content: 'hi' }], store: true });
    await res.text();
    const id = res.headers.get('x-correlation-id');
    const line = rig.gw.logs
      .map((l) => JSON.parse(l))
      .find((l) => (l.msg === 'request' || l.message === 'request') && l.correlation_id === id);
    expect(line?.dropped_fields).toEqual(['store']);
  });
});
