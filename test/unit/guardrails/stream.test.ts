import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../src/core/canonical.js';
import { GatewayError } from '../../../src/core/errors.js';
import type { ScanHit } from '../../../src/guardrails/hits.js';
import { patternRules, type CompiledGuardrail } from '../../../src/guardrails/rules.js';
import { scanText } from '../../../src/guardrails/scan.js';
import { guardStream, hasOutputWebhook, responseAsEvents } from '../../../src/guardrails/stream.js';
import { compile, detectors, guardrail, keywords, regex, scope, webhook } from './rule-configs.js';

const START: StreamEvent = { type: 'message_start', id: 'm', model: 'local/echo', created: 1 };
const STOP: StreamEvent = { type: 'message_stop', finish: 'stop', usage: { inputTokens: 1, outputTokens: 2 } };

async function* from(events: readonly StreamEvent[], closed?: { value: boolean }): AsyncGenerator<StreamEvent> {
  try {
    yield* events;
  } finally {
    if (closed) closed.value = true;
  }
}

const textEvents = (pieces: readonly string[], index = 0): StreamEvent[] => [
  START,
  { type: 'block_start', index, block: { kind: 'text' } },
  ...pieces.map((text): StreamEvent => ({ type: 'block_delta', index, delta: { kind: 'text', text } })),
  { type: 'block_stop', index },
  STOP,
];

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const ev of events) out.push(ev);
  return out;
}

async function run(rules: CompiledGuardrail[], events: readonly StreamEvent[]) {
  const hits: ScanHit[] = [];
  const out = await collect(guardStream(from(events), rules, scope, (h) => hits.push(h)));
  return { out, hits };
}

const textOf = (events: readonly StreamEvent[], index = 0): string =>
  events
    .map((e) =>
      e.type === 'block_delta' && e.index === index
        ? e.delta.kind === 'text'
          ? e.delta.text
          : e.delta.kind === 'tool_arguments'
            ? e.delta.json
            : ''
        : '',
    )
    .join('');
const types = (events: readonly StreamEvent[]) => events.map((e) => e.type);

/** Every way to cut `text` into 2 and into 3 pieces. */
function* splits(text: string): Generator<string[]> {
  for (let i = 1; i < text.length; i++) yield [text.slice(0, i), text.slice(i)];
  for (let i = 1; i < text.length; i++)
    for (let j = i + 1; j < text.length; j++) yield [text.slice(0, i), text.slice(i, j), text.slice(j)];
}

const SECRETS = {
  email: 'jane.doe@example.com',
  aws_access_key: 'AKIAIOSFODNN7EXAMPLE',
  credit_card: '4111 1111 1111 1111',
} as const;

