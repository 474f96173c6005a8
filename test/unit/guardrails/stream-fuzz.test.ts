import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../src/core/canonical.js';
import { patternRules } from '../../../src/guardrails/rules.js';
import { scanText } from '../../../src/guardrails/scan.js';
import { guardStream } from '../../../src/guardrails/stream.js';
import { compile, detectors, guardrail, keywords, regex, scope } from './rule-configs.js';

/** Small seeded PRNG (mulberry32): the same cases on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FRAGMENTS = [
  'hello ',
  'the answer is 42. ',
  'call +1 (415) 555-0100 ',
  'or 020 7946 0958, ',
  'mail jane.doe@example.co.uk ',
  'x@y.io',
  'card 4111-1111-1111-1111 ',
  '5500000000000004',
  ' IBAN GB82 WEST 1234 5698 7654 32 ',
  'AKIAIOSFODNN7EXAMPLE',
  ' Bearer abcdefghijklmnop0123456789 ',
  '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n-----END PRIVATE ' +
    'KEY-----\n',
  'secret ',
  'secrets ',
  'Top Secret! ',
  'order 1234567890123 ',
  '2024-01-15 ',
  '😀 ',
  '\n',
  'ticket-123 ',
  '"quoted" \\ back ',
];

const rules = compile(
  guardrail(
    'pii',
    detectors('email', 'phone', 'credit_card', 'iban', 'aws_access_key', 'private_key', 'bearer_token'),
    'redact',
  ),
  guardrail('kw', keywords(['secret', 'top secret']), 'redact'),
  guardrail('re', regex('ticket-\\d+'), 'redact'),
  guardrail('log', regex('answer'), 'log'),
  guardrail('no-iban', detectors('iban'), 'block'),
);

const BLOCKED = '<<blocked>>';

async function streamed(pieces: string[], kind: 'text' | 'json'): Promise<string> {
  async function* src(): AsyncGenerator<StreamEvent> {
    yield {
      type: 'block_start',
      index: 0,
      block: kind === 'text' ? { kind: 'text' } : { kind: 'tool_call', id: 't', name: 'f' },
    };
    for (const p of pieces)
      yield {
        type: 'block_delta',
        index: 0,
        delta: kind === 'text' ? { kind: 'text', text: p } : { kind: 'tool_arguments', json: p },
      };
    yield { type: 'block_stop', index: 0 };
  }
  let out = '';
  for await (const ev of guardStream(src(), rules, scope, () => {})) {
    if (ev.type === 'error') return out + BLOCKED;
    if (ev.type === 'block_delta')
      out += ev.delta.kind === 'text' ? ev.delta.text : ev.delta.kind === 'tool_arguments' ? ev.delta.json : '';
  }
  return out;
}

function randomSplit(text: string, rnd: () => number): string[] {
  const pieces: string[] = [];
  let i = 0;
  while (i < text.length) {
    const n = 1 + Math.floor(rnd() * (rnd() < 0.2 ? 200 : 12));
    pieces.push(text.slice(i, i + n));
    i += n;
  }
  return pieces;
}

describe('guardStream fuzz (seeded)', () => {
  it(
    'random texts and random delta boundaries give the one-piece result (text and JSON), ' +
      'or block at the same rule',
    async () => {
      const rnd = prng(20240607);
      for (let round = 0; round < 300; round++) {
        const n = 1 + Math.floor(rnd() * 14);
        let text = '';
        for (let i = 0; i < n; i++) text += FRAGMENTS[Math.floor(rnd() * FRAGMENTS.length)];
        const kind = rnd() < 0.3 ? 'json' : 'text';
        const input = kind === 'json' ? JSON.stringify({ a: text, n: 4111111111111111 }) : text;
        const expected = scanText(patternRules(rules), input, kind);
        const got = await streamed(randomSplit(input, rnd), kind);
        const why = JSON.stringify({ round, input, got });
        if (expected.blockedBy) {
          // Blocked: what was sent before the error is a prefix of the redacted text, without the IBAN.
          expect(got.endsWith(BLOCKED), why).toBe(true);
          const sent = got.slice(0, -BLOCKED.length);
          expect(expected.text.startsWith(sent), why).toBe(true);
          expect(sent, why).not.toContain('GB82');
        } else {
          expect(got, why).toBe(expected.text);
          if (kind === 'json') expect(() => JSON.parse(got)).not.toThrow();
        }
      }
    },
  );
});
