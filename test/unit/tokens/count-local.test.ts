import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import type { ModelSpec } from '../../../src/config/types.js';
import type { ChatMessage, ChatRequest, ContentPart, ToolSpec } from '../../../src/core/canonical.js';
import {
  countInputTokensLocally,
  encodingForModel,
  IMAGE_TOKENS,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
  TOKENS_PER_TOOL_CALL,
  TOKENS_PER_TOOL_DEFINITION,
  TOOLS_OVERHEAD,
} from '../../../src/tokens/count-local.js';

function spec(upstreamName: string): ModelSpec {
  return {
    id: `p/${upstreamName}`,
    provider: 'p',
    name: upstreamName,
    upstreamName,
    kind: 'chat',
    contextWindow: 128_000,
    timeouts: { connectMs: 1000, firstByteMs: 1000, totalMs: 1000 },
  };
}

function chat(messages: ChatMessage[], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'p/m', system: [], messages, tools: [], stream: false, includeUsage: false, unmapped: [], ...extra };
}

const text = (t: string): ContentPart => ({ type: 'text', text: t });
const user = (...content: ContentPart[]): ChatMessage => ({ role: 'user', content });

/** Each role name (user, assistant, system, tool) is one token in both encodings. */
const ROLE = 1;
const FRENCH = 'Le renard brun rapide saute par-dessus le chien paresseux.';

describe('encodingForModel', () => {
  it.each([
    'gpt-4o',
    'gpt-4o-mini',
    'gpt-4o-2024-08-06',
    'gpt-4.1',
    'gpt-4.1-nano',
    'gpt-4.5-preview',
    'gpt-5',
    'gpt-5-mini',
    'o1',
    'o1-mini',
    'o3',
    'o3-mini',
    'o4-mini',
    'chatgpt-4o-latest',
    'gpt-oss-120b',
    'openai/gpt-4o',
    'ft:gpt-4o-mini:org::abc',
    'GPT-4o',
  ])('%s → o200k_base, exact', (name) => {
    expect(encodingForModel(name)).toEqual({ encoding: 'o200k_base', exact: true });
  });

  it.each(['gpt-4', 'gpt-4-turbo', 'gpt-4-0613', 'gpt-4-32k', 'gpt-3.5-turbo', 'gpt-3.5-turbo-16k'])(
    '%s → cl100k_base, exact',
    (name) => {
      expect(encodingForModel(name)).toEqual({ encoding: 'cl100k_base', exact: true });
    },
  );

  it.each(['claude-sonnet-4-5', 'llama-3.1-70b', 'mistral-large', 'echo', 'o10-preview', 'gpt-40', 'gpt-4omega'])(
    '%s → o200k_base, approximate',
    (name) => {
      expect(encodingForModel(name)).toEqual({ encoding: 'o200k_base', exact: false });
    },
  );
});

