/**
 * The routing loop over real sockets: one programmable upstream per provider (p1, p2, p3), so
 * the sequence of attempts across providers is visible. Retries, fallbacks, strategies, circuit
 * breakers, the error a caller sees when everything fails, and bring-your-own-key, on both
 * caller endpoints. Delays are short; timing is only ever asserted as a lower bound.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closedPortUrl, startFleet, type Fleet } from '../helpers/fake-upstream.js';
import { configuredKey, FLEET_KEY as GW_KEY, fleetGateway, type FleetProvider } from '../helpers/gateway-config.js';
import { readSse } from '../helpers/sse.js';
import { configOf, startGateway, type RunningGateway } from '../helpers/start-gateway.js';

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
/** Deliberately not shaped like a known credential, so only exact-value redaction can hide it. */
const CALLER_KEY = 'caller-own-provider-key-5b7e19d2c4';
const ALL_CONFIGURED = ['p1', 'p2', 'p3', 'dead', 'acct', 'acct2'].map(configuredKey);

type Endpoint = 'openai' | 'anthropic';
const ENDPOINTS: Endpoint[] = ['openai', 'anthropic'];

let fleet: Fleet;
let gw: RunningGateway | undefined;

beforeEach(async () => {
  fleet = await startFleet(['p1', 'p2', 'p3']);
});

afterEach(async () => {
  try {
    // Invariants of every test: the gateway key never goes upstream, and no key is ever logged.
    for (const c of fleet.calls) expect(JSON.stringify(c.headers) + JSON.stringify(c.body)).not.toContain(GW_KEY);
    if (gw) {
      const logs = gw.logs.join('\n');
      for (const secret of [GW_KEY, CALLER_KEY, ...ALL_CONFIGURED]) expect(logs).not.toContain(secret);
    }
  } finally {
    await fleet.close();
    await gw?.close();
    gw = undefined;
  }
});

// ---------------------------------------------------------------- helpers

/** Fast retries, and circuits that never open unless a test asks for them. */
const FAST = 'retry: { initial_backoff_ms: 2, max_backoff_ms: 5 }, cooldown: { failures: 1000, cooldown_ms: 1 }';
const CHAIN = '  team/chain: { strategy: ordered, targets: [p1/m, p2/m, p3/m] }';

function P(id: 'p1' | 'p2' | 'p3', extra: Partial<FleetProvider> = {}): FleetProvider {
  return { id, url: fleet.up[id].url, ...extra };
}

async function start(o: Parameters<typeof fleetGateway>[0]): Promise<RunningGateway> {
  gw = await startGateway(configOf(fleetGateway(o)));
  return gw;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface CallOpts {
  stream?: boolean;
  /** Extra request headers (e.g. x-provider-api-key). */
  headers?: Record<string, string>;
  content?: string;
}

function send(ep: Endpoint, model: string, o: CallOpts = {}): Promise<Response> {
  const messages = [{ role: 'user', content: o.content ?? 'hello' }];
  if (ep === 'openai') {
    return fetch(`${gw!.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${GW_KEY}`, 'content-type': 'application/json', ...o.headers },
      body: JSON.stringify({ model, messages, ...(o.stream ? { stream: true } : {}) }),
    });
  }
  return fetch(`${gw!.url}/v1/messages`, {
    method: 'POST',
    headers: {
      'x-api-key': GW_KEY,
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
      ...o.headers,
    },
    body: JSON.stringify({ model, max_tokens: 50, messages, ...(o.stream ? { stream: true } : {}) }),
  });
}

const chat = (model: string, o: CallOpts = {}) => send('openai', model, o);

interface Read {
  status: number;
  /** The assistant text (streams: concatenated deltas). */
  text: string;
  /** An in-stream error event's payload, if any. */
  streamError?: any;
  /** The JSON body (non-stream). */
  body?: any;
  raw: string;
}

async function read(ep: Endpoint, res: Response): Promise<Read> {
  const isSse = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  if (!isSse) {
    const raw = await res.text();
    const body = JSON.parse(raw);
    const text =
      res.status !== 200
        ? ''
        : ep === 'openai'
          ? body.choices[0].message.content
          : body.content.map((b: any) => b.text ?? '').join('');
    return { status: res.status, text, body, raw };
  }
  const msgs = await readSse(res.clone());
  const raw = await res.text();
  let text = '';
  let streamError: any;
  for (const m of msgs) {
    if (m.data === '[DONE]' || m.data === '') continue;
    const d = JSON.parse(m.data);
    if (ep === 'openai') {
      if (d.error) streamError = d;
      else text += d.choices?.[0]?.delta?.content ?? '';
    } else {
      if (d.type === 'error') streamError = d;
      else if (d.type === 'content_block_delta' && d.delta?.type === 'text_delta') text += d.delta.text;
    }
  }
  return { status: res.status, text, streamError, raw };
}

function expectServed(res: Response, model: string, attempts: number, fallback = false) {
  expect(res.status).toBe(200);
  expect(res.headers.get('x-gateway-model')).toBe(model);
  expect(res.headers.get('x-gateway-attempts')).toBe(String(attempts));
  expect(res.headers.get('x-gateway-fallback')).toBe(String(fallback));
  expect(res.headers.get('x-correlation-id')).toMatch(ULID);
}

/** Asserts the error body shape of the endpoint and returns {code?, type, message}. */
async function expectError(
  ep: Endpoint,
  res: Response,
  status: number,
  code: string,
): Promise<{ type: string; message: string; raw: string }> {
  expect(res.status).toBe(status);
  expect(res.headers.get('x-correlation-id')).toMatch(ULID);
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(res.headers.get('x-gateway-model')).toBeNull();
  const raw = await res.text();
  const body = JSON.parse(raw);
  if (ep === 'openai') {
    expect(body).toEqual({ error: { message: expect.any(String), type: expect.any(String), param: null, code } });
    return { type: body.error.type, message: body.error.message, raw };
  }
  expect(body).toEqual({ type: 'error', error: { type: expect.any(String), message: expect.any(String) } });
  return { type: body.error.type, message: body.error.message, raw };
}

/** OpenAI error type vs Anthropic error type for the same kind. */
const TYPE = {
  overloaded: { openai: 'overloaded_error', anthropic: 'overloaded_error' },
  upstream: { openai: 'upstream_error', anthropic: 'api_error' },
  rate_limit: { openai: 'rate_limit_error', anthropic: 'rate_limit_error' },
  authentication: { openai: 'authentication_error', anthropic: 'authentication_error' },
  invalid_request: { openai: 'invalid_request_error', anthropic: 'invalid_request_error' },
} as const;

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]);

// ---------------------------------------------------------------- 1. failure modes

