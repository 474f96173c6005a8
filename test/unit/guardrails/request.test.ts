import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/core/canonical.js';
import { decodeAnthropicRequest } from '../../../src/formats/anthropic-messages/request-decode.js';
import { checkInput, type InputRequest, type RequestBody } from '../../../src/guardrails/request.js';
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

/** An Anthropic body with every kind of content: system, image, reasoning, a tool call and its result. */
function body(): RequestBody {
  return {
    model: 'local/echo',
    max_tokens: 100,
    system: 'You help ops@example.com.',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'My card is 4111 1111 1111 1111.' },
          { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'the user wrote a@example.com', signature: 'sig' },
          { type: 'tool_use', id: 'c1', name: 'lookup', input: { email: 'bob@example.com', n: 1 } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'text', text: 'owner: carol@example.com' }] },
          { type: 'text', text: 'thanks' },
        ],
      },
    ],
  };
}

const decode = (b: RequestBody) => decodeAnthropicRequest(b, { forCounting: true });
function request(b: RequestBody = body()): InputRequest {
  return { body: b, chat: decode(b) };
}

const deps = { config, decode };

describe('checkInput: pattern rules', () => {
  it(
    'redacts every text the model reads into a new body and canonical view, ' + 'leaving the original untouched',
    async () => {
      const req = request();
      const before = structuredClone(req);
      const r = await checkInput(
        compile(guardrail('pii', detectors('email', 'credit_card'), 'redact')),
        scope,
        req,
        deps,
      );
      expect(r.changed).toBe(true);
      expect(r.blockedBy).toBeUndefined();
      expect(req).toEqual(before);
      expect(r.body).not.toBe(req.body);
      const b = r.body as any;
      const orig = req.body as any;
      expect(b.system).toBe('You help [REDACTED:email].');
      expect(b.messages[0].content[0]).toEqual({ type: 'text', text: 'My card is [REDACTED:credit_card].' });
      // Reasoning is left alone (its signature covers the exact text); the image is shared as is.
      expect(b.messages[1].content[0]).toBe(orig.messages[1].content[0]);
      expect(b.messages[0].content[1]).toBe(orig.messages[0].content[1]);
      expect(b.messages[1].content[1]).toEqual({
        type: 'tool_use',
        id: 'c1',
        name: 'lookup',
        input: { email: '[REDACTED:email]', n: 1 },
      });
      expect(b.messages[2].content[0]).toEqual({
        type: 'tool_result',
        tool_use_id: 'c1',
        content: [{ type: 'text', text: 'owner: [REDACTED:email]' }],
      });
      // Unchanged parts are shared, not copied.
      expect(b.messages[2].content[1]).toBe(orig.messages[2].content[1]);
      // The canonical view is the redacted body's.
      expect(r.chat).toEqual(decode(r.body));
      expect(JSON.stringify(r.chat)).not.toMatch(/ops@|bob@|carol@|4111/);
      expect(r.hits).toEqual([
        { guardrailId: 'pii', action: 'redact', label: 'email' },
        { guardrailId: 'pii', action: 'redact', label: 'credit_card' },
      ]);
    },
  );
  it('returns the same objects when nothing changed', async () => {
    const req = request();
    const r = await checkInput(compile(guardrail('log', detectors('email'), 'log')), scope, req, deps);
    expect(r).toEqual({ ...req, changed: false, hits: [{ guardrailId: 'log', action: 'log', label: 'email' }] });
    expect(r.body).toBe(req.body);
    expect(r.chat).toBe(req.chat);
    const none = await checkInput([], scope, req, deps);
    expect(none.body).toBe(req.body);
  });
  it('blocks, naming the first blocking rule', async () => {
    const r = await checkInput(
      compile(guardrail('cc', detectors('credit_card'), 'block'), guardrail('kw', keywords(['thanks']), 'block')),
      scope,
      request(),
      deps,
    );
    expect(r.blockedBy).toBe('cc');
  });
  it('applies only rules for the input side and this scope', async () => {
    const req = request();
    const r = await checkInput(
      compile(
        guardrail('out', detectors('email'), 'redact', { appliesTo: 'output' }),
        guardrail('ops', detectors('email'), 'redact', { match: { roles: ['ops'] } }),
        guardrail('m', regex('thanks'), 'block', { match: { models: ['openai/*'] } }),
      ),
      scope,
      req,
      deps,
    );
    expect(r).toEqual({ ...req, changed: false, hits: [] });
  });
});

