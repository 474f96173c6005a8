import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/core/canonical.js';
import { checkInput } from '../../../src/guardrails/request.js';
import { loadTestConfig } from '../../helpers/start-gateway.js';
import { compile, detectors, guardrail, keywords, regex, scope, webhook } from './rule-configs.js';
import { hang, json, startWebhookServer, type WebhookServer } from './webhook-server.js';

const config = loadTestConfig(`
providers:
  local:
    api: mock
    models: { echo: { context_window: 8192 } }
roles:
  dev: { models: ["*"] }
`);

function request(): ChatRequest {
  return {
    model: 'local/echo',
    system: [{ type: 'text', text: 'You help ops@example.com.' }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'My card is 4111 1111 1111 1111.' }, { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'the user wrote a@example.com', signature: 'sig' },
          { type: 'tool_call', id: 'c1', name: 'lookup', arguments: '{"email":"bob@example.com","n":1}' },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', toolCallId: 'c1', content: [{ type: 'text', text: 'owner: carol@example.com' }] }, { type: 'text', text: 'thanks' }],
      },
    ],
    tools: [],
    stream: false,
    includeUsage: false,
    unmapped: [],
  };
}

const deps = { config };

describe('checkInput: pattern rules', () => {
  it('redacts every text the model reads into a new request, leaving the original untouched', async () => {
    const chat = request();
    const before = structuredClone(chat);
    const r = await checkInput(compile(guardrail('pii', detectors('email', 'credit_card'), 'redact')), scope, chat, deps);
    expect(r.changed).toBe(true);
    expect(r.blockedBy).toBeUndefined();
    expect(chat).toEqual(before);
    expect(r.request).not.toBe(chat);
    expect(r.request.system).toEqual([{ type: 'text', text: 'You help [REDACTED:email].' }]);
    expect(r.request.messages[0]!.content[0]).toEqual({ type: 'text', text: 'My card is [REDACTED:credit_card].' });
    // Reasoning is left alone (its signature covers the exact text); the image is shared as is.
    expect(r.request.messages[1]!.content[0]).toBe(chat.messages[1]!.content[0]);
    expect(r.request.messages[0]!.content[1]).toBe(chat.messages[0]!.content[1]);
    expect(r.request.messages[1]!.content[1]).toEqual({ type: 'tool_call', id: 'c1', name: 'lookup', arguments: '{"email":"[REDACTED:email]","n":1}' });
    expect(r.request.messages[2]!.content[0]).toEqual({ type: 'tool_result', toolCallId: 'c1', content: [{ type: 'text', text: 'owner: [REDACTED:email]' }] });
    // Unchanged parts are shared, not copied.
    expect(r.request.messages[2]!.content[1]).toBe(chat.messages[2]!.content[1]);
    expect(r.hits).toEqual([
      { guardrailId: 'pii', action: 'redact', label: 'email' },
      { guardrailId: 'pii', action: 'redact', label: 'credit_card' },
    ]);
  });
  it('returns the same object when nothing changed', async () => {
    const chat = request();
    const r = await checkInput(compile(guardrail('log', detectors('email'), 'log')), scope, chat, deps);
    expect(r).toEqual({ request: chat, changed: false, hits: [{ guardrailId: 'log', action: 'log', label: 'email' }] });
    expect(r.request).toBe(chat);
    const none = await checkInput([], scope, chat, deps);
    expect(none.request).toBe(chat);
  });
  it('blocks, naming the first blocking rule', async () => {
    const r = await checkInput(compile(guardrail('cc', detectors('credit_card'), 'block'), guardrail('kw', keywords(['thanks']), 'block')), scope, request(), deps);
    expect(r.blockedBy).toBe('cc');
  });
  it('applies only rules for the input side and this scope', async () => {
    const chat = request();
    const r = await checkInput(
      compile(
        guardrail('out', detectors('email'), 'redact', { appliesTo: 'output' }),
        guardrail('ops', detectors('email'), 'redact', { match: { roles: ['ops'] } }),
        guardrail('m', regex('thanks'), 'block', { match: { models: ['openai/*'] } }),
      ),
      scope,
      chat,
      deps,
    );
    expect(r).toEqual({ request: chat, changed: false, hits: [] });
  });
});