describe('each failure mode, with the default retry_on / fallback_on', () => {
  it.each([500, 503, 529])('HTTP %i: retried once on the same target, then the next target serves', async (status) => {
    await start({ routing: FAST, providers: [P('p1'), P('p2'), P('p3')], aliases: CHAIN });
    fleet.up.p1.setHandler(status);
    const res = await chat('team/chain');
    expectServed(res, 'p2/m', 3);
    expect((await read('openai', res)).text).toBe('served by p2');
    expect(fleet.sequence).toEqual(['p1', 'p1', 'p2']);
    expect(fleet.up.p2.calls[0].body.model).toBe('m');
  });

  it('429 with retry-after-ms: waits at least that long, then retries the same target', async () => {
    await start({
      routing: FAST,
      providers: [P('p1'), P('p2')],
      aliases: '  team/chain: { strategy: ordered, targets: [p1/m, p2/m] }',
    });
    fleet.up.p1.script({ kind: 'error', status: 429, headers: { 'retry-after-ms': '60' } });
    const res = await chat('team/chain');
    expectServed(res, 'p1/m', 2);
    expect(fleet.sequence).toEqual(['p1', 'p1']);
    expect(gaps(fleet.up.p1.calls.map((c) => c.at))[0]).toBeGreaterThanOrEqual(58);
  });

  it('429 with retry-after (seconds): waits at least that long, then retries the same target', async () => {
    await start({
      routing: FAST,
      providers: [P('p1'), P('p2')],
      aliases: '  team/chain: { strategy: ordered, targets: [p1/m, p2/m] }',
    });
    fleet.up.p1.script({ kind: 'error', status: 429, headers: { 'retry-after': '1' } });
    const res = await chat('team/chain');
    expectServed(res, 'p1/m', 2);
    expect(fleet.sequence).toEqual(['p1', 'p1']);
    expect(gaps(fleet.up.p1.calls.map((c) => c.at))[0]).toBeGreaterThanOrEqual(990);
  });

  it.each([
    ['retry-after', '30'],
    ['retry-after-ms', '5000'],
  ])('429 with %s above max_retry_after_ms: no wait, the next target at once', async (name, value) => {
    await start({
      routing:
        'retry: { initial_backoff_ms: 2, max_backoff_ms: 5, max_retry_after_ms: 1000 }, cooldown: { failures: 1000, ' +
        'cooldown_ms: 1 }',
      providers: [P('p1'), P('p2')],
      aliases: '  team/chain: { strategy: ordered, targets: [p1/m, p2/m] }',
    });
    fleet.up.p1.setHandler({ kind: 'error', status: 429, headers: { [name]: value } });
    const res = await chat('team/chain');
    expectServed(res, 'p2/m', 2);
    expect(fleet.sequence).toEqual(['p1', 'p2']);
  });

  it('connection refused: retried, then the next target', async () => {
    await start({
      routing: FAST,
      providers: [{ id: 'dead', url: await closedPortUrl() }, P('p2')],
      aliases: '  team/chain: { strategy: ordered, targets: [dead/m, p2/m] }',
    });
    const res = await chat('team/chain');
    expectServed(res, 'p2/m', 3);
    expect(fleet.sequence).toEqual(['p2']);
  });

  it('connection reset before any response byte: retried, then the next target', async () => {
    await start({ routing: FAST, providers: [P('p1'), P('p2'), P('p3')], aliases: CHAIN });
    fleet.up.p1.setHandler({ kind: 'drop' });
    const res = await chat('team/chain');
    expectServed(res, 'p2/m', 3);
    expect(fleet.sequence).toEqual(['p1', 'p1', 'p2']);
  });

  it('non-stream body cut half-way: retried, then the next target', async () => {
    await start({ routing: FAST, providers: [P('p1'), P('p2'), P('p3')], aliases: CHAIN });
    fleet.up.p1.setHandler({ kind: 'drop', after: 0 });
    const res = await chat('team/chain');
    expectServed(res, 'p2/m', 3);
    expect(fleet.sequence).toEqual(['p1', 'p1', 'p2']);
  });

  it.each(ENDPOINTS)('stream reset before its first event (%s caller): not committed, so it moves on', async (ep) => {
    await start({ routing: FAST, providers: [P('p1'), P('p2'), P('p3')], aliases: CHAIN });
    fleet.up.p1.setHandler({ kind: 'drop', after: 0 });
    const res = await send(ep, 'team/chain', { stream: true });
    expectServed(res, 'p2/m', 3);
    const r = await read(ep, res);
    expect(r.streamError).toBeUndefined();
    expect(r.text).toBe('served by p2');
    expect(fleet.sequence).toEqual(['p1', 'p1', 'p2']);
  });

  it.each(ENDPOINTS)(
    'stream reset after its first event (%s caller): committed, an in-stream error, no fallback',
    async (ep) => {
      await start({ routing: FAST, providers: [P('p1'), P('p2'), P('p3')], aliases: CHAIN });
      fleet.up.p1.setHandler({ kind: 'drop', after: 2 });
      const res = await send(ep, 'team/chain', { stream: true });
      expectServed(res, 'p1/m', 1);
      const r = await read(ep, res);
      expect(r.text).not.toContain('p2');
      if (ep === 'openai') expect(r.streamError.error.code).toBe('upstream_unavailable');
      else expect(r.streamError.error.type).toBe('api_error');
      expect(fleet.sequence).toEqual(['p1']);
    },
  );

  it.each(ENDPOINTS)(
    'a translated stream whose first event is an error (%s caller, other-format upstream): not committed, moves on',
    async (ep) => {
      await start({
        routing: FAST,
        providers: [P('p1', { api: ep === 'openai' ? 'anthropic' : 'openai' }), P('p2'), P('p3')],
        aliases: CHAIN,
      });
      fleet.up.p1.setHandler({ kind: 'error', inStream: true, message: 'busy, try later' });
      const res = await send(ep, 'team/chain', { stream: true });
      expectServed(res, 'p2/m', 3);
      const r = await read(ep, res);
      expect(r.streamError).toBeUndefined();
      expect(r.text).toBe('served by p2');
      expect(fleet.sequence).toEqual(['p1', 'p1', 'p2']);
    },
  );

  it('hang before headers: first_byte timeout, retried, then the next target', async () => {
    await start({
      routing: FAST,
      providers: [P('p1', { timeouts: '{ connect_ms: 2000, first_byte_ms: 300, total_ms: 20000 }' }), P('p2'), P('p3')],
      aliases: CHAIN,
    });
    fleet.up.p1.setHandler({ kind: 'hang' });
    const res = await chat('team/chain');
    expectServed(res, 'p2/m', 3);
    expect(fleet.sequence).toEqual(['p1', 'p1', 'p2']);
    // The retry came only after the first attempt timed out.
    expect(fleet.up.p1.calls[1].at - fleet.up.p1.calls[0].at).toBeGreaterThanOrEqual(290);
  });

  it("a model's own timeouts override its provider's", async () => {
    await start({
      routing: 'retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 }',
      // Were the provider's 25 s used, this test would hit vitest's 30 s timeout.
      providers: [
        P('p1', { timeouts: '{ first_byte_ms: 25000, total_ms: 60000 }', modelTimeouts: '{ first_byte_ms: 300 }' }),
        P('p2'),
      ],
      aliases: '  team/chain: { strategy: ordered, targets: [p1/m, p2/m] }',
    });
    fleet.up.p1.setHandler({ kind: 'hang' });
    const res = await chat('team/chain');
    expectServed(res, 'p2/m', 2);
    expect(fleet.sequence).toEqual(['p1', 'p2']);
  });

  it.each(ENDPOINTS)(
    'stream that sends only a keep-alive then stalls (%s caller): timeout before the first event, moves on',
    async (ep) => {
      await start({
        routing: 'retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 }',
        providers: [
          P('p1', { timeouts: '{ connect_ms: 2000, first_byte_ms: 300, total_ms: 20000 }' }),
          P('p2'),
          P('p3'),
        ],
        aliases: CHAIN,
      });
      fleet.up.p1.setHandler({ kind: 'hang', after: 0 });
      const res = await send(ep, 'team/chain', { stream: true });
      expectServed(res, 'p2/m', 2);
      expect((await read(ep, res)).text).toBe('served by p2');
      expect(fleet.sequence).toEqual(['p1', 'p2']);
    },
  );

  it.each(ENDPOINTS)(
    'stream that hangs after its first chunk (%s caller): committed, an in-stream timeout error, no fallback',
    async (ep) => {
      await start({
        routing: FAST,
        providers: [
          P('p1', { timeouts: '{ connect_ms: 2000, first_byte_ms: 300, total_ms: 20000 }' }),
          P('p2'),
          P('p3'),
        ],
        aliases: CHAIN,
      });
      fleet.up.p1.setHandler({ kind: 'hang', after: 2 });
      const res = await send(ep, 'team/chain', { stream: true });
      expectServed(res, 'p1/m', 1);
      const r = await read(ep, res);
      if (ep === 'openai') expect(r.streamError.error.code).toBe('upstream_timeout');
      else expect(r.streamError.error.type).toBe('timeout_error');
      expect(fleet.sequence).toEqual(['p1']);
    },
  );

  it.each(ENDPOINTS)('400 (%s caller): returned at once, no retry, no fallback', async (ep) => {
    await start({ routing: FAST, providers: [P('p1'), P('p2'), P('p3')], aliases: CHAIN });
    fleet.up.p1.setHandler({ kind: 'error', status: 400, message: 'temperature is out of range' });
    const res = await send(ep, 'team/chain');
    const e = await expectError(ep, res, 400, 'upstream_error');
    expect(e.type).toBe(TYPE.invalid_request[ep]);
    expect(e.message).toContain('temperature is out of range');
    expect(res.headers.get('x-gateway-attempts')).toBe('1');
    expect(fleet.sequence).toEqual(['p1']);
  });

  it.each([401, 403])(
    "HTTP %i (the gateway's credential refused): not retried, moves on; the next requests skip that credential",
    async (status) => {
      await start({
        // The refused credential is skipped for cooldown_ms at once, whatever `failures` says.
        routing:
          'retry: { initial_backoff_ms: 2, max_backoff_ms: 5 }, cooldown: { failures: 1000, cooldown_ms: 60000 }',
        providers: [{ ...P('p1'), models: ['a', 'b'] }, P('p2')],
        aliases: '  team/chain: { strategy: ordered, targets: [p1/a, p1/b, p2/m] }',
      });
      fleet.up.p1.setHandler(status);
      // One attempt on p1; p1/b shares the refused credential, so it is skipped in the same request.
      const first = await chat('team/chain');
      expectServed(first, 'p2/m', 2);
      expect(fleet.sequence).toEqual(['p1', 'p2']);
      expect(fleet.up.p1.calls[0].body.model).toBe('a');

      const second = await chat('team/chain');
      expectServed(second, 'p2/m', 1);
      expect(fleet.sequence).toEqual(['p1', 'p2', 'p2']);

      // Asked for directly, a model behind the cooling credential: nothing to serve it.
      const direct = await chat('p1/b');
      const e = await expectError('openai', direct, 503, 'no_available_provider');
      expect(e.message).toContain('model "p1/b"');
      expect(Number(direct.headers.get('retry-after'))).toBeGreaterThan(30);
      expect(direct.headers.get('x-gateway-attempts')).toBe('0');
      expect(fleet.up.p1.calls).toHaveLength(1);
    },
  );
});

