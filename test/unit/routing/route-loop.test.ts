import { describe, expect, it } from 'vitest';
import { CancelSignal } from '../../../src/core/cancel.js';
import { GatewayError } from '../../../src/core/errors.js';
import type { Reply } from '../../../src/core/reply.js';
import { type Credential, CredentialPlan } from '../../../src/routing/byok.js';
import { Breakers } from '../../../src/routing/cooldown.js';
import { resolveModel } from '../../../src/routing/resolve-model.js';
import { type AttemptTally, type RouteLoopInput, routeRequest } from '../../../src/routing/route-loop.js';
import type { Candidate } from '../../../src/routing/resolve-model.js';
import { loadTestConfig } from '../../helpers/start-gateway.js';

// The routing loop with scripted attempts: no sockets, no gateway. Every outcome is an attempt
// function's return or throw; the loop's decisions are read from the call order, the tally and
// the breakers.
const config = loadTestConfig(`
providers:
  a: { api: openai, base_url: "http://127.0.0.1:1/v1", api_key: sk-a-configured, byok: optional,
       models: { m: { context_window: 100 } },
       cooldown: { failures: 1, window_ms: 60000, cooldown_ms: 30000 } }
  b: { api: openai, base_url: "http://127.0.0.1:2/v1", api_key: sk-b-configured,
       models: { m: { context_window: 100 } } }
  c: { api: openai, base_url: "http://127.0.0.1:3/v1", api_key: sk-c-configured,
       models: { m: { context_window: 100 } } }
routing:
  max_attempts: 5
  retry: { max_retries: 1, initial_backoff_ms: 1, max_backoff_ms: 2 }
  retry_on: [5xx]
  fallback_on: [5xx, 429, connect, timeout, auth]
aliases:
  t/chain: { strategy: ordered, targets: [ a/m, b/m ], fallbacks: [ c/m ] }
roles: { r: { models: ["*"] } }
keys: [ { id: k, key: "key-key-key-key", role: r } ]
`);

const OK: Reply = { kind: 'json', status: 200, body: { ok: true } };
const upstream = (status: number) =>
  new GatewayError('upstream_error', `HTTP ${status}`, { status: status >= 500 ? 502 : status, upstream: { status } });

type Script = Record<string, Array<Reply | GatewayError>>;

function setup(script: Script, opts: { callerKey?: string; breakers?: Breakers; id?: string } = {}) {
  const id = opts.id ?? 't/chain';
  const resolution = resolveModel(config, id)!;
  const calls: string[] = [];
  const tally: AttemptTally = { attempts: 0, backoffMs: 0, attemptLog: [] };
  const breakers = opts.breakers ?? new Breakers();
  const served: string[] = [];
  const input: RouteLoopInput = {
    id,
    isAlias: resolution.kind === 'alias',
    candidates: resolution.candidates,
    policy: resolution.kind === 'alias' ? resolution.alias.routing : config.routing,
    breakers,
    plan: new CredentialPlan(opts.callerKey, 'same_provider'),
    signal: new CancelSignal(),
    tally,
    attempt: async (c: Candidate, cred: Credential) => {
      calls.push(`${c.model.id}${cred.byok ? ' (byok)' : ''}`);
      const next = script[c.model.id]?.shift();
      if (!next) throw new Error(`no scripted outcome left for ${c.model.id}`);
      if (next instanceof GatewayError) throw next;
      return next;
    },
    onServed: (c) => served.push(c.model.id),
  };
  return { input, calls, tally, breakers, served };
}