describe('guardStream: redaction across deltas', () => {
  for (const [label, secret] of Object.entries(SECRETS)) {
    it(`${label}: split across two and three deltas at every point, redacted exactly as in one piece`, async () => {
      const rules = compile(guardrail('pii', detectors(label), 'redact'));
      const text = `ok ${secret} done`;
      const expected = `ok [REDACTED:${label}] done`;
      expect(scanText(patternRules(rules), text).text).toBe(expected);
      for (const pieces of splits(text)) {
        const { out, hits } = await run(rules, textEvents(pieces));
        expect(textOf(out), JSON.stringify(pieces)).toBe(expected);
        expect(hits).toEqual([{ guardrailId: 'pii', action: 'redact', label }]);
        expect(types(out).slice(-2)).toEqual(['block_stop', 'message_stop']);
        // No emitted delta carries any piece of the secret.
        for (const e of out)
          if (e.type === 'block_delta' && e.delta.kind === 'text')
            expect(secret.includes(e.delta.text) && e.delta.text.length > 3).toBe(false);
      }
    });

    it(`${label}: a block rule stops the stream at an error naming the guardrail, never the secret`, async () => {
      const rules = compile(guardrail('no-secrets', detectors(label), 'block'));
      const text = `ok ${secret} done`;
      for (const pieces of splits(text)) {
        const closed = { value: false };
        const hits: ScanHit[] = [];
        const out = await collect(guardStream(from(textEvents(pieces), closed), rules, scope, (h) => hits.push(h)));
        const last = out.at(-1)!;
        expect(last.type, JSON.stringify(pieces)).toBe('error');
        const err = (last as { error: GatewayError }).error;
        expect(err).toBeInstanceOf(GatewayError);
        expect(err.param).toBe('guardrail:no-secrets');
        expect(err.message).toContain('no-secrets');
        expect(JSON.stringify({ ...err, message: err.message })).not.toContain(secret.slice(0, 8));
        expect(textOf(out)).not.toContain(secret.slice(0, 4));
        expect(types(out)).not.toContain('block_stop');
        expect(types(out)).not.toContain('message_stop');
        expect(closed.value).toBe(true);
        expect(hits).toEqual([{ guardrailId: 'no-secrets', action: 'block', label }]);
      }
    });
  }

  it('several secrets and rules at once match the one-piece result for every two-way split', async () => {
    const rules = compile(
      guardrail('pii', detectors('email', 'credit_card', 'aws_access_key', 'iban', 'phone', 'bearer_token'), 'redact'),
      guardrail('kw', keywords(['project zeus']), 'redact'),
      guardrail('log', regex('done'), 'log'),
    );
    const text =
      'Mail a.b@example.org or call +44 20 7946 0958; card 5500-0000-0000-0004, IBAN DE89 3704 0044 0532 0130 00, ' +
      'auth: Bearer abcdefghijklmnopqrstuvwxyz0123, key AKIAIOSFODNN7EXAMPLE about Project Zeus. done';
    const expected = scanText(patternRules(rules), text).text;
    expect(expected).not.toContain('example.org');
    for (let i = 1; i < text.length; i++) {
      const { out } = await run(rules, textEvents([text.slice(0, i), text.slice(i)]));
      expect(textOf(out), String(i)).toBe(expected);
    }
    // And in single characters.
    const { out, hits } = await run(rules, textEvents([...text]));
    expect(textOf(out)).toBe(expected);
    expect(hits.map((h) => h.label).sort()).toEqual(
      ['aws_access_key', 'bearer_token', 'credit_card', 'email', 'iban', 'keyword', 'phone', 'regex'].sort(),
    );
  });

  it('tool-call arguments: every two-way split gives the one-piece JSON redaction, still valid JSON', async () => {
    const rules = compile(guardrail('pii', detectors('email', 'credit_card', 'aws_access_key'), 'redact'));
    // With a \u escape too (JSON.stringify would write é as is).
    const args = JSON.stringify({
      to: 'bob@example.com',
      card: 4111111111111111,
      note: 'line\nAKIAIOSFODNN7EXAMPLE\t\u00e9 "q"',
      n: -1.5e3,
    }).replace('é', '\\u00e9');
    expect(args).toContain('\\u00e9');
    const expected = scanText(patternRules(rules), args, 'json').text;
    expect(JSON.parse(expected)).toEqual({
      to: '[REDACTED:email]',
      card: '[REDACTED:credit_card]',
      note: 'line\n[REDACTED:aws_access_key]\t\u00e9 "q"',
      n: -1500,
    });
    const toolEvents = (pieces: readonly string[]): StreamEvent[] => [
      START,
      { type: 'block_start', index: 0, block: { kind: 'tool_call', id: 't', name: 'f' } },
      ...pieces.map(
        (json): StreamEvent => ({ type: 'block_delta', index: 0, delta: { kind: 'tool_arguments', json } }),
      ),
      { type: 'block_stop', index: 0 },
      STOP,
    ];
    for (let i = 1; i < args.length; i++) {
      const { out } = await run(rules, toolEvents([args.slice(0, i), args.slice(i)]));
      expect(textOf(out), String(i)).toBe(expected);
      for (const e of out) if (e.type === 'block_delta') expect(e.delta.kind).toBe('tool_arguments');
    }
    expect(textOf((await run(rules, toolEvents([...args]))).out)).toBe(expected);
  });

  it('a private key streamed in small deltas is redacted whole', async () => {
    const key =
      '-----BEGIN RSA PRIVATE ' +
      'KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n' +
      'MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n' +
      '-----END RSA PRIVATE KEY-----';
    const text = `Here: ${key}\nKeep it safe.`;
    const pieces = text.match(/[\s\S]{1,7}/g)!;
    const { out } = await run(compile(guardrail('pk', detectors('private_key'), 'redact')), textEvents(pieces));
    expect(textOf(out)).toBe('Here: [REDACTED:private_key]\nKeep it safe.');
  });

  it('a keyword at the end of a delta waits for the next one ("secret" vs "secrets")', async () => {
    const rules = compile(guardrail('kw', keywords(['secret']), 'redact'));
    expect(textOf((await run(rules, textEvents(['the secret', 's are out']))).out)).toBe('the secrets are out');
    expect(textOf((await run(rules, textEvents(['the secret', ' is out']))).out)).toBe('the [REDACTED:keyword] is out');
    expect(textOf((await run(rules, textEvents(['the secret']))).out)).toBe('the [REDACTED:keyword]');
    // Short words (hold-back shorter than the look-ahead) and blocks wait too.
    const short = compile(guardrail('kw', keywords(['ab']), 'redact'));
    expect(textOf((await run(short, textEvents(['x ab', 'c']))).out)).toBe('x abc');
    expect(textOf((await run(short, textEvents(['x ab', ' c']))).out)).toBe('x [REDACTED:keyword] c');
    const block = compile(guardrail('kw', keywords(['secret']), 'block'));
    expect(types((await run(block, textEvents(['the secret', 's are out']))).out)).not.toContain('error');
    expect(types((await run(block, textEvents(['the secret', ' is out']))).out)).toContain('error');
  });
});