// ---------------------------------------------------------------- 2. retries and attempt limits

describe('retries and max_attempts', () => {
  it('max_retries is per target: 2 retries on p1, then p2', async () => {
    await start({
      routing:
        'max_attempts: 10, retry: { max_retries: 2, initial_backoff_ms: 1, max_backoff_ms: 5 }, ' +
        'cooldown: { failures: 1000 }',
      providers: [P('p1'), P('p2'), P('p3')],
      aliases: CHAIN,
    });
    fleet.up.p1.setHandler(500);
    fleet.up.p2.script(500, 500);
    const res = await chat('team/chain');
    expectServed(res, 'p2/m', 6);
    expect(fleet.sequence).toEqual(['p1', 'p1', 'p1', 'p2', 'p2', 'p2']);
  });

  it('max_retries 0: straight to the next target', async () => {
    await start({
      routing: 'retry: { max_retries: 0 }, cooldown: { failures: 1000 }',
      providers: [P('p1'), P('p2'), P('p3')],
      aliases: CHAIN,
    });
    fleet.up.p1.setHandler(503);
    fleet.up.p2.setHandler(503);
    const res = await chat('team/chain');
    expectServed(res, 'p3/m', 3);
    expect(fleet.sequence).toEqual(['p1', 'p2', 'p3']);
  });

  it('max_attempts caps retries, targets and fallbacks together', async () => {
    await start({
      routing:
        'max_attempts: 4, retry: { max_retries: 1, initial_backoff_ms: 1, max_backoff_ms: 5 }, cooldown: { failures: ' +
        '1000 }',
      providers: [P('p1'), P('p2'), P('p3')],
      aliases: '  team/chain: { strategy: ordered, targets: [p1/m, p2/m], fallbacks: [p3/m] }',
    });
    fleet.up.p1.setHandler(500);
    fleet.up.p2.setHandler(502);
    const res = await chat('team/chain');
    const e = await expectError('openai', res, 502, 'upstream_error');
    expect(e.message).toContain('alias "team/chain" could not be served (4 attempts)');
    expect(e.message).toContain('Provider "p2" returned HTTP 502');
    expect(res.headers.get('x-gateway-attempts')).toBe('4');
    expect(fleet.sequence).toEqual(['p1', 'p1', 'p2', 'p2']);
  });

  it('max_attempts 1: a single attempt, whatever the lists say', async () => {
    await start({
      routing: 'max_attempts: 1, cooldown: { failures: 1000 }',
      providers: [P('p1'), P('p2'), P('p3')],
      aliases: CHAIN,
    });
    fleet.up.p1.setHandler(503);
    const res = await chat('team/chain');
    const e = await expectError('openai', res, 503, 'upstream_error');
    expect(e.message).toContain('alias "team/chain" could not be served (1 attempt)');
    expect(fleet.sequence).toEqual(['p1']);
  });

  it('exponential backoff with equal jitter: each retry waits at least half its base delay', async () => {
    await start({
      routing: 'retry: { max_retries: 2, initial_backoff_ms: 40, max_backoff_ms: 1000 }, cooldown: { failures: 1000 }',
      providers: [P('p1')],
      aliases: '  team/one: { targets: [p1/m] }',
    });
    fleet.up.p1.script(500, 500);
    const res = await chat('team/one');
    expectServed(res, 'p1/m', 3);
    const [g1, g2] = gaps(fleet.up.p1.calls.map((c) => c.at));
    expect(g1).toBeGreaterThanOrEqual(19); // base 40: between 20 and 40
    expect(g2).toBeGreaterThanOrEqual(39); // base 80: between 40 and 80
  });

  it(
    'an alias overrides the routing lists: retry_on [503] does not retry a 500; fallback_on [connect] stops at a ' +
      '500',
    async () => {
      await start({
        routing: FAST,
        providers: [P('p1'), P('p2'), P('p3')],
        aliases: [
          '  team/noretry: { strategy: ordered, targets: [p1/m, p2/m], retry_on: [503] }',
          '  team/nofallback: { strategy: ordered, targets: [p1/m, p2/m], fallback_on: [connect] }',
          '  team/override: { strategy: ordered, targets: [p1/m, p2/m, p3/m], max_attempts: 2, ' +
            'retry: { max_retries: 0 } }',
        ].join('\n'),
      });
      fleet.up.p1.setHandler(500);
      expectServed(await chat('team/noretry'), 'p2/m', 2);
      expect(fleet.sequence).toEqual(['p1', 'p2']);

      fleet.sequence.length = 0;
      const res = await chat('team/nofallback');
      await expectError('openai', res, 500, 'upstream_error');
      expect(res.headers.get('x-gateway-attempts')).toBe('2');
      expect(fleet.sequence).toEqual(['p1', 'p1']);

      fleet.sequence.length = 0;
      fleet.up.p2.setHandler(500);
      const capped = await chat('team/override');
      await expectError('openai', capped, 500, 'upstream_error');
      expect(fleet.sequence).toEqual(['p1', 'p2']);
    },
  );

  it('a concrete model id uses the global policy: retried, never sent elsewhere', async () => {
    await start({ routing: FAST, providers: [P('p1'), P('p2')], aliases: '  team/chain: { targets: [p1/m, p2/m] }' });
    fleet.up.p1.setHandler(503);
    const res = await chat('p1/m');
    const e = await expectError('openai', res, 503, 'upstream_error');
    expect(e.message).toContain('model "p1/m" could not be served (2 attempts)');
    expect(fleet.sequence).toEqual(['p1', 'p1']);
  });
});

