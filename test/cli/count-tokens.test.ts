import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, test } from 'vitest';
import { APPROXIMATE_NOTE } from '../../src/cli/commands/count-tokens.js';
import { run } from '../../src/cli/main.js';
import type { TokenCount } from '../../src/routing/count-tokens.js';
import { capture, cli, INVALID, PLAIN_KEY, VALID } from './capture.js';

const ANTHROPIC = 'test/fixtures/cli/count-anthropic.json';
const OPENAI = 'test/fixtures/cli/count-openai.json';

/** Both fixtures hold the same conversation: a system prompt and one user turn. */
const FIXTURE_TOKENS =
  3 + (3 + 1 + o200k('You are a terse assistant.')) + (3 + 1 + o200k('What is the capital of France?'));

/** A run with `stdin` as standard input. */
async function cliStdin(args: string[], stdin: string) {
  const c = capture();
  c.io.stdin = async () => stdin;
  const code = await run(args, c.io);
  return { ...c, code };
}

describe('gateway count-tokens', () => {
  test('an Anthropic-format file, for the model it names (approximate for a non-OpenAI model)', async () => {
    const r = await cli(['count-tokens', '-c', VALID, ANTHROPIC]);
    expect(r.code).toBe(0);
    expect(r.out).toEqual([
      `${FIXTURE_TOKENS} tokens  (model local/echo, context window 8192: fits)`,
      `${APPROXIMATE_NOTE} (counted with o200k_base)`,
    ]);
  });

  test(
    'an OpenAI-format file with --model: ' + 'exact for an OpenAI model, even with its provider unavailable',
    async () => {
      const r = await cli(['count-tokens', '-c', VALID, '--model', 'openai/gpt-4o-mini', OPENAI]);
      expect(r.code).toBe(0);
      expect(r.out).toEqual([`${FIXTURE_TOKENS} tokens  (model openai/gpt-4o-mini, context window 128000: fits)`]);
    },
  );

  test('--json prints the TokenCount', async () => {
    const r = await cli(['count-tokens', '-c', VALID, '-m', 'openai/gpt-4o-mini', '--json', ANTHROPIC]);
    expect(r.code).toBe(0);
    const count = JSON.parse(r.out.join('\n')) as TokenCount;
    expect(count).toEqual({
      inputTokens: FIXTURE_TOKENS,
      model: 'openai/gpt-4o-mini',
      contextWindow: 128000,
      fits: true,
      method: 'local',
      encoding: 'o200k_base',
      exact: true,
    });
  });

  test(
    'plain text on stdin (no FILE or -) is one user message; ' + 'an alias counts for its available candidate',
    async () => {
      const expected = 3 + 3 + 1 + o200k('Summarise this paragraph, please.\n');
      for (const args of [[], ['-']]) {
        const r = await cliStdin(
          ['count-tokens', '-c', VALID, '-m', 'team/fast', ...args],
          'Summarise this paragraph, please.\n',
        );
        expect(r.code).toBe(0);
        expect(r.out[0]).toBe(`${expected} tokens  (model local/echo, context window 8192: fits)`);
      }
    },
  );

  test('a JSON body on stdin, and a bare array of messages', async () => {
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'hello world' }] });
    const r = await cliStdin(['count-tokens', '-c', VALID, '-m', 'openai/gpt-4o-mini', '--json'], body);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out.join('\n'))).toMatchObject({ inputTokens: 9, exact: true });
    const arr = await cliStdin(
      ['count-tokens', '-c', VALID, '-m', 'openai/gpt-4o-mini', '--json'],
      JSON.stringify([{ role: 'user', content: 'hello world' }]),
    );
    expect(JSON.parse(arr.out.join('\n'))).toMatchObject({ inputTokens: 9 });
  });

  test('an OpenAI body is recognised by its function tools, else by the Anthropic decoder refusing it', async () => {
    const withTools = {
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }],
    };
    const r = await cliStdin(
      ['count-tokens', '-c', VALID, '-m', 'openai/gpt-4o-mini', '--json'],
      JSON.stringify(withTools),
    );
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out.join('\n')) as TokenCount).inputTokens).toBeGreaterThan(
      3 + 3 + 1 + o200k('Weather in Paris?') + 12,
    );

    // Only user/assistant roles, so Anthropic is tried first; it refuses `content: null`, OpenAI takes it.
    const nullContent = {
      messages: [
        { role: 'user', content: 'hello world' },
        { role: 'assistant', content: null },
      ],
    };
    const f = await cliStdin(
      ['count-tokens', '-c', VALID, '-m', 'openai/gpt-4o-mini', '--json'],
      JSON.stringify(nullContent),
    );
    expect(f.code).toBe(0);
    expect((JSON.parse(f.out.join('\n')) as TokenCount).inputTokens).toBe(3 + (3 + 1 + o200k('hello world')) + (3 + 1));
  });

  test('a context window too small: does not fit', async () => {
    const r = await cliStdin(['count-tokens', '-c', VALID, '-m', 'local/echo'], 'word '.repeat(9000));
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(/^\d+ tokens {2}\(model local\/echo, context window 8192: does not fit\)$/);
  });

  test('an unknown model, or none, is a usage error (2)', async () => {
    const r = await cli(['count-tokens', '-c', VALID, '-m', 'nope/model', OPENAI]);
    expect(r.code).toBe(2);
    expect(r.out).toEqual([]);
    expect(r.err.at(-1)).toBe(`error: unknown model "nope/model" in ${VALID} (list them with: gateway models)`);
    const none = await cliStdin(['count-tokens', '-c', VALID], 'just text');
    expect(none.code).toBe(2);
    expect(none.err.at(-1)).toBe('error: no model: pass --model, or put "model" in the input');
  });

  test('--key: the role must allow the model; an unknown key is refused without echoing it (2)', async () => {
    const denied = await cli(['count-tokens', '-c', VALID, '--key', PLAIN_KEY, '-m', 'openai/gpt-4o-mini', OPENAI]);
    expect(denied.code).toBe(2);
    expect(denied.out).toEqual([]);
    expect(denied.err.at(-1)).toBe('error: the key\'s role "developer" may not use the model "openai/gpt-4o-mini"');
    expect(denied.all()).not.toContain(PLAIN_KEY);

    const allowed = await cli(['count-tokens', '-c', VALID, '--key', PLAIN_KEY, '-m', 'team/cloud', OPENAI]);
    expect(allowed.code).toBe(0);

    const unknown = await cli(['count-tokens', '-c', VALID, '--key', 'not-a-real-key-999', ANTHROPIC]);
    expect(unknown.code).toBe(2);
    expect(unknown.err.at(-1)).toBe(`error: the given key matches no key in ${VALID}`);
    expect(unknown.all()).not.toContain('not-a-real-key-999');
  });

  test('a body neither format accepts, or JSON without messages, is a usage error (2)', async () => {
    const bad = await cliStdin(
      ['count-tokens', '-c', VALID, '-m', 'local/echo'],
      JSON.stringify({ messages: [{ role: 'robot', content: 'hi' }] }),
    );
    expect(bad.code).toBe(2);
    expect(bad.err.at(-1)).toMatch(/^error: the input is not a valid request: .*messages\[0\]/);
    const noMessages = await cliStdin(['count-tokens', '-c', VALID, '-m', 'local/echo'], '{"prompt": "hi"}');
    expect(noMessages.code).toBe(2);
    expect(noMessages.err.at(-1)).toBe("error: the input is JSON but has no 'messages' array");
  });

  test('broken JSON is counted as text, with a note on stderr', async () => {
    const r = await cliStdin(['count-tokens', '-c', VALID, '-m', 'local/echo'], '{"messages": [');
    expect(r.code).toBe(0);
    expect(r.out[0]).toBe(
      `${3 + 3 + 1 + o200k('{"messages": [')} tokens  (model local/echo, context window 8192: fits)`,
    );
    expect(r.err.at(-1)).toMatch(/^note: the input is not valid JSON .*; counted as plain text$/);
  });

  test('an invalid config exits 2, an unreadable file 1', async () => {
    const inv = await cli(['count-tokens', '-c', INVALID, '-m', 'local/echo', OPENAI]);
    expect(inv.code).toBe(2);
    expect(inv.err.at(-1)).toMatch(/^test\/fixtures\/cli\/invalid\.yaml: \d+ errors$/);
    const missing = await cli(['count-tokens', '-c', VALID, '-m', 'local/echo', 'test/fixtures/cli/no-such-file.json']);
    expect(missing.code).toBe(1);
    expect(missing.err.at(-1)).toMatch(/^error: cannot read test\/fixtures\/cli\/no-such-file\.json: /);
  });
});