describe('guardStream: pass-through and order', () => {
  it('returns the source itself when no output pattern rule applies', () => {
    const src = from(textEvents(['x']));
    const rules = compile(
      guardrail('in', detectors('email'), 'block', { appliesTo: 'input' }),
      guardrail('other', detectors('email'), 'block', { match: { roles: ['ops'] } }),
    );
    expect(guardStream(src, rules, scope, () => {})).toBe(src);
  });

  it(
    'text without matches comes out with the same content and event order, ' + 'hold-back flushed before block_stop',
    async () => {
      const rules = compile(guardrail('pii', detectors('email', 'credit_card'), 'redact'));
      const pieces = ['Hello', ', this is ', 'a perfectly ', 'clean answer with numbers 12 34 and ', 'no secrets.'];
      const { out, hits } = await run(rules, textEvents(pieces));
      expect(hits).toEqual([]);
      expect(textOf(out)).toBe(pieces.join(''));
      // Short clean text is held back whole (hold-back > its length), then flushed at block_stop.
      expect(types(out)).toEqual(['message_start', 'block_start', 'block_delta', 'block_stop', 'message_stop']);
    },
  );

  it('holds back only about maxSpan − 1 characters of a long text', async () => {
    const rules = compile(guardrail('aws', detectors('aws_access_key'), 'redact')); // maxSpan 20
    const piece = 'lorem ipsum dolor '.repeat(6); // 108 chars
    let pulled = 0;
    const emittedWhenPulled: number[] = [];
    let emitted = 0;
    async function* src(): AsyncGenerator<StreamEvent> {
      yield START;
      yield { type: 'block_start', index: 0, block: { kind: 'text' } };
      for (let i = 0; i < 5; i++) {
        pulled++;
        emittedWhenPulled.push(emitted);
        yield { type: 'block_delta', index: 0, delta: { kind: 'text', text: piece } };
      }
      yield { type: 'block_stop', index: 0 };
      yield STOP;
    }
    for await (const ev of guardStream(src(), rules, scope, () => {})) {
      if (ev.type === 'block_delta' && ev.delta.kind === 'text') emitted += ev.delta.text.length;
    }
    expect(pulled).toBe(5);
    // Before pulling delta k+1, all but the last 19 characters of the first k deltas were sent.
    for (let k = 1; k < 5; k++) expect(emittedWhenPulled[k]).toBe(k * piece.length - 19);
    expect(emitted).toBe(5 * piece.length);
  });

  it(
    'keeps blocks apart: interleaved text, ' + 'tool arguments and reasoning, each flushed before its block_stop',
    async () => {
      const events: StreamEvent[] = [
        START,
        { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
        { type: 'block_delta', index: 0, delta: { kind: 'reasoning', text: 'think of x@example.com' } },
        { type: 'block_delta', index: 0, delta: { kind: 'signature', signature: 'sig' } },
        { type: 'block_stop', index: 0 },
        { type: 'block_start', index: 1, block: { kind: 'text' } },
        { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 't', name: 'send' } },
        { type: 'block_delta', index: 1, delta: { kind: 'text', text: 'Sending to bob@exa' } },
        { type: 'block_delta', index: 2, delta: { kind: 'tool_arguments', json: '{"to": "bob@exa' } },
        { type: 'block_delta', index: 1, delta: { kind: 'text', text: 'mple.com now' } },
        { type: 'block_delta', index: 2, delta: { kind: 'tool_arguments', json: 'mple.com", "n": 41111' } },
        { type: 'block_delta', index: 2, delta: { kind: 'tool_arguments', json: '11111111111, "note": "line\\' } },
        { type: 'block_delta', index: 2, delta: { kind: 'tool_arguments', json: 'ncarol@example.com\\u0021"}' } },
        { type: 'block_stop', index: 2 },
        { type: 'block_stop', index: 1 },
        STOP,
      ];
      const { out } = await run(compile(guardrail('pii', detectors('email', 'credit_card'), 'redact')), events);
      expect(out.slice(0, 5)).toEqual(events.slice(0, 5)); // reasoning untouched, in order
      expect(textOf(out, 1)).toBe('Sending to [REDACTED:email] now');
      const args = textOf(out, 2);
      expect(JSON.parse(args)).toEqual({
        to: '[REDACTED:email]',
        n: '[REDACTED:credit_card]',
        note: 'line\n[REDACTED:email]!',
      });
      // Each block's deltas come before its block_stop; the stops keep their order.
      const stop2 = out.findIndex((e) => e.type === 'block_stop' && e.index === 2);
      const stop1 = out.findIndex((e) => e.type === 'block_stop' && e.index === 1);
      expect(stop2).toBeLessThan(stop1);
      out.forEach((e, i) => {
        if (e.type === 'block_delta' && e.index === 2) expect(i).toBeLessThan(stop2);
        if (e.type === 'block_delta' && e.index === 1) expect(i).toBeLessThan(stop1);
      });
      expect(out.at(-1)).toEqual(STOP);
    },
  );

  it('flushes at message_stop when block_stop never came, and before an upstream error', async () => {
    const rules = compile(guardrail('pii', detectors('email'), 'redact'));
    const noStop: StreamEvent[] = [
      START,
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'block_delta', index: 0, delta: { kind: 'text', text: 'to a@example.com' } },
      STOP,
    ];
    const a = await run(rules, noStop);
    expect(types(a.out)).toEqual(['message_start', 'block_start', 'block_delta', 'message_stop']);
    expect(textOf(a.out)).toBe('to [REDACTED:email]');

    const upstreamError = new GatewayError('upstream_error', 'boom');
    const withError: StreamEvent[] = [...noStop.slice(0, 3), { type: 'error', error: upstreamError }];
    const b = await run(rules, withError);
    expect(types(b.out)).toEqual(['message_start', 'block_start', 'block_delta', 'error']);
    expect(textOf(b.out)).toBe('to [REDACTED:email]');
    expect((b.out.at(-1) as { error: GatewayError }).error).toBe(upstreamError);

    const ended = await run(rules, noStop.slice(0, 3));
    expect(textOf(ended.out)).toBe('to [REDACTED:email]');
  });

  it('reports each distinct hit once; log rules do not change the text', async () => {
    const rules = compile(guardrail('log', detectors('email'), 'log'));
    const text = 'a@example.com and b@example.com and c@example.com';
    const { out, hits } = await run(rules, textEvents(text.match(/.{1,5}/g)!));
    expect(textOf(out)).toBe(text);
    expect(hits).toEqual([{ guardrailId: 'log', action: 'log', label: 'email' }]);
  });

  it('never emits half of a surrogate pair, even when the upstream split one', async () => {
    const rules = compile(guardrail('k', keywords(['x']), 'redact')); // maxSpan 1: nothing held back by length
    const pieces = ['emoji \ud83d', '\ude00\ud83d', '\ude00 and x'];
    const { out } = await run(rules, textEvents(pieces));
    expect(textOf(out)).toBe('emoji 😀😀 and [REDACTED:keyword]');
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    for (const e of out)
      if (e.type === 'block_delta' && e.delta.kind === 'text') expect(lone.test(e.delta.text)).toBe(false);
  });
});

