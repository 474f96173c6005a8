/**
 * count_tokens costs nothing but is not free to flood: it goes through the request-rate and
 * concurrency limits, in counters of its own with room for the bursts Claude Code sends (about 14
 * parallel calls when a session starts; COUNT_TOKENS_BURST), and never uses up the chat allowance.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { COUNT_TOKENS_BURST } from '../../src/budget/plan.js';
import { withinOneMinute } from '../helpers/limits-harness.js';
import { bodyFor, headersFor, jsonReply, post, startRig, type SecurityRig } from './harness.js';

describe('count_tokens under a role rate limit of 2 requests per minute, 1 in flight', () => {
  let rig: SecurityRig | undefined;
  afterAll(() => rig?.close());

  /** A fresh gateway: its counters live in its own memory store. */
  async function fresh(): Promise<SecurityRig> {
    await rig?.close();
    rig = await startRig((req) => ({ kind: 'json', body: jsonReply(req.path, 'ok') }), {
      extra: `rate_limits:\n  - { id: dev-limit, scope: { role: dev }, requests_per_minute: 2, max_concurrent: 1 }`,
    });
    return rig;
  }

  const count = () =>
    fetch(`${rig!.gw.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: headersFor('anthropic'),
      body: JSON.stringify({ model: 'oa/m', messages: [{ role: 'user', content: 'how many tokens is this?' }] }),
    });

  it('14 parallel calls all succeed, the burst allowance is a floor, past it a 429 in Anthropic format; chats keep ' +
    'their 2', async () => {
    // Counters are per minute window: one fresh gateway per try, within one window.
    await withinOneMinute(async () => {
      const { gw } = await fresh();

      const burst = await Promise.all(Array.from({ length: 14 }, count));
      expect(burst.map((r) => r.status)).toEqual(Array(14).fill(200));
      for (const r of burst) expect(((await r.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);

      for (let i = 14; i < COUNT_TOKENS_BURST; i++) expect((await count()).status).toBe(200);
      const over = await count();
      const body = (await over.json()) as { type: string; error: { type: string; message: string } };
      expect(over.status).toBe(429);
      expect(body.type).toBe('error');
      expect(body.error.type).toBe('rate_limit_error');
      expect(body.error.message).toMatch(/token-counting requests per minute/);
      expect(over.headers.get('x-gateway-limit')).toBe('rate_limit=dev-limit');
      expect(over.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);

      // Counting took nothing from the chat allowance: 2 chats per minute, then 429.
      for (let i = 0; i < 2; i++) {
        const chat = await post(gw.url, 'anthropic', bodyFor('anthropic', 'an'));
        expect(chat.status).toBe(200);
        await chat.arrayBuffer();
      }
      const third = await post(gw.url, 'anthropic', bodyFor('anthropic', 'an'));
      expect(third.status).toBe(429);
      expect(((await third.json()) as { error: { message: string } }).error.message).not.toMatch(/token-counting/);
    });
  }, 150_000);
});