// ---------------------------------------------------------------- 3. strategies and fallbacks

describe('strategies and fallbacks', () => {
  it('weighted: a target with an overwhelming weight is always tried first', async () => {
    await start({
      routing: FAST,
      providers: [P('p1'), P('p2')],
      aliases:
        '  team/w: { strategy: weighted, targets: [ { model: p2/m, weight: 0.000001 }, { model: p1/m, weight: 1 } ] }',
    });
    for (let i = 0; i < 25; i++) expectServed(await chat('team/w'), 'p1/m', 1);
    expect(fleet.up.p2.calls).toHaveLength(0);
  });

  it('weighted 3:1: both get traffic, the heavy one most of it (loose bounds over 60 requests)', async () => {
    await start({
      routing: FAST,
      providers: [P('p1'), P('p2')],
      aliases: '  team/w: { targets: [ { model: p1/m, weight: 3 }, { model: p2/m, weight: 1 } ] }',
    });
    for (let i = 0; i < 60; i++) expect((await chat('team/w')).status).toBe(200);
    const n1 = fleet.up.p1.calls.length;
    const n2 = fleet.up.p2.calls.length;
    expect(n1 + n2).toBe(60);
    expect(n1).toBeGreaterThanOrEqual(30); // expected 45, sd ≈ 3.4
    expect(n2).toBeGreaterThanOrEqual(3);
  });

  it('weighted: when the first target fails, the other one serves', async () => {
    await start({
      routing: FAST,
      providers: [P('p1'), P('p2')],
      aliases: '  team/w: { targets: [ { model: p2/m, weight: 0.000001 }, { model: p1/m, weight: 1 } ] }',
    });
    fleet.up.p1.setHandler(500);
    expectServed(await chat('team/w'), 'p2/m', 3);
    expect(fleet.sequence).toEqual(['p1', 'p1', 'p2']);
  });

  it('ordered: targets in config order, whatever their weights', async () => {
    await start({
      routing: 'max_attempts: 10, retry: { initial_backoff_ms: 1, max_backoff_ms: 2 }, cooldown: { failures: 1000 }',
      providers: [P('p1'), P('p2'), P('p3')],
      aliases:
        '  team/o: { strategy: ordered, targets: [ { model: p3/m, weight: 0.001 }, p1/m, ' +
        '{ model: p2/m, weight: 100 } ] }',
    });
    for (let i = 0; i < 5; i++) expectServed(await chat('team/o'), 'p3/m', 1);
    fleet.sequence.length = 0;
    for (const u of ['p1', 'p2', 'p3']) fleet.up[u].setHandler(503);
    const res = await chat('team/o');
    await expectError('openai', res, 503, 'upstream_error');
    expect(res.headers.get('x-gateway-attempts')).toBe('6');
    expect(fleet.sequence).toEqual(['p3', 'p3', 'p1', 'p1', 'p2', 'p2']);
  });

  it('falls back to another alias (its targets in its own order), flagged x-gateway-fallback', async () => {
    await start({
      routing: FAST,
      providers: [P('p1'), P('p2'), P('p3')],
      aliases: [
        '  team/a: { targets: [p1/m], fallbacks: [team/b] }',
        '  team/b: { strategy: ordered, targets: [p2/m, p3/m] }',
      ].join('\n'),
    });
    expectServed(await chat('team/a'), 'p1/m', 1, false);
    fleet.sequence.length = 0;
    fleet.up.p1.setHandler(500);
    fleet.up.p2.setHandler(503);
    const res = await chat('team/a');
    expectServed(res, 'p3/m', 5, true);
    expect((await read('openai', res)).text).toBe('served by p3');
    expect(fleet.sequence).toEqual(['p1', 'p1', 'p2', 'p2', 'p3']);
  });

  it('falls back to a concrete model', async () => {
    await start({
      routing: FAST,
      providers: [P('p1'), P('p2')],
      aliases: '  team/a: { targets: [p1/m], fallbacks: [p2/m] }',
    });
    fleet.up.p1.setHandler({ kind: 'drop' });
    expectServed(await chat('team/a'), 'p2/m', 3, true);
  });

  it.each(ENDPOINTS)(
    'streaming fallback before the first byte (%s caller): the caller sees only the fallback stream',
    async (ep) => {
      await start({
        routing: FAST,
        providers: [P('p1'), P('p2')],
        aliases: '  team/a: { targets: [p1/m], fallbacks: [p2/m] }',
      });
      fleet.up.p1.setHandler(503);
      const res = await send(ep, 'team/a', { stream: true });
      expectServed(res, 'p2/m', 3, true);
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const r = await read(ep, res);
      expect(r.streamError).toBeUndefined();
      expect(r.text).toBe('served by p2');
      if (ep === 'openai') expect(r.raw.trimEnd().endsWith('data: [DONE]')).toBe(true);
      else expect(r.raw).toContain('event: message_stop');
      expect(r.raw).not.toContain('p1');
      expect(fleet.sequence).toEqual(['p1', 'p1', 'p2']);
    },
  );

  it.each(ENDPOINTS)('non-stream fallback (%s caller) through an Anthropic-format upstream', async (ep) => {
    await start({
      routing: FAST,
      providers: [P('p1'), P('p2', { api: 'anthropic' })],
      aliases: '  team/a: { targets: [p1/m], fallbacks: [p2/m] }',
    });
    fleet.up.p1.setHandler(529);
    const res = await send(ep, 'team/a');
    expectServed(res, 'p2/m', 3, true);
    expect((await read(ep, res)).text).toBe('served by p2');
    expect(fleet.up.p2.calls[0].path).toBe('/v1/messages');
  });
});