describe('stream helpers', () => {
  it('hasOutputWebhook', () => {
    expect(hasOutputWebhook(compile(guardrail('w', webhook('http://127.0.0.1:9/'), 'block')), scope)).toBe(true);
    expect(
      hasOutputWebhook(compile(guardrail('w', webhook('http://127.0.0.1:9/'), 'block', { appliesTo: 'input' })), scope),
    ).toBe(false);
  });
  it('responseAsEvents replays a response as a stream', async () => {
    const events = await collect(
      responseAsEvents({
        id: 'r',
        model: 'm',
        created: 2,
        content: [
          { type: 'reasoning', text: 'hmm', signature: 's' },
          { type: 'text', text: 'hi' },
          { type: 'tool_call', id: 't', name: 'f', arguments: '{}' },
        ],
        finish: 'tool_calls',
        usage: { inputTokens: 1, outputTokens: 2 },
      }),
    );
    expect(types(events)).toEqual([
      'message_start',
      'block_start',
      'block_delta',
      'block_delta',
      'block_stop',
      'block_start',
      'block_delta',
      'block_stop',
      'block_start',
      'block_delta',
      'block_stop',
      'message_stop',
    ]);
    expect(textOf(events, 1)).toBe('hi');
    expect(textOf(events, 2)).toBe('{}');
  });
});