describe('checkInput: max_input_tokens', () => {
  const limit = (n: number, action: 'block' | 'log' | 'redact') => guardrail('tokens', { type: 'max_input_tokens', limit: n }, action);

  it('under the limit: nothing', async () => {
    expect((await checkInput(compile(limit(100_000, 'block')), scope, request(), deps)).hits).toEqual([]);
  });
  it('over the limit: block, log, and redact treated as block', async () => {
    expect(await checkInput(compile(limit(5, 'block')), scope, request(), deps)).toMatchObject({
      blockedBy: 'tokens',
      hits: [{ guardrailId: 'tokens', action: 'block', label: 'max_input_tokens' }],
    });
    const logged = await checkInput(compile(limit(5, 'log')), scope, request(), deps);
    expect(logged.blockedBy).toBeUndefined();
    expect(logged.hits).toEqual([{ guardrailId: 'tokens', action: 'log', label: 'max_input_tokens' }]);
    expect((await checkInput(compile(limit(5, 'redact')), scope, request(), deps)).blockedBy).toBe('tokens');
  });
  it('counts the redacted request, with an injected counter when given', async () => {
    const seen: ChatRequest[] = [];
    const countTokens = (c: ChatRequest) => (seen.push(c), 10);
    const rules = compile(guardrail('pii', detectors('email'), 'redact'), limit(10, 'block'));
    const r = await checkInput(rules, scope, request(), { ...deps, countTokens });
    expect(r.blockedBy).toBeUndefined();
    expect(seen).toEqual([r.request]);
    expect(JSON.stringify(seen[0])).not.toContain('ops@example.com');
    expect((await checkInput(compile(limit(9, 'block')), scope, request(), { ...deps, countTokens })).blockedBy).toBe('tokens');
  });
});

