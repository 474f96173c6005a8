/**
 * The output stream guard rescans held text only once enough new text paid for it: the characters
 * its rules read grow linearly with the stream even while a 200 KB match is held, and secrets split
 * across deltas are still caught around such a match.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../src/core/canonical.js';
import { patternRules, type CompiledGuardrail, type PatternGuardrail } from '../../../src/guardrails/rules.js';
import { guardStream } from '../../../src/guardrails/stream.js';
import { compile, detectors, guardrail, scope } from './rule-configs.js';

/** The rules with every `find` counting the characters it reads. */
function counting(rules: CompiledGuardrail[]): { rules: PatternGuardrail[]; read: () => number } {
  let read = 0;
  const wrapped = patternRules(rules).map((r) => ({
    ...r,
    find: (text: string) => {
      read += text.length;
      return r.find(text);
    },
  }));
  return { rules: wrapped, read: () => read };
}

function textEvents(deltas: readonly string[]): StreamEvent[] {
  return [
    { type: 'block_start', index: 0, block: { kind: 'text' } },
    ...deltas.map((text): StreamEvent => ({ type: 'block_delta', index: 0, delta: { kind: 'text', text } })),
    { type: 'block_stop', index: 0 },
  ];
}

async function guardedText(
  rules: readonly CompiledGuardrail[],
  deltas: readonly string[],
): Promise<{ text: string; emits: number }> {
  async function* source() {
    yield* textEvents(deltas);
  }
  let text = '';
  let emits = 0;
  for await (const ev of guardStream(source(), rules, scope, () => undefined)) {
    if (ev.type === 'block_delta' && ev.delta.kind === 'text') {
      text += ev.delta.text;
      emits++;
    }
  }
  return { text, emits };
}

const inPieces = (text: string, size: number): string[] =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

const ALL = compile(
  guardrail(
    'pii',
    detectors('email', 'phone', 'credit_card', 'iban', 'aws_access_key', 'private_key', 'bearer_token'),
    'redact',
  ),
);

describe('guardStream: amortised linear', () => {
  it('a 200 KB bearer token in 32-character deltas is read a bounded number of times over', async () => {
    const token = 'x'.repeat(200_000);
    const stream = `Authorization: Bearer ${token} and then the rest.`;
    const { rules, read } = counting(ALL);
    const out = await guardedText(rules, inPieces(stream, 32));
    expect(out.text).toBe('Authorization: Bearer [REDACTED:bearer_token] and then the rest.');
    // Rescanning the held token on every delta would read it about 6,000 times over (n²/64).
    expect(read()).toBeLessThan(10 * stream.length);
  });

  it(
    'what a rule reads doubles, not quadruples, when a held private key doubles (up to 13 KB, inside the END search ' +
      'limit)',
    async () => {
      const readFor = async (lines: number) => {
        const key =
          '-----BEGIN PRIVATE KEY-----\n' +
          'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n'.repeat(lines) +
          '-----END PRIVATE KEY-----';
        const { rules, read } = counting(ALL);
        const out = await guardedText(rules, inPieces(`key: ${key} done`, 16));
        expect(out.text).toBe('key: [REDACTED:private_key] done');
        return read();
      };
      const once = await readFor(200);
      expect(await readFor(400)).toBeLessThan(3 * once);
    },
  );

  it('secrets split across deltas right before and after a long held token are still redacted', async () => {
    const stream =
      `mail jane.doe@example.com then Bearer ${'t'.repeat(50_000)} then AKIAIOSFODNN7EXAMPLE and 4111 ` +
      `1111 1111 1111.`;
    for (const size of [1, 7, 33]) {
      const out = await guardedText(ALL, inPieces(stream, size));
      expect(out.text).toBe(
        'mail [REDACTED:email] then Bearer [REDACTED:bearer_token] then [REDACTED:aws_access_key] and ' +
          '[REDACTED:credit_card].',
      );
    }
  });

  it('ordinary text is still released delta by delta, held back by at most the rules’ span', async () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(200);
    const out = await guardedText(ALL, inPieces(text, 10));
    expect(out.text).toBe(text);
    // One emission per delta once the hold-back has filled.
    expect(out.emits).toBeGreaterThan(text.length / 10 - 40);
  });
});