describe('routeRequest', () => {
  it('retries a 5xx on the same target, then moves on to the next and records every attempt', async () => {
    const s = setup({ 'a/m': [upstream(500), upstream(502)], 'b/m': [OK] });
    await expect(routeRequest(s.input)).resolves.toBe(OK);
    expect(s.calls).toEqual(['a/m', 'a/m', 'b/m']);
    expect(s.served).toEqual(['b/m']);
    expect(s.tally.attempts).toBe(3);
    expect(s.tally.attemptLog.map((r) => [r.model, r.outcome, r.status])).toEqual([
      ['a/m', 'failed', 500],
      ['a/m', 'failed', 502],
      ['b/m', 'ok', 200],
    ]);
    expect(s.tally.backoffMs).toBeGreaterThan(0);
  });

  it("returns the caller's own mistake (a 400) as it is, without trying elsewhere", async () => {
    const s = setup({ 'a/m': [upstream(400)] });
    await expect(routeRequest(s.input)).rejects.toMatchObject({ message: 'HTTP 400' });
    expect(s.calls).toEqual(['a/m']);
  });

  it('never moves on from a gateway or caller error that is not a provider failure', async () => {
    const s = setup({ 'a/m': [new GatewayError('invalid_request', 'bad field')] });
    await expect(routeRequest(s.input)).rejects.toMatchObject({ code: 'invalid_request' });
    expect(s.calls).toEqual(['a/m']);
  });

  it('names the alias and the number of attempts when every target failed', async () => {
    const s = setup({
      'a/m': [upstream(503), upstream(503)],
      'b/m': [upstream(503), upstream(503)],
      'c/m': [upstream(503)],
    });
    const err = await routeRequest(s.input).catch((e) => e);
    expect(err.message).toMatch(/^alias "t\/chain" could not be served \(5 attempts\)\. Last failure: HTTP 503/);
    expect(s.calls).toEqual(['a/m', 'a/m', 'b/m', 'b/m', 'c/m']); // max_attempts: 5
  });

  it('skips a target whose circuit is open, and says so when nothing else is left', async () => {
    const breakers = new Breakers();
    const first = setup({ 'a/m': [upstream(503), upstream(503)], 'b/m': [OK] }, { breakers });
    await routeRequest(first.input);
    // One failure opens a/m's circuit (cooldown failures: 1): the next request starts at b/m.
    const second = setup({ 'b/m': [OK] }, { breakers });
    await routeRequest(second.input);
    expect(second.calls).toEqual(['b/m']);
    const alone = setup({}, { breakers, id: 'a/m' });
    const err = await routeRequest(alone.input).catch((e) => e);
    expect(err).toMatchObject({ code: 'no_available_provider' });
    expect(err.message).toContain('"a/m" is cooling down');
    expect(err.headers['retry-after']).toMatch(/^\d+$/);
  });

  it("a rejected caller key is the caller's error; it does not cool the shared model down", async () => {
    const s = setup({ 'a/m': [upstream(401)] }, { callerKey: 'sk-mine-mine-mine', id: 'a/m' });
    await expect(routeRequest(s.input)).rejects.toMatchObject({ code: 'provider_key_rejected' });
    expect(s.calls).toEqual(['a/m (byok)']);
    expect(s.breakers.admit('a/m')).toBe('yes');
  });

  it('a configured key rejected (401) trips that credential and moves on', async () => {
    const breakers = new Breakers();
    const s = setup({ 'a/m': [upstream(401)], 'b/m': [OK] }, { breakers });
    await routeRequest(s.input);
    expect(s.calls).toEqual(['a/m', 'b/m']);
    expect(breakers.admit('credential:a')).toBe('no');
  });

  it('a stream settles its target when it ends: a caller leaving early is not a failure', async () => {
    async function* chunks() {
      yield 'data: 1\n\n';
      yield 'data: 2\n\n';
    }
    const breakers = new Breakers();
    const ended: string[] = [];
    const s = setup({ 'a/m': [{ kind: 'sse', chunks: chunks() }] }, { breakers, id: 'a/m' });
    s.input.onStreamEnd = (_c, o) => ended.push(o);
    const reply = await routeRequest(s.input);
    expect(reply.kind).toBe('sse');
    const it = (reply as Extract<Reply, { kind: 'sse' }>).chunks[Symbol.asyncIterator]();
    await it.next();
    await it.return?.(undefined); // the caller went away after one chunk
    expect(ended).toEqual(['abandoned']);
    expect(s.tally.attemptLog[0].outcome).toBe('abandoned');
    expect(breakers.admit('a/m')).toBe('yes');
  });

  it('a stream that breaks after committing counts against its target', async () => {
    async function* chunks() {
      yield 'data: 1\n\n';
      throw new GatewayError('upstream_unavailable', 'connection reset');
    }
    const breakers = new Breakers();
    const s = setup({ 'a/m': [{ kind: 'sse', chunks: chunks() }] }, { breakers, id: 'a/m' });
    const reply = (await routeRequest(s.input)) as Extract<Reply, { kind: 'sse' }>;
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const c of reply.chunks) seen.push(c);
      })(),
    ).rejects.toMatchObject({ code: 'upstream_unavailable' });
    expect(s.tally.attemptLog[0].outcome).toBe('failed');
    expect(breakers.admit('a/m')).toBe('no'); // a/m opens after one failure
  });
});

describe('routeRequest: canonical event streams', () => {
  it('a stream of events whose reader stops after its last event counts as completed', async () => {
    async function* events() {
      yield { type: 'message_start', id: 'm', model: 'x', created: 0 } as const;
      yield { type: 'message_stop', finish: 'stop', usage: { inputTokens: 1, outputTokens: 1 } } as const;
      yield { type: 'message_start', id: 'never-read', model: 'x', created: 0 } as const;
    }
    const breakers = new Breakers();
    const ended: string[] = [];
    const s = setup({ 'a/m': [{ kind: 'events', events: events() as never }] }, { breakers, id: 'a/m' });
    s.input.onStreamEnd = (_c, o) => ended.push(o);
    const reply = (await routeRequest(s.input)) as Extract<Reply, { kind: 'events' }>;
    for await (const ev of reply.events) if (ev.type === 'message_stop') break; // as the encoders do
    expect(ended).toEqual(['completed']);
    expect(s.tally.attemptLog[0].outcome).toBe('ok');
  });

  it('a stream of events left before its last event is abandoned', async () => {
    async function* events() {
      yield { type: 'message_start', id: 'm', model: 'x', created: 0 } as const;
      yield { type: 'message_stop', finish: 'stop', usage: { inputTokens: 1, outputTokens: 1 } } as const;
    }
    const ended: string[] = [];
    const s = setup({ 'a/m': [{ kind: 'events', events: events() as never }] }, { id: 'a/m' });
    s.input.onStreamEnd = (_c, o) => ended.push(o);
    const reply = (await routeRequest(s.input)) as Extract<Reply, { kind: 'events' }>;
    for await (const _ev of reply.events) break;
    expect(ended).toEqual(['abandoned']);
  });
});