describe('checkInput: webhooks', () => {
  let hook: WebhookServer;
  beforeAll(async () => {
    hook = await startWebhookServer();
  });
  afterAll(() => hook.close());
  beforeEach(() => {
    hook.calls.length = 0;
  });

  it('allow: sends every text (after pattern redaction) and passes the request unchanged', async () => {
    hook.reply = json({ action: 'allow' });
    const chat = request();
    const r = await checkInput(compile(guardrail('pii', detectors('credit_card'), 'redact'), guardrail('hook', webhook(hook.url), 'block')), scope, chat, deps);
    expect(r.blockedBy).toBeUndefined();
    expect(hook.calls).toHaveLength(1);
    const call = hook.calls[0]!;
    expect(call).toMatchObject({ guardrail: 'hook', direction: 'input' });
    expect(call.parts).toEqual([
      'You help ops@example.com.',
      'My card is [REDACTED:credit_card].',
      '{"email":"bob@example.com","n":1}',
      'owner: carol@example.com',
      'thanks',
    ]);
    expect(call.text).toBe(call.parts.join('\n\n'));
    expect(r.hits).toEqual([{ guardrailId: 'pii', action: 'redact', label: 'credit_card' }]);
  });
  it('block', async () => {
    hook.reply = json({ action: 'block' });
    const r = await checkInput(compile(guardrail('hook', webhook(hook.url), 'block')), scope, request(), deps);
    expect(r.blockedBy).toBe('hook');
    expect(r.hits).toEqual([{ guardrailId: 'hook', action: 'block', label: 'webhook' }]);
  });
  it('redact with parts replaces each text in place', async () => {
    hook.reply = (call, res) => json({ action: 'redact', parts: call.parts.map((p) => p.replace(/\w+@example\.com/g, '<who>')) })(call, res);
    const chat = request();
    const r = await checkInput(compile(guardrail('hook', webhook(hook.url), 'block')), scope, chat, deps);
    expect(r.changed).toBe(true);
    expect(r.request.system).toEqual([{ type: 'text', text: 'You help <who>.' }]);
    expect(r.request.messages[1]!.content[1]).toMatchObject({ arguments: '{"email":"<who>","n":1}' });
    expect(r.request.messages[0]!.content[0]).toBe(chat.messages[0]!.content[0]);
    expect(r.hits).toEqual([{ guardrailId: 'hook', action: 'redact', label: 'webhook' }]);
  });
  it('redact with text applies to a single text; with several texts it is an error', async () => {
    hook.reply = json({ action: 'redact', text: 'clean' });
    const single: ChatRequest = { ...request(), system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'dirty' }] }] };
    const r = await checkInput(compile(guardrail('hook', webhook(hook.url), 'block')), scope, single, deps);
    expect(r.request.messages[0]!.content).toEqual([{ type: 'text', text: 'clean' }]);
    const many = await checkInput(compile(guardrail('hook', webhook(hook.url), 'block')), scope, request(), deps);
    expect(many.blockedBy).toBe('hook');
    expect(many.hits).toEqual([{ guardrailId: 'hook', action: 'block', label: 'webhook_error' }]);
  });
  it('a log rule only records the verdict', async () => {
    hook.reply = json({ action: 'block' });
    const chat = request();
    const r = await checkInput(compile(guardrail('hook', webhook(hook.url), 'log')), scope, chat, deps);
    expect(r).toEqual({ request: chat, changed: false, hits: [{ guardrailId: 'hook', action: 'log', label: 'webhook' }] });
  });
  it('timeout: fail_open lets the request through and logs webhook_error', async () => {
    hook.reply = hang;
    const chat = request();
    const r = await checkInput(compile(guardrail('hook', webhook(hook.url, 100, 'fail_open'), 'block')), scope, chat, deps);
    expect(r).toEqual({ request: chat, changed: false, hits: [{ guardrailId: 'hook', action: 'log', label: 'webhook_error' }] });
  });
  it('timeout: fail_closed blocks', async () => {
    hook.reply = hang;
    const r = await checkInput(compile(guardrail('hook', webhook(hook.url, 100, 'fail_closed'), 'block')), scope, request(), deps);
    expect(r.blockedBy).toBe('hook');
    expect(r.hits).toEqual([{ guardrailId: 'hook', action: 'block', label: 'webhook_error' }]);
  });
  it('HTTP errors, bad JSON and unknown actions are errors too', async () => {
    const rules = compile(guardrail('hook', webhook(hook.url, 2000, 'fail_closed'), 'block'));
    for (const reply of [json({ action: 'allow' }, 500), json({ verdict: 'ok' }), (_c: unknown, res: import('node:http').ServerResponse) => res.end('not json')]) {
      hook.reply = reply;
      expect((await checkInput(rules, scope, request(), deps)).blockedBy).toBe('hook');
    }
  });
  it('an unreachable webhook follows on_error', async () => {
    const closed = await startWebhookServer();
    await closed.close();
    const r = await checkInput(compile(guardrail('hook', webhook(closed.url, 1000, 'fail_open'), 'block')), scope, request(), deps);
    expect(r.hits).toEqual([{ guardrailId: 'hook', action: 'log', label: 'webhook_error' }]);
    expect(r.blockedBy).toBeUndefined();
  });
  it('is not called when a pattern rule already blocked', async () => {
    hook.reply = json({ action: 'allow' });
    const r = await checkInput(compile(guardrail('cc', detectors('credit_card'), 'block'), guardrail('hook', webhook(hook.url), 'block')), scope, request(), deps);
    expect(r.blockedBy).toBe('cc');
    expect(hook.calls).toHaveLength(0);
  });
});
