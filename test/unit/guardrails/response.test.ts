import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatResponse } from '../../../src/core/canonical.js';
import { checkOutput } from '../../../src/guardrails/response.js';
import { compile, detectors, guardrail, keywords, scope, webhook } from './rule-configs.js';
import { hang, json, startWebhookServer, type WebhookServer } from './webhook-server.js';

function response(): ChatResponse {
  return {
    id: 'r1',
    model: 'local/echo',
    created: 1,
    content: [
      { type: 'reasoning', text: 'mail a@example.com', signature: 's' },
      { type: 'text', text: 'Write to a@example.com.' },
      {
        type: 'tool_call',
        id: 't1',
        name: 'send',
        arguments: '{"to":"a@example.com","body":"key AKIAIOSFODNN7EXAMPLE"}',
      },
    ],
    finish: 'tool_calls',
    usage: { inputTokens: 3, outputTokens: 4 },
  };
}

describe('checkOutput', () => {
  it('redacts text parts and tool-call arguments (valid JSON), not reasoning; original untouched', async () => {
    const res = response();
    const before = structuredClone(res);
    const r = await checkOutput(compile(guardrail('pii', detectors('email', 'aws_access_key'), 'redact')), scope, res);
    expect(res).toEqual(before);
    expect(r.changed).toBe(true);
    expect(r.response.content[0]).toBe(res.content[0]);
    expect(r.response.content[1]).toEqual({ type: 'text', text: 'Write to [REDACTED:email].' });
    const call = r.response.content[2] as { arguments: string };
    expect(JSON.parse(call.arguments)).toEqual({ to: '[REDACTED:email]', body: 'key [REDACTED:aws_access_key]' });
    expect(r.response.usage).toBe(res.usage);
    expect(r.hits).toEqual([
      { guardrailId: 'pii', action: 'redact', label: 'email' },
      { guardrailId: 'pii', action: 'redact', label: 'aws_access_key' },
    ]);
  });
  it('blocks; same object back when nothing matches; input-only rules ignored', async () => {
    expect(
      (await checkOutput(compile(guardrail('aws', detectors('aws_access_key'), 'block')), scope, response())).blockedBy,
    ).toBe('aws');
    const res = response();
    const r = await checkOutput(
      compile(
        guardrail('kw', keywords(['nothing']), 'block'),
        guardrail('in', detectors('email'), 'block', { appliesTo: 'input' }),
      ),
      scope,
      res,
    );
    expect(r).toEqual({ response: res, changed: false, hits: [] });
    expect(r.response).toBe(res);
  });

  describe('webhooks', () => {
    let hook: WebhookServer;
    beforeAll(async () => {
      hook = await startWebhookServer();
    });
    afterAll(() => hook.close());

    it('sees the redacted output texts, and can block or redact', async () => {
      hook.reply = json({ action: 'block' });
      const rules = compile(
        guardrail('pii', detectors('email'), 'redact'),
        guardrail('hook', webhook(hook.url), 'block'),
      );
      const blocked = await checkOutput(rules, scope, response());
      expect(blocked.blockedBy).toBe('hook');
      expect(hook.calls.at(-1)).toMatchObject({
        direction: 'output',
        parts: ['Write to [REDACTED:email].', '{"to":"[REDACTED:email]","body":"key AKIAIOSFODNN7EXAMPLE"}'],
      });

      hook.reply = (call, res) =>
        json({ action: 'redact', parts: call.parts.map((p) => p.replace('AKIAIOSFODNN7EXAMPLE', 'xxx')) })(call, res);
      const redacted = await checkOutput(rules, scope, response());
      expect(redacted.blockedBy).toBeUndefined();
      expect((redacted.response.content[2] as { arguments: string }).arguments).toBe(
        '{"to":"[REDACTED:email]","body":"key xxx"}',
      );
      expect(redacted.hits.map((h) => `${h.guardrailId}:${h.action}:${h.label}`)).toEqual([
        'pii:redact:email',
        'hook:redact:webhook',
      ]);
    });
    it('timeouts follow on_error', async () => {
      hook.reply = hang;
      const open = await checkOutput(
        compile(guardrail('hook', webhook(hook.url, 100, 'fail_open'), 'block')),
        scope,
        response(),
      );
      expect(open.blockedBy).toBeUndefined();
      expect(open.hits).toEqual([{ guardrailId: 'hook', action: 'log', label: 'webhook_error' }]);
      const closed = await checkOutput(
        compile(guardrail('hook', webhook(hook.url, 100, 'fail_closed'), 'block')),
        scope,
        response(),
      );
      expect(closed.blockedBy).toBe('hook');
    });
  });
});