// ---------------------------------------------------------------- 4. circuit breakers

describe('cooldown (circuit breaker)', () => {
  const COOLDOWN_MS = 300;
  const BREAKER = `retry: { max_retries: 0 }, cooldown: { failures: 2, window_ms: 10000, cooldown_ms: ${COOLDOWN_MS} }`;
  const WITH_FALLBACK = '  team/a: { targets: [p1/m], fallbacks: [p2/m] }';

  it('two failures open the circuit; while open the target gets nothing; a successful probe closes it', async () => {
    await start({ routing: BREAKER, providers: [P('p1'), P('p2')], aliases: WITH_FALLBACK });
    fleet.up.p1.script(500, 500);
    expectServed(await chat('team/a'), 'p2/m', 2, true);
    expectServed(await chat('team/a'), 'p2/m', 2, true);
    // Open: p1 is skipped, the fallback serves with a single attempt.
    expectServed(await chat('team/a'), 'p2/m', 1, true);
    expectServed(await chat('team/a'), 'p2/m', 1, true);
    expect(fleet.sequence).toEqual(['p1', 'p2', 'p1', 'p2', 'p2', 'p2']);

    await sleep(COOLDOWN_MS + 50);
    expectServed(await chat('team/a'), 'p1/m', 1); // the probe succeeds...
    expectServed(await chat('team/a'), 'p1/m', 1); // ...and the circuit is closed
    expect(fleet.sequence.slice(6)).toEqual(['p1', 'p1']);
  });

  it('a failed probe opens the circuit again', async () => {
    await start({ routing: BREAKER, providers: [P('p1'), P('p2')], aliases: WITH_FALLBACK });
    fleet.up.p1.setHandler(503);
    await chat('team/a');
    await chat('team/a');
    expect(fleet.up.p1.calls).toHaveLength(2);
    await sleep(COOLDOWN_MS + 50);
    expectServed(await chat('team/a'), 'p2/m', 2, true); // probe fails, fallback serves
    expect(fleet.up.p1.calls).toHaveLength(3);
    expectServed(await chat('team/a'), 'p2/m', 1, true); // open again: skipped
    expect(fleet.up.p1.calls).toHaveLength(3);

    fleet.up.p1.setHandler(undefined);
    await sleep(COOLDOWN_MS + 50);
    expectServed(await chat('team/a'), 'p1/m', 1);
    expect(fleet.up.p1.calls).toHaveLength(4);
  });

  it('a probe is never retried, even with retries configured', async () => {
    await start({
      routing:
        `max_attempts: 10, retry: { max_retries: 3, initial_backoff_ms: 1, max_backoff_ms: 2 }, cooldown: { ` +
        `failures: 2, window_ms: 10000, cooldown_ms: ${COOLDOWN_MS} }`,
      providers: [P('p1'), P('p2')],
      aliases: WITH_FALLBACK,
    });
    fleet.up.p1.setHandler(500);
    // The circuit opens at the second failure, but the request that opened it keeps its retries
    // (the circuit is only consulted when a target is first admitted).
    expectServed(await chat('team/a'), 'p2/m', 5, true);
    expect(fleet.up.p1.calls).toHaveLength(4);
    expectServed(await chat('team/a'), 'p2/m', 1, true);
    expect(fleet.up.p1.calls).toHaveLength(4);
    await sleep(COOLDOWN_MS + 50);
    expectServed(await chat('team/a'), 'p2/m', 2, true); // the probe: one attempt, no retry
    expect(fleet.up.p1.calls).toHaveLength(5);
  });

  it('only one probe at a time: a request arriving while the probe is in flight skips the target', async () => {
    await start({ routing: BREAKER, providers: [P('p1'), P('p2')], aliases: WITH_FALLBACK });
    fleet.up.p1.script(500, 500);
    await chat('team/a');
    await chat('team/a');
    await sleep(COOLDOWN_MS + 50);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    fleet.up.p1.script({ kind: 'held', until: held });
    const probe = chat('team/a');
    while (fleet.up.p1.calls.length < 3) await sleep(5);
    expectServed(await chat('team/a'), 'p2/m', 1, true);
    release();
    expectServed(await probe, 'p1/m', 1);
    expect(fleet.up.p1.calls).toHaveLength(3);
    expectServed(await chat('team/a'), 'p1/m', 1);
  });

  it.each(ENDPOINTS)(
    'nothing else to try (%s caller): 503 no_available_provider with retry-after, no upstream call',
    async (ep) => {
      await start({ routing: BREAKER, providers: [P('p1')], aliases: '  team/solo: { targets: [p1/m] }' });
      fleet.up.p1.setHandler(500);
      await expectError(ep, await send(ep, 'team/solo'), 500, 'upstream_error');
      await expectError(ep, await send(ep, 'team/solo'), 500, 'upstream_error');
      const res = await send(ep, 'team/solo');
      const e = await expectError(ep, res, 503, 'no_available_provider');
      expect(e.type).toBe(TYPE.overloaded[ep]);
      expect(e.message).toContain('alias "team/solo"');
      expect(e.message).toContain('"p1/m" is cooling down');
      expect(res.headers.get('retry-after')).toBe('1'); // 300 ms, rounded up to whole seconds
      expect(res.headers.get('x-gateway-attempts')).toBe('0');
      expect(fleet.up.p1.calls).toHaveLength(2);
    },
  );

  it("a provider's own cooldown overrides the routing default", async () => {
    await start({
      routing: 'retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 60000 }',
      providers: [P('p1', { cooldown: `{ failures: 1, cooldown_ms: ${COOLDOWN_MS} }` }), P('p2')],
      aliases: WITH_FALLBACK,
    });
    fleet.up.p1.script(500);
    expectServed(await chat('team/a'), 'p2/m', 2, true);
    expectServed(await chat('team/a'), 'p2/m', 1, true);
    expect(fleet.up.p1.calls).toHaveLength(1);
    await sleep(COOLDOWN_MS + 50);
    expectServed(await chat('team/a'), 'p1/m', 1);
  });

  it('circuits are per target: another model of the same provider still takes traffic', async () => {
    await start({
      routing: BREAKER,
      providers: [{ ...P('p1'), models: ['m', 'n'] }, P('p2')],
      aliases: '  team/a: { targets: [p1/m], fallbacks: [p2/m] }',
    });
    fleet.up.p1.script(500, 500);
    await chat('team/a');
    await chat('team/a');
    expectServed(await chat('team/a'), 'p2/m', 1, true);
    expectServed(await chat('p1/n'), 'p1/n', 1);
  });
});

