/**
 * Issue 10 §1: a caller leaving is not a provider failure. Before the fix, three abandoned
 * streams opened the model's circuit for every caller for 30 s, and the log blamed the provider.
 */

import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText } from '../helpers/fake-upstream.js';
import {
  abandonBeforeResponse,
  abandonStream,
  ALL_PAIRS,
  jsonReply,
  bodyFor,
  eventually,
  KIND_MESSAGES_PAIRS,
  post,
  requestLines,
  startRig,
  streamFor,
  type SecurityRig,
  userTextOf,
  wantsStream,
} from './harness.js';

/** The log lines of these requests (by correlation id), once all are written. */
function linesOf(rig: SecurityRig, ids: string[]): Promise<any[]> {
  return eventually(
    () => {
      const lines = ids.map((id) => requestLines(rig.gw.logs).find((l) => l.correlation_id === id));
      return lines.every(Boolean) ? lines : undefined;
    },
    `log lines of ${ids.join(', ')}`,
  );
}

const WORDS = Array.from({ length: 40 }, (_, i) => ` word${i}`);
/**
 * The direct pairs and each new kind through its front, from the messages endpoint only: what a kind changes
 * is its upstream's side (secret-leaks and stream-integrity cover every endpoint on the kinds).
 */
const PAIRS = [...ALL_PAIRS, ...KIND_MESSAGES_PAIRS];

describe('a caller leaving mid-stream', () => {
  let rig: SecurityRig;
  /** Slow answers are held until the suite ends, then sent: the kinds' fronts end their relays cleanly. */
  let release: () => void;
  const suiteEnd = new Promise<void>((r) => {
    release = r;
  });
  beforeAll(async () => {
    // Slow streams: the caller is gone long before the upstream would finish.
    rig = await startRig(
      (req) => {
        if (userTextOf(req).includes('slow json'))
          return { kind: 'held', until: suiteEnd, then: { kind: 'json', body: jsonReply(req.path, 'late') } };
        if (!wantsStream(req)) return { kind: 'json', body: jsonReply(req.path, 'fine') };
        return { kind: 'sse', events: streamFor(req.path, WORDS), delayMs: 50 };
      },
      { kinds: true },
    );
  });
  afterAll(async () => {
    release();
    // Every answer sent to its end, so no front is cut off mid-relay.
    await eventually(() => (rig.up.open === 0 ? true : undefined), 'the upstream answers to end');
    await rig.close();
  });

  it.each(PAIRS)(
    "%s caller → %s provider: three abandoned streams leave the model healthy, logged as the caller's doing",
    async (ep, provider) => {
      const ids = [ulid(), ulid(), ulid()];
      for (const id of ids) await abandonStream(rig.gw.url, ep, bodyFor(ep, provider, { stream: true }), 'word2', id);
      const lines = await linesOf(rig, ids);
      for (const l of lines) {
        expect(l.fault).toBe('caller');
        expect(l.client_aborted).toBe(true);
      }
      expect(rig.gw.gateway.runtime.breakers.cooling()).toEqual([]);
      // The next caller is served, not told the model is cooling down.
      const res = await post(rig.gw.url, ep, bodyFor(ep, provider));
      expect(res.status).toBe(200);
      await res.text();
    },
  );

  it.each(PAIRS)(
    '%s caller → %s provider: the upstream request is cancelled when the caller leaves',
    async (ep, provider) => {
      const calls = rig.up.received.length;
      await abandonStream(rig.gw.url, ep, bodyFor(ep, provider, { stream: true }), 'word1');
      expect(rig.up.received.length).toBe(calls + 1);
      // The upstream's socket is closed by the gateway: the mock's write loop stops (no error surfaces);
      // what matters here is that nothing is counted against the model.
      expect(rig.gw.gateway.runtime.breakers.cooling()).toEqual([]);
    },
  );

  it.each(PAIRS)('%s caller → %s provider: leaving before the response is a caller event', async (ep, provider) => {
    const ids = [ulid(), ulid(), ulid()];
    for (const id of ids)
      await abandonBeforeResponse(rig.gw.url, ep, bodyFor(ep, provider, { text: 'slow json' }), 100, id);
    const lines = await linesOf(rig, ids);
    for (const l of lines) expect(l).toMatchObject({ fault: 'caller', client_aborted: true });
    expect(lines.map((l) => l.status)).not.toContain(500);
    expect(rig.gw.gateway.runtime.breakers.cooling()).toEqual([]);
  });

  it.each(PAIRS)(
    '%s caller → %s provider: an abandoned stream is billed for the output it relayed',
    async (ep, provider) => {
      const id = ulid();
      await abandonStream(rig.gw.url, ep, bodyFor(ep, provider, { stream: true }), 'word9', id);
      const [line] = await linesOf(rig, [id]);
      // At least the ten words relayed (each " wordN" is 2-3 tokens), never the whole 40.
      expect(line.output_tokens).toBeGreaterThanOrEqual(10);
      expect(line.output_tokens).toBeLessThan(40 * 3);
      expect(line.input_tokens).toBeGreaterThan(0);
      expect(line.cost_usd).toBeGreaterThan(0);
    },
  );
});

describe("a failure with the caller's own key (BYOK)", () => {
  let rig: SecurityRig;
  beforeAll(async () => {
    rig = await startRig((req) => {
      const own =
        req.headers.authorization === 'Bearer callers-own-provider-key-1' ||
        req.headers['x-api-key'] === 'callers-own-provider-key-1';
      if (own) {
        const status = Number(/fail (\d+)/.exec(lastUserText(req.body))?.[1] ?? 429);
        return {
          kind: 'json',
          status,
          body: { error: { type: 'rate_limit_error', message: 'your own account is limited' } },
          headers: { 'retry-after': '0' },
        };
      }
      if (!req.body?.stream) return { kind: 'json', body: jsonReply(req.path, 'fine') };
      return { kind: 'sse', events: streamFor(req.path, ['ok']) };
    });
  });
  afterAll(() => rig.close());

  it.each(ALL_PAIRS)(
    '%s caller → %s provider: their 401/403/429 never cools the shared model or the gateway credential',
    async (ep, provider) => {
      for (const status of [429, 429, 429, 401, 403]) {
        const res = await post(rig.gw.url, ep, bodyFor(ep, provider, { text: `fail ${status}` }), {
          'x-provider-api-key': 'callers-own-provider-key-1',
        });
        expect(res.status).toBe(status === 429 ? 429 : 401);
        await res.text();
      }
      expect(rig.gw.gateway.runtime.breakers.cooling()).toEqual([]);
      const res = await post(rig.gw.url, ep, bodyFor(ep, provider, { stream: true }));
      expect(res.status).toBe(200);
      await res.text();
    },
  );
});
