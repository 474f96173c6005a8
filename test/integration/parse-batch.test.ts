/**
 * Request bodies that arrive in the same turn are parsed and decoded together at its end
 * (pipeline/parse-body.ts), and upstream answers completed in one turn are handed on together
 * (attempt/upstream-request.ts): a refused body in a batch fails only its own request, and every
 * request goes on with its own body and gets its own answer.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream, youSaid } from '../helpers/fake-upstream.js';
import { formatsGateway } from '../helpers/gateway-config.js';
import { authHeaders, configOf, type RunningGateway, startGateway } from '../helpers/start-gateway.js';

let upstream: FakeUpstream;
let gw: RunningGateway;
beforeAll(async () => {
  upstream = await startFakeUpstream({ handler: youSaid });
  gw = await startGateway(configOf(formatsGateway(upstream.url)));
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});

/** One POST on a connection of its own, so the bodies of a round reach the gateway together. */
function post(body: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${gw.url}/v1/chat/completions`,
      { method: 'POST', headers: { ...authHeaders(), connection: 'close' }, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const valid = (n: number) =>
  JSON.stringify({ model: 'up/gpt-test', messages: [{ role: 'user', content: `request ${n}` }] });

describe('bodies parsed together', () => {
  it('answers each request from its own body; a refused body fails only its request', async () => {
    const kinds = ['valid', 'not json', 'duplicate key', 'unknown model'] as const;
    const bodies = Array.from({ length: 40 }, (_, n) => {
      const kind = kinds[n % kinds.length];
      if (kind === 'valid') return { kind, n, body: valid(n) };
      if (kind === 'not json') return { kind, n, body: `{"model":"up/gpt-test","messages":[{"role":"user"` };
      if (kind === 'duplicate key')
        return {
          kind,
          n,
          body: `{"model":"up/gpt-test","model":"up/other","messages":[{"role":"user","content":"x"}]}`,
        };
      return { kind, n, body: JSON.stringify({ model: 'nope/none', messages: [{ role: 'user', content: 'x' }] }) };
    });
    const before = upstream.received.length;
    const results = await Promise.all(bodies.map((b) => post(b.body)));
    for (const [i, r] of results.entries()) {
      const { kind, n } = bodies[i];
      if (kind === 'valid') {
        expect(r.status, `request ${n}`).toBe(200);
        expect(r.json.choices[0].message.content).toBe(`you said: request ${n}`);
      } else if (kind === 'not json') {
        expect(r.status).toBe(400);
        expect(r.json.error.code).toBe('invalid_json');
      } else if (kind === 'duplicate key') {
        expect(r.status).toBe(400);
        expect(r.json.error.message).toContain("'model' more than once");
      } else {
        expect(r.status).toBe(404);
        expect(r.json.error.code).toBe('model_not_found');
      }
    }
    // Only the valid bodies went up, each once.
    const sent = upstream.received.slice(before).map((c) => c.body.messages[0].content);
    expect(sent.sort()).toEqual(
      bodies
        .filter((b) => b.kind === 'valid')
        .map((b) => `request ${b.n}`)
        .sort(),
    );
  });
});