// ---------------------------------------------------------------- 5. everything fails

describe.each(ENDPOINTS)('when every attempt fails (%s caller)', (ep) => {
  it('one error in the caller format, naming the alias and the last failure, its status kept', async () => {
    await start({ routing: FAST, providers: [P('p1'), P('p2'), P('p3')], aliases: CHAIN });
    fleet.up.p1.setHandler(500);
    fleet.up.p2.setHandler(502);
    fleet.up.p3.setHandler({ kind: 'error', status: 503, message: 'p3 is overloaded right now' });
    const res = await send(ep, 'team/chain');
    const e = await expectError(ep, res, 503, 'upstream_error');
    expect(e.type).toBe(TYPE.overloaded[ep]);
    expect(e.message).toContain('alias "team/chain" could not be served (5 attempts)');
    expect(e.message).toContain('Last failure: Provider "p3" returned HTTP 503: p3 is overloaded right now');
    expect(res.headers.get('x-gateway-attempts')).toBe('5'); // max_attempts 5: p3 is not retried
    expect(res.headers.get('x-gateway-fallback')).toBeNull();
    expect(res.headers.get('x-should-retry')).toBe('true');
    expect(fleet.sequence).toEqual(['p1', 'p1', 'p2', 'p2', 'p3']);
  });

  it('a last 429 is passed on as a 429 with its retry-after', async () => {
    await start({
      routing: 'retry: { max_retries: 0 }, cooldown: { failures: 1000 }',
      providers: [P('p1'), P('p2')],
      aliases: '  team/chain: { strategy: ordered, targets: [p1/m, p2/m] }',
    });
    fleet.up.p1.setHandler(500);
    fleet.up.p2.setHandler({
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '7' },
      message: 'Rate limit reached',
    });
    const res = await send(ep, 'team/chain');
    const e = await expectError(ep, res, 429, 'upstream_error');
    expect(e.type).toBe(TYPE.rate_limit[ep]);
    expect(e.message).toContain('alias "team/chain"');
    expect(e.message).toContain('Provider "p2" returned HTTP 429: Rate limit reached');
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('x-gateway-attempts')).toBe('2');
  });

  it('a last transport failure: 502 upstream_unavailable naming the provider', async () => {
    await start({
      routing: 'retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 }',
      providers: [P('p1', { timeouts: '{ first_byte_ms: 300 }' }), { id: 'dead', url: await closedPortUrl() }],
      aliases: '  team/chain: { strategy: ordered, targets: [p1/m, dead/m] }',
    });
    fleet.up.p1.setHandler({ kind: 'hang' });
    const res = await send(ep, 'team/chain');
    const e = await expectError(ep, res, 502, 'upstream_unavailable');
    expect(e.type).toBe(TYPE.upstream[ep]);
    expect(e.message).toContain('alias "team/chain" could not be served (2 attempts)');
    expect(e.message).toContain('Could not reach provider "dead" (ECONNREFUSED)');
    expect(fleet.sequence).toEqual(['p1']);
  });

  it('a last timeout: 504 upstream_timeout', async () => {
    await start({
      routing: 'retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 }',
      providers: [P('p1', { timeouts: '{ first_byte_ms: 300 }' })],
      aliases: '  team/solo: { targets: [p1/m] }',
    });
    fleet.up.p1.setHandler({ kind: 'hang' });
    const res = await send(ep, 'team/solo', { stream: true });
    const e = await expectError(ep, res, 504, 'upstream_timeout');
    expect(e.message).toContain('alias "team/solo" could not be served (1 attempt)');
    expect(e.message).toContain('sent nothing for 300 ms');
    expect(fleet.sequence).toEqual(['p1']);
  });

  it("the last failure a refused gateway credential: 502, not the caller's 401", async () => {
    await start({
      routing: FAST,
      providers: [P('p1'), P('p2')],
      aliases: '  team/chain: { strategy: ordered, targets: [p1/m, p2/m] }',
    });
    fleet.up.p1.setHandler(500);
    fleet.up.p2.setHandler({
      kind: 'error',
      status: 401,
      message: (c) => `Incorrect API key provided: ${c.headers.authorization}`,
    });
    const res = await send(ep, 'team/chain');
    const e = await expectError(ep, res, 502, 'upstream_error');
    expect(e.message).toContain(`Provider "p2" rejected the gateway's credentials (HTTP 401)`);
    expect(e.raw).not.toContain(configuredKey('p2'));
    expect(res.headers.get('x-should-retry')).toBe('false');
  });
});

// ---------------------------------------------------------------- 6. bring your own key