describe('countInputTokensLocally', () => {
  it("uses OpenAI's per-message overhead and reply priming around the real token counts", () => {
    const r = countInputTokensLocally(chat([user(text('hello world'))]), spec('gpt-4o'));
    expect(r).toEqual({
      inputTokens: REPLY_PRIMING_TOKENS + TOKENS_PER_MESSAGE + ROLE + o200k('hello world'),
      encoding: 'o200k_base',
      exact: true,
    });
    expect(r.inputTokens).toBe(9);
  });

  it('counts the system parts as one system message, and every turn', () => {
    const req = chat(
      [
        user(text('What is the capital of France?')),
        { role: 'assistant', content: [text('Paris.')] },
        user(text(FRENCH)),
      ],
      { system: [text('You are a terse assistant.'), text(' Answer in French.')] },
    );
    const expected = (count: (s: string) => number) =>
      REPLY_PRIMING_TOKENS +
      (TOKENS_PER_MESSAGE + ROLE + count('You are a terse assistant.') + count(' Answer in French.')) +
      (TOKENS_PER_MESSAGE + ROLE + count('What is the capital of France?')) +
      (TOKENS_PER_MESSAGE + ROLE + count('Paris.')) +
      (TOKENS_PER_MESSAGE + ROLE + count(FRENCH));
    expect(countInputTokensLocally(req, spec('gpt-4o-mini')).inputTokens).toBe(expected(o200k));
    expect(countInputTokensLocally(req, spec('gpt-3.5-turbo'))).toEqual({
      inputTokens: expected(cl100k),
      encoding: 'cl100k_base',
      exact: true,
    });
  });

  it('matches the chat encoding of gpt-tokenizer for plain text messages', async () => {
    const { encodeChat } = await import('gpt-tokenizer/encoding/o200k_base');
    const messages = [
      { role: 'system' as const, content: 'You are a terse assistant.' },
      { role: 'user' as const, content: FRENCH },
      { role: 'assistant' as const, content: 'Bien.' },
    ];
    const req = chat([user(text(FRENCH)), { role: 'assistant', content: [text('Bien.')] }], {
      system: [text('You are a terse assistant.')],
    });
    expect(countInputTokensLocally(req, spec('gpt-4o')).inputTokens).toBe(encodeChat(messages, 'gpt-4o').length);
  });

  it('the family decides the encoding: a non-English text counts differently', () => {
    const req = chat([user(text(FRENCH))]);
    const o = countInputTokensLocally(req, spec('gpt-4.1'));
    const c = countInputTokensLocally(req, spec('gpt-4'));
    expect(o200k(FRENCH)).not.toBe(cl100k(FRENCH));
    expect(o.inputTokens - c.inputTokens).toBe(o200k(FRENCH) - cl100k(FRENCH));
  });

  it('approximates other families with o200k_base and says so', () => {
    const req = chat([user(text(FRENCH))]);
    const claude = countInputTokensLocally(req, spec('claude-sonnet-4-5'));
    expect(claude).toEqual({
      inputTokens: countInputTokensLocally(req, spec('gpt-4o')).inputTokens,
      encoding: 'o200k_base',
      exact: false,
    });
  });

  it('adds a fixed estimate per image, in messages and in tool results', () => {
    const image: ContentPart = { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.png' } };
    const plain = countInputTokensLocally(chat([user(text('What is this?'))]), spec('gpt-4o')).inputTokens;
    const oneImage = countInputTokensLocally(chat([user(text('What is this?'), image)]), spec('gpt-4o')).inputTokens;
    expect(oneImage - plain).toBe(IMAGE_TOKENS);
    const twoImages = countInputTokensLocally(
      chat([user(text('What is this?'), image, image)]),
      spec('gpt-4o'),
    ).inputTokens;
    expect(twoImages - plain).toBe(2 * IMAGE_TOKENS);
  });

  it('counts tool definitions as their JSON plus a fixed overhead', () => {
    const tool: ToolSpec = {
      name: 'get_weather',
      description: 'Current weather for a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    };
    const base = chat([user(text('Weather in Paris?'))]);
    const plain = countInputTokensLocally(base, spec('gpt-4o')).inputTokens;
    const withTool = countInputTokensLocally({ ...base, tools: [tool] }, spec('gpt-4o')).inputTokens;
    const json = JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters });
    expect(withTool - plain).toBe(TOOLS_OVERHEAD + TOKENS_PER_TOOL_DEFINITION + o200k(json));
    const withTwo = countInputTokensLocally(
      { ...base, tools: [tool, { ...tool, name: 'get_time' }] },
      spec('gpt-4o'),
    ).inputTokens;
    expect(withTwo).toBeGreaterThan(withTool + TOKENS_PER_TOOL_DEFINITION);
  });

  it('counts tool calls, and each tool result as a `tool` message of its own', () => {
    const args = '{"city":"Paris"}';
    const req = chat([
      user(text('Weather in Paris?')),
      { role: 'assistant', content: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: args }] },
      user({ type: 'tool_result', toolCallId: 'call_1', content: [text('18°C, sunny')] }),
    ]);
    expect(countInputTokensLocally(req, spec('gpt-4o')).inputTokens).toBe(
      REPLY_PRIMING_TOKENS +
        (TOKENS_PER_MESSAGE + ROLE + o200k('Weather in Paris?')) +
        (TOKENS_PER_MESSAGE + ROLE + TOKENS_PER_TOOL_CALL + o200k('get_weather') + o200k(args)) +
        (TOKENS_PER_MESSAGE + ROLE + o200k('18°C, sunny')), // the tool message, no extra user message
    );
  });

  it('counts reasoning text, and special-token text as ordinary text', () => {
    const thinking: ContentPart = { type: 'reasoning', text: 'The user wants a capital.', signature: 'sig' };
    const req = chat([user(text('Hi')), { role: 'assistant', content: [thinking, text('Paris <|endoftext|>')] }]);
    const r = countInputTokensLocally(req, spec('gpt-4o'));
    expect(r.inputTokens).toBe(
      REPLY_PRIMING_TOKENS +
        (TOKENS_PER_MESSAGE + ROLE + o200k('Hi')) +
        (TOKENS_PER_MESSAGE +
          ROLE +
          o200k('The user wants a capital.') +
          o200k('Paris <|endoftext|>', { disallowedSpecial: new Set() })),
    );
  });

  it('is fast on a long conversation with repeated content', () => {
    const long = FRENCH.repeat(200);
    const messages = Array.from({ length: 200 }, (_, i) =>
      i % 2 ? { role: 'assistant' as const, content: [text(long)] } : user(text(long)),
    );
    const t0 = performance.now();
    const r = countInputTokensLocally(chat(messages), spec('gpt-4o'));
    expect(r.inputTokens).toBe(REPLY_PRIMING_TOKENS + 200 * (TOKENS_PER_MESSAGE + ROLE + o200k(long)));
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