describe('checkInput: max_input_tokens', () => {
  const limit = (n: number, action: 'block' | 'log' | 'redact') =>
    guardrail('tokens', { type: 'max_input_tokens', limit: n }, action);

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
    const countTokens = (c: ChatRequest) => {
      seen.push(c);
      return 10;
    };
    const rules = compile(guardrail('pii', detectors('email'), 'redact'), limit(10, 'block'));
    const r = await checkInput(rules, scope, request(), { ...deps, countTokens });
    expect(r.blockedBy).toBeUndefined();
    expect(seen).toEqual([r.chat]);
    expect(JSON.stringify(seen[0])).not.toContain('ops@example.com');
    expect((await checkInput(compile(limit(9, 'block')), scope, request(), { ...deps, countTokens })).blockedBy).toBe(
      'tokens',
    );
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
    const r = await checkInput(
      compile(guardrail('pii', detectors('credit_card'), 'redact'), guardrail('hook', webhook(hook.url), 'block')),
      scope,
      request(),
      deps,
    );
    expect(r.blockedBy).toBeUndefined();
    expect(hook.calls).toHaveLength(1);
    const call = hook.calls[0]!;
    expect(call).toMatchObject({ guardrail: 'hook', direction: 'input' });
    expect(call.parts).toEqual([
      'You help ops@example.com.',
      'My card is [REDACTED:credit_card].',
      'lookup',
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
    hook.reply = (call, res) =>
      json({ action: 'redact', parts: call.parts.map((p) => p.replace(/\w+@example\.com/g, '<who>')) })(call, res);
    const req = request();
    const r = await checkInput(compile(guardrail('hook', webhook(hook.url), 'block')), scope, req, deps);
    expect(r.changed).toBe(true);
    expect(r.chat.system).toEqual([{ type: 'text', text: 'You help <who>.' }]);
    expect(r.chat.messages[1]!.content[1]).toMatchObject({ arguments: '{"email":"<who>","n":1}' });
    expect((r.body as any).messages[0].content[0]).toBe((req.body as any).messages[0].content[0]);
    expect(r.hits).toEqual([{ guardrailId: 'hook', action: 'redact', label: 'webhook' }]);
  });
  it('redact with text applies to a single text; with several texts it is an error', async () => {
    hook.reply = json({ action: 'redact', text: 'clean' });
    const single = request({ model: 'local/echo', max_tokens: 100, messages: [{ role: 'user', content: 'dirty' }] });
    const r = await checkInput(compile(guardrail('hook', webhook(hook.url), 'block')), scope, single, deps);
    expect(r.chat.messages[0]!.content).toEqual([{ type: 'text', text: 'clean' }]);
    const many = await checkInput(compile(guardrail('hook', webhook(hook.url), 'block')), scope, request(), deps);
    expect(many.blockedBy).toBe('hook');
    expect(many.hits).toEqual([{ guardrailId: 'hook', action: 'block', label: 'webhook_error' }]);
  });
  it('a log rule only records the verdict', async () => {
    hook.reply = json({ action: 'block' });
    const req = request();
    const r = await checkInput(compile(guardrail('hook', webhook(hook.url), 'log')), scope, req, deps);
    expect(r).toEqual({ ...req, changed: false, hits: [{ guardrailId: 'hook', action: 'log', label: 'webhook' }] });
  });
  it('timeout: fail_open lets the request through and logs webhook_error', async () => {
    hook.reply = hang;
    const req = request();
    const r = await checkInput(
      compile(guardrail('hook', webhook(hook.url, 100, 'fail_open'), 'block')),
      scope,
      req,
      deps,
    );
    expect(r).toEqual({
      ...req,
      changed: false,
      hits: [{ guardrailId: 'hook', action: 'log', label: 'webhook_error' }],
    });
  });
  it('timeout: fail_closed blocks', async () => {
    hook.reply = hang;
    const r = await checkInput(
      compile(guardrail('hook', webhook(hook.url, 100, 'fail_closed'), 'block')),
      scope,
      request(),
      deps,
    );
    expect(r.blockedBy).toBe('hook');
    expect(r.hits).toEqual([{ guardrailId: 'hook', action: 'block', label: 'webhook_error' }]);
  });
  it('HTTP errors, bad JSON and unknown actions are errors too', async () => {
    const rules = compile(guardrail('hook', webhook(hook.url, 2000, 'fail_closed'), 'block'));
    for (const reply of [
      json({ action: 'allow' }, 500),
      json({ verdict: 'ok' }),
      (_c: unknown, res: import('node:http').ServerResponse) => res.end('not json'),
    ]) {
      hook.reply = reply;
      expect((await checkInput(rules, scope, request(), deps)).blockedBy).toBe('hook');
    }
  });
  it('an unreachable webhook follows on_error', async () => {
    const closed = await startWebhookServer();
    await closed.close();
    const r = await checkInput(
      compile(guardrail('hook', webhook(closed.url, 1000, 'fail_open'), 'block')),
      scope,
      request(),
      deps,
    );
    expect(r.hits).toEqual([{ guardrailId: 'hook', action: 'log', label: 'webhook_error' }]);
    expect(r.blockedBy).toBeUndefined();
  });
  it('is not called when a pattern rule already blocked', async () => {
    hook.reply = json({ action: 'allow' });
    const r = await checkInput(
      compile(guardrail('cc', detectors('credit_card'), 'block'), guardrail('hook', webhook(hook.url), 'block')),
      scope,
      request(),
      deps,
    );
    expect(r.blockedBy).toBe('cc');
    expect(hook.calls).toHaveLength(0);
  });
});