describe.each(ENDPOINTS)('BYOK (%s caller)', (ep) => {
  const BYOK = { 'x-provider-api-key': CALLER_KEY };
  const allHeaders = () => fleet.calls.map((c) => JSON.stringify(c.headers)).join('\n');

  it('optional: an OpenAI-kind upstream gets the caller key as a Bearer token, not the configured one', async () => {
    await start({
      routing: FAST,
      providers: [P('p1', { byok: 'optional' })],
      aliases: '  team/a: { targets: [p1/m] }',
    });
    const res = await send(ep, 'team/a', { headers: BYOK });
    expectServed(res, 'p1/m', 1);
    expect(fleet.up.p1.calls[0].headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
    expect(fleet.up.p1.calls[0].headers['x-provider-api-key']).toBeUndefined();
    expect(allHeaders()).not.toContain(configuredKey('p1'));
    // Without the header, the configured key.
    expectServed(await send(ep, 'team/a'), 'p1/m', 1);
    expect(fleet.up.p1.calls[1].headers.authorization).toBe(`Bearer ${configuredKey('p1')}`);
  });

  it('optional: an Anthropic-kind upstream gets the caller key as x-api-key (never the gateway key)', async () => {
    await start({
      routing: FAST,
      providers: [P('p1', { api: 'anthropic', byok: 'optional' })],
      aliases: '  team/a: { targets: [p1/m] }',
    });
    const res = await send(ep, 'team/a', { headers: BYOK });
    expectServed(res, 'p1/m', 1);
    expect((await read(ep, res)).text).toBe('served by p1');
    const h = fleet.up.p1.calls[0].headers;
    expect(h['x-api-key']).toBe(CALLER_KEY);
    expect(h.authorization).toBeUndefined();
    expect(allHeaders()).not.toContain(configuredKey('p1'));
  });

  it(
    'required: without the header 401 provider_key_required and no upstream call; with it, served (no configured key ' +
      '' +
      '' +
      '' +
      'needed)',
    async () => {
      await start({
        routing: FAST,
        providers: [P('p1', { byok: 'required', apiKey: null })],
        aliases: '  team/a: { targets: [p1/m] }',
      });
      const e = await expectError(ep, await send(ep, 'team/a'), 401, 'provider_key_required');
      expect(e.type).toBe(TYPE.authentication[ep]);
      expect(e.message).toContain('x-provider-api-key');
      expect(fleet.calls).toHaveLength(0);
      expectServed(await send(ep, 'team/a', { headers: BYOK }), 'p1/m', 1);
      expect(fleet.up.p1.calls[0].headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
    },
  );

  it('never: with the header 400 provider_key_not_allowed and no upstream call', async () => {
    await start({ routing: FAST, providers: [P('p1', { byok: 'never' })], aliases: '  team/a: { targets: [p1/m] }' });
    const res = await send(ep, 'team/a', { headers: BYOK });
    const e = await expectError(ep, res, 400, 'provider_key_not_allowed');
    expect(e.type).toBe(TYPE.invalid_request[ep]);
    expect(e.raw).not.toContain(CALLER_KEY);
    expect(fleet.calls).toHaveLength(0);
  });

  it('an upstream 401 for the caller key: 401 provider_key_rejected at once, no retry, no fallback', async () => {
    await start({
      routing: FAST,
      providers: [P('p1', { byok: 'optional' }), P('p2', { byok: 'optional' })],
      aliases: '  team/a: { strategy: ordered, targets: [p1/m], fallbacks: [p2/m], byok_fallback: configured_keys }',
    });
    fleet.up.p1.setHandler({
      kind: 'error',
      status: 401,
      message: (c) => `Incorrect API key provided: ${c.headers.authorization}`,
    });
    const res = await send(ep, 'team/a', { headers: BYOK });
    const e = await expectError(ep, res, 401, 'provider_key_rejected');
    expect(e.type).toBe(TYPE.authentication[ep]);
    expect(e.message).toContain('Provider "p1" rejected the key sent in x-provider-api-key');
    expect(e.raw).not.toContain(CALLER_KEY);
    expect(res.headers.get('x-gateway-attempts')).toBe('1');
    expect(fleet.sequence).toEqual(['p1']);
    // The caller's bad key cools down neither the gateway's own credential nor the target.
    fleet.up.p1.setHandler(undefined);
    expectServed(await send(ep, 'team/a'), 'p1/m', 1);
    expect(fleet.up.p1.calls[1].headers.authorization).toBe(`Bearer ${configuredKey('p1')}`);
  });

  it('same_provider (default): the caller key never reaches another provider; the fallback is skipped', async () => {
    await start({
      routing: FAST,
      providers: [P('p1', { byok: 'optional' }), P('p2', { byok: 'optional' })],
      aliases: '  team/a: { strategy: ordered, targets: [p1/m, p2/m] }',
    });
    fleet.up.p1.setHandler({ kind: 'error', status: 503, message: (c) => `overloaded for ${c.headers.authorization}` });
    const res = await send(ep, 'team/a', { headers: BYOK });
    const e = await expectError(ep, res, 503, 'upstream_error');
    expect(e.message).toContain('alias "team/a" could not be served (2 attempts)');
    expect(e.message).toContain('Provider "p1" returned HTTP 503');
    expect(e.raw).not.toContain(CALLER_KEY);
    expect(fleet.sequence).toEqual(['p1', 'p1']);
    expect(fleet.up.p1.calls.every((c) => c.headers.authorization === `Bearer ${CALLER_KEY}`)).toBe(true);
    expect(fleet.up.p2.calls).toHaveLength(0);
  });

  it('configured_keys: the fallback on another provider is called with ITS configured key', async () => {
    await start({
      routing: FAST,
      providers: [P('p1', { byok: 'optional' }), P('p2', { byok: 'optional' })],
      aliases: '  team/a: { strategy: ordered, targets: [p1/m], fallbacks: [p2/m], byok_fallback: configured_keys }',
    });
    fleet.up.p1.setHandler(500);
    const res = await send(ep, 'team/a', { headers: BYOK });
    expectServed(res, 'p2/m', 3, true);
    expect(fleet.sequence).toEqual(['p1', 'p1', 'p2']);
    expect(fleet.up.p1.calls.map((c) => c.headers.authorization)).toEqual([
      `Bearer ${CALLER_KEY}`,
      `Bearer ${CALLER_KEY}`,
    ]);
    expect(fleet.up.p2.calls[0].headers.authorization).toBe(`Bearer ${configuredKey('p2')}`);
    expect(JSON.stringify(fleet.up.p2.calls)).not.toContain(CALLER_KEY);
  });

  it('two providers on the same account (same api and base_url): the caller key may move between them', async () => {
    await start({
      routing: FAST,
      providers: [
        { id: 'acct', url: fleet.up.p1.url, byok: 'optional' },
        { id: 'acct2', url: fleet.up.p1.url, byok: 'optional' },
        P('p2', { byok: 'optional' }),
      ],
      aliases: '  team/a: { strategy: ordered, targets: [acct/m, acct2/m, p2/m] }',
    });
    fleet.up.p1.script(500, 500);
    const res = await send(ep, 'team/a', { headers: BYOK });
    expectServed(res, 'acct2/m', 3);
    expect(fleet.up.p1.calls.map((c) => c.headers.authorization)).toEqual(Array(3).fill(`Bearer ${CALLER_KEY}`));
    expect(fleet.up.p2.calls).toHaveLength(0);
  });

  it('a byok: never target is skipped with a caller key; the next byok target serves with it', async () => {
    await start({
      routing: FAST,
      providers: [P('p1', { byok: 'never' }), P('p2', { byok: 'optional' })],
      aliases: '  team/a: { strategy: ordered, targets: [p1/m, p2/m] }',
    });
    expectServed(await send(ep, 'team/a', { headers: BYOK }), 'p2/m', 1);
    expect(fleet.sequence).toEqual(['p2']);
    expect(fleet.up.p2.calls[0].headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
  });

  it('required and optional in one alias: without a key, the required one is skipped', async () => {
    await start({
      routing: FAST,
      providers: [P('p1', { byok: 'required', apiKey: null }), P('p2', { byok: 'optional' })],
      aliases: '  team/a: { strategy: ordered, targets: [p1/m, p2/m] }',
    });
    expectServed(await send(ep, 'team/a'), 'p2/m', 1);
    expect(fleet.sequence).toEqual(['p2']);
    expect(fleet.up.p2.calls[0].headers.authorization).toBe(`Bearer ${configuredKey('p2')}`);
  });

  it('streaming with the caller key: fallback before the first byte stays on the key’s provider', async () => {
    await start({
      routing: FAST,
      providers: [{ ...P('p1', { byok: 'optional' }), models: ['a', 'b'] }, P('p2', { byok: 'optional' })],
      aliases: '  team/a: { strategy: ordered, targets: [p1/a, p2/m], fallbacks: [p1/b] }',
    });
    fleet.up.p1.script(503, 503);
    const res = await send(ep, 'team/a', { stream: true, headers: BYOK });
    expectServed(res, 'p1/b', 3, true);
    expect((await read(ep, res)).text).toBe('served by p1');
    expect(fleet.up.p1.calls.map((c) => c.body.model)).toEqual(['a', 'a', 'b']);
    expect(fleet.up.p2.calls).toHaveLength(0);
  });

  it('upstream error messages that echo a key are redacted from the caller’s error', async () => {
    await start({
      routing: 'retry: { max_retries: 0 }, cooldown: { failures: 1000 }',
      providers: [P('p1', { byok: 'optional' }), P('p2')],
      aliases: '  team/a: { strategy: ordered, targets: [p1/m] }\n  team/b: { strategy: ordered, targets: [p2/m] }',
    });
    const echo = (c: { headers: Record<string, unknown> }) =>
      `bad request; you sent ${String(c.headers.authorization)} and ${String(c.headers['x-api-key'])}`;
    fleet.up.p1.setHandler({ kind: 'error', status: 400, message: echo });
    fleet.up.p2.setHandler({ kind: 'error', status: 500, message: echo });
    const a = await expectError(ep, await send(ep, 'team/a', { headers: BYOK }), 400, 'upstream_error');
    expect(a.message).toContain('bad request; you sent');
    const b = await expectError(ep, await send(ep, 'team/b'), 500, 'upstream_error');
    for (const raw of [a.raw, b.raw])
      for (const s of [CALLER_KEY, GW_KEY, ...ALL_CONFIGURED]) expect(raw).not.toContain(s);
  });
});

// ---------------------------------------------------------------- bugs found

describe('fixed bugs (regression tests)', () => {
  it("BYOK: a first target skipped for cooling down must not lock the caller's key to its provider", async () => {
    await start({
      routing: 'retry: { max_retries: 0 }, cooldown: { failures: 1, window_ms: 10000, cooldown_ms: 60000 }',
      providers: [P('p1', { byok: 'optional' }), P('p2', { byok: 'optional' })],
      aliases: '  team/a: { strategy: ordered, targets: [p1/m, p2/m] }',
    });
    // Open p1/m's circuit (a request without a caller key, served by p2 with its configured key).
    fleet.up.p1.setHandler(500);
    expectServed(await chat('team/a'), 'p2/m', 2);
    // With a caller key: no attempt can be made on p1, so the key's first attempt (p2) is where it belongs.
    const res = await chat('team/a', { headers: { 'x-provider-api-key': CALLER_KEY } });
    expect(res.status).toBe(200); // actual: 503 no_available_provider
    expect(res.headers.get('x-gateway-model')).toBe('p2/m');
    expect(fleet.up.p2.calls.at(-1)!.headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
  });

  it('a target whose committed streams always fail later must end up cooling down (failures: 2)', async () => {
    const COOLDOWN_MS = 60000;
    await start({
      routing: `retry: { max_retries: 0 }, cooldown: { failures: 2, window_ms: 10000, cooldown_ms: ${COOLDOWN_MS} }`,
      providers: [P('p1'), P('p2')],
      aliases: '  team/a: { targets: [p1/m], fallbacks: [p2/m] }',
    });
    fleet.up.p1.setHandler({ kind: 'drop', after: 2 });
    for (let i = 0; i < 2; i++) {
      const res = await chat('team/a', { stream: true });
      expectServed(res, 'p1/m', 1);
      expect((await read('openai', res)).streamError.error.code).toBe('upstream_unavailable');
    }
    // Each commit records a success (clearing the window) before the stream fails, so the
    // count never passes 1: p1 keeps getting every request.
    expectServed(await chat('team/a', { stream: true }), 'p2/m', 1, true); // actual: p1/m
    expect(fleet.up.p1.calls).toHaveLength(2);
  });

  for (const ep of ENDPOINTS) {
    it(
      `same-format pass-through (${ep}): ` +
        'a stream whose first event is an error moves on, as a translated one does',
      async () => {
        await start({ routing: FAST, providers: [P('p1', { api: ep }), P('p2'), P('p3')], aliases: CHAIN });
        fleet.up.p1.setHandler({ kind: 'error', inStream: true, message: 'busy, try later' });
        const res = await send(ep, 'team/chain', { stream: true });
        // actual: 200 from p1/m, the upstream's error event relayed verbatim, no retry, no fallback
        expectServed(res, 'p2/m', 3);
        expect(fleet.sequence).toEqual(['p1', 'p1', 'p2']);
      },
    );
  }

  it("an upstream's in-stream error message is redacted of the keys in use, as an HTTP error's is", async () => {
    await start({
      routing: 'retry: { max_retries: 0 }, cooldown: { failures: 1000 }',
      providers: [P('p1', { api: 'anthropic' }), P('p2', { byok: 'optional' })],
      aliases: '  team/a: { targets: [p1/m] }\n  team/b: { targets: [p2/m] }',
    });
    // An Anthropic-format upstream behind the OpenAI endpoint echoes the configured key it got...
    fleet.up.p1.setHandler({
      kind: 'error',
      inStream: true,
      message: (c) => `invalid x-api-key ${String(c.headers['x-api-key'])}`,
    });
    const a = await chat('team/a', { stream: true });
    expect(a.status).toBe(529);
    const aRaw = await a.text();
    // ...and an OpenAI-format upstream behind the Anthropic endpoint echoes the caller's own key.
    fleet.up.p2.setHandler({
      kind: 'error',
      inStream: true,
      message: (c) => `invalid key ${String(c.headers.authorization).slice('Bearer '.length)}`,
    });
    const b = await send('anthropic', 'team/b', { stream: true, headers: { 'x-provider-api-key': CALLER_KEY } });
    expect(b.status).toBe(500);
    const bRaw = await b.text();
    expect(aRaw).toContain('invalid x-api-key');
    expect(aRaw).not.toContain(configuredKey('p1')); // actual: the configured secret, verbatim
    expect(bRaw).not.toContain(CALLER_KEY); // actual: the caller's key, verbatim
  });
});
