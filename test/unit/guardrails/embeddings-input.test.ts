import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEmbeddingsInput, mapInputTexts } from '../../../src/guardrails/embeddings-input.js';
import type { RequestBody } from '../../../src/guardrails/request.js';
import { loadTestConfig } from '../../helpers/start-gateway.js';
import { compile, detectors, guardrail, keywords, webhook } from './rule-configs.js';
import { json, startWebhookServer, type WebhookServer } from './webhook-server.js';

const config = loadTestConfig(`
providers:
  local:
    api: mock
    models: { embed: { context_window: 8192, kind: embedding } }
`);
const scope = { role: 'dev', keyId: 'k1', modelId: 'local/embed' };
const deps = { config };
const body = (): RequestBody => ({
  model: 'local/embed',
  input: ['hello world', 'write to bob@example.com'],
  user: 'carol@example.com',
});

describe('mapInputTexts', () => {
  it('maps each text of input and nothing else; the same body when nothing changed', () => {
    const upper = (t: string) => t.toUpperCase();
    const b = body();
    expect(mapInputTexts(b, upper)).toEqual({ ...b, input: ['HELLO WORLD', 'WRITE TO BOB@EXAMPLE.COM'] });
    expect(mapInputTexts({ model: 'm', input: 'one' }, upper)).toEqual({ model: 'm', input: 'ONE' });
    const tokens = { model: 'm', input: [[1, 2], [3]] };
    expect(mapInputTexts(tokens, upper)).toBe(tokens);
    expect(mapInputTexts(b, (t) => t)).toBe(b);
  });
});

describe('checkEmbeddingsInput', () => {
  it('redacts the input texts into a new body (user is not an input), leaving the original untouched', async () => {
    const b = body();
    const r = await checkEmbeddingsInput(compile(guardrail('pii', detectors('email'), 'redact')), scope, b, deps);
    expect(r.blockedBy).toBeUndefined();
    expect(r.body).toEqual({ ...b, input: ['hello world', 'write to [REDACTED:email]'] });
    expect(b).toEqual(body());
    expect(r.hits).toEqual([{ guardrailId: 'pii', action: 'redact', label: 'email' }]);
  });

  it('blocks on a match; no rule for the scope: the body as it is', async () => {
    const blocked = await checkEmbeddingsInput(
      compile(guardrail('kw', keywords(['hello']), 'block')),
      scope,
      body(),
      deps,
    );
    expect(blocked.blockedBy).toBe('kw');
    const b = body();
    const other = guardrail('kw', keywords(['hello']), 'block', { match: { keys: ['someone-else'] } });
    expect(await checkEmbeddingsInput(compile(other), scope, b, deps)).toEqual({ body: b, hits: [] });
  });

  it('max_input_tokens counts texts with the tokenizer and token ids one each', async () => {
    const limit = (n: number) => compile(guardrail('size', { type: 'max_input_tokens', limit: n }, 'block'));
    const blockedBy = async (input: unknown, n: number) =>
      (await checkEmbeddingsInput(limit(n), scope, { model: 'local/embed', input }, deps)).blockedBy;
    // "hello world" is 2 tokens in o200k_base, "hi" 1.
    expect(await blockedBy(['hello world', 'hi'], 3)).toBeUndefined();
    expect(await blockedBy(['hello world', 'hi'], 2)).toBe('size');
    expect(await blockedBy([[5, 6, 7], [8]], 4)).toBeUndefined();
    expect(await blockedBy([[5, 6, 7], [8]], 3)).toBe('size');
  });

  describe('webhooks', () => {
    let hook: WebhookServer;
    beforeAll(async () => {
      hook = await startWebhookServer();
    });
    afterAll(() => hook.close());

    it('see the input texts as parts, and their redaction goes into input', async () => {
      hook.reply = json({ action: 'redact', parts: ['[one]', '[two]'] });
      const r = await checkEmbeddingsInput(compile(guardrail('hook', webhook(hook.url), 'block')), scope, body(), deps);
      expect(hook.calls.map((c) => c.parts)).toEqual([['hello world', 'write to bob@example.com']]);
      expect(r.body).toEqual({ ...body(), input: ['[one]', '[two]'] });
    });
  });
});
