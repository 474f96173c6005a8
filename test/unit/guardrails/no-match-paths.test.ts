/**
 * The shortcuts that make a text nothing matches cheap give the results the full work gives:
 * detector cues (a text without its cue has no match), the detector rule that runs only the
 * detectors whose cue is there, and JSON read without the lexer when it has no escape.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../src/core/canonical.js';
import { DETECTOR_NAMES, DETECTORS, type DetectorName } from '../../../src/guardrails/detectors.js';
import type { ScanHit } from '../../../src/guardrails/hits.js';
import { lexJson } from '../../../src/guardrails/json-text.js';
import { patternRules, type LabelledSpan, type PatternGuardrail } from '../../../src/guardrails/rules.js';
import { scanCompleteText } from '../../../src/guardrails/scan.js';
import { guardStream } from '../../../src/guardrails/stream.js';
import { compile, detectors, guardrail, scope } from './rule-configs.js';

const PEM_BODY =
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n' +
  'MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n';
const PEM = `-----BEGIN PRIVATE KEY-----\n${PEM_BODY}-----END PRIVATE KEY-----`;
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';

/** Texts each detector finds something in (the detector tests' positive examples). */
const POSITIVE: Record<DetectorName, readonly string[]> = {
  email: [
    'write to jane.doe+news@mail.example.co.uk, or ops@corp.io.',
    'mailto:bob_smith@example.org',
    '<alice@example.com>',
    'x  bob@example.com',
  ],
  phone: [
    'Call +1 (415) 555-0100 or +44 20 7946 0958.',
    'tel:+14155550100, +33 6 12 34 56 78, +44 (0)20 7946 0958',
    'call +49 30 1234567 please, or +49 30 12345678',
    'office (415) 555-0100, cell 415.555.0199, fax 1-800-555-0199',
    'London 020 7946 0958, Paris 06 12 34 56 78, Berlin (030) 1234567',
    // Each shape on its own, so no other number lends it a cue.
    '+14155550100',
    '(415) 555-0100',
    '1-800-555-0199',
    '(030) 1234567',
    '(030)1234567',
    '06 12 34 56 78',
  ],
  credit_card: [
    'visa 4111 1111 1111 1111, mc 5500-0000-0000-0004, amex 378282246310005.',
    'discover 6011111111111117 and 2-series 2221000000000009',
    '4111 1111 1111 1111',
    '5500-0000-0000-0004',
  ],
  iban: [
    'pay DE89 3704 0044 0532 0130 00 now',
    'GB82WEST12345698765432, fr14 2004 1010 0505 0001 3m02 606.',
    'NO93 8601 1117 947 and CH93 0076 2011 6238 5295 7 and BE68539007547034',
  ],
  aws_access_key: ['id=AKIAIOSFODNN7EXAMPLE and "ASIAY34FZKBOKMUTVV7A"', 'ASIAY34FZKBOKMUTVV7A'],
  private_key: [
    `key:\n${PEM}\nthanks`,
    PEM.replace(/PRIVATE KEY/g, 'OPENSSH PRIVATE KEY'),
    `{"k": "${PEM.replace(/\n/g, ' ')}"}`,
    'here: -----BEGIN RSA PRIVATE KEY-----',
    `-----BEGIN PRIVATE KEY-----\n${PEM_BODY}-----END PRI`,
  ],
  bearer_token: [
    `Authorization: Bearer ${JWT}\n`,
    'authorization: bearer abcdefghij0123456789== ok',
    'BEARER\tabcdefghijklmnop',
  ],
};

/** Near misses and disguises: the shortcuts must not change what these give either. */
const TRICKY = [
  '',
  'Say hello in one short sentence, then stop.',
  'Hello! This is a canned benchmark reply.',
  'order 4155550100; on 2024-01-15 at 10:30; host 192.168.100.200; math 3+5=8; x+14155550100',
  '4111 1111-1111 1111 and 41111111111111110000',
  'DE88 3704 0044 0532 0130 00, US12 3456 7890 1234 5678 90',
  'AIDAIOSFODNN7EXAMPLE akiaiosfodnn7example xAKIAIOSFODNN7EXAMPLE',
  '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----',
  'Bearer abc123 / the bearer of bad news / xBearer abcdefghijklmnopqr',
  'key AKIA\u200BIOSFODNN7EXAMPLE.',
  'ｋｅｙ ＡＫＩＡＩＯＳＦＯＤＮＮ７ＥＸＡＭＰＬＥ',
  'mail ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ, call ＋４４ ２０ ７９４６ ０９５８',
  'tel +4\u200B4 20 7946 0958 and jane\u00AD@example.com',
  '{"q":"\\u0041KIAIOSFODNN7EXAMPLE","n":4111111111111111}',
  '{"a":"line\\nAKIAIOSFODNN7EXAMPLE","b":"\\"Bearer abcdefghijklmnopqrstuv\\""}',
  'café ünïcödé 😀 text with no secret',
];

/** Fragments random texts are built from: cues, halves of them, separators, disguises. */
const FRAGMENTS = [
  ...'0123456789 -.()+@\t\n\\"'.split(''),
  'AKIA',
  'ASIA',
  'AK',
  'IA',
  'IOSFODNN7EXAMPLE',
  'AKIAIOSFODNN7EXAMPLE',
  'Bearer ',
  'BEARER\t',
  'bearer',
  'abcdefghijklmnop',
  '-----BEGIN ',
  'PRIVATE KEY-----',
  '-----END ',
  'DE89',
  '3704 0044 0532 0130 00',
  'jane',
  'example.com',
  '4111',
  '1111 1111 1111',
  '5500-0000-0000-0004',
  '378282246310005',
  '415',
  '555-0100',
  '020',
  '7946',
  '0958',
  '1234567',
  '(0)',
  '+44',
  'GB82WEST',
  '12345698765432',
  'GB82WEST12345698765432',
  'BE68 5390 0754 7034',
  '@corp.io',
  '\u200B',
  'Ａ',
  '＠',
  '１',
  'é',
];

/** A seeded generator (mulberry32): the same texts on every run. */
function randomTexts(count: number, seed: number): string[] {
  let s = seed;
  const next = (): number => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length: count }, () => {
    let text = '';
    const parts = 1 + Math.floor(next() * 24);
    for (let i = 0; i < parts; i++) text += FRAGMENTS[Math.floor(next() * FRAGMENTS.length)];
    return text;
  });
}

const RANDOM = randomTexts(4000, 13);
const SAMPLES = [...Object.values(POSITIVE).flat(), ...TRICKY, ...RANDOM];

/** What a detector rule gave before its cues: every detector's spans, in the rule's order. */
const everyDetector =
  (names: readonly DetectorName[]) =>
  (text: string): LabelledSpan[] =>
    names.flatMap((n) => DETECTORS[n].find(text).map((s) => ({ ...s, label: n })));

describe('detector cues', () => {
  it('every positive example has a match and its cue', () => {
    for (const name of DETECTOR_NAMES) {
      for (const text of POSITIVE[name]) {
        expect(DETECTORS[name].find(text).length, `${name}: ${text}`).toBeGreaterThan(0);
        expect(DETECTORS[name].cue.test(text), `${name}: ${text}`).toBe(true);
      }
    }
  });
  it('a random text with a match always has the cue', () => {
    const matched: Record<string, number> = {};
    for (const text of RANDOM) {
      for (const name of DETECTOR_NAMES) {
        if (DETECTORS[name].find(text).length === 0) continue;
        matched[name] = (matched[name] ?? 0) + 1;
        expect(DETECTORS[name].cue.test(text), `${name}: ${JSON.stringify(text)}`).toBe(true);
      }
    }
    // The random texts reach every detector, not just the examples.
    for (const name of DETECTOR_NAMES) expect(matched[name] ?? 0, name).toBeGreaterThan(10);
  });
  it('cues have no flags (a global regex would carry lastIndex between texts)', () => {
    for (const name of DETECTOR_NAMES) expect(DETECTORS[name].cue.flags, name).toBe('');
  });
});

describe('a detector rule runs only the detectors whose cue is there', () => {
  const sets: DetectorName[][] = [
    [...DETECTOR_NAMES],
    ['aws_access_key', 'private_key', 'bearer_token'],
    ['email', 'phone', 'credit_card', 'iban'],
    ['iban', 'email'],
  ];
  it('finds exactly what every detector finds, in the same order', () => {
    for (const names of sets) {
      const [rule] = patternRules(compile(guardrail('d', detectors(...names), 'redact')));
      const expected = everyDetector(names);
      for (const text of SAMPLES) expect(rule!.find(text), `${names} ${JSON.stringify(text)}`).toEqual(expected(text));
    }
  });
  it('scans (normal form, JSON views, redaction, hits, blocks) as a rule running every detector does', () => {
    const compiled = patternRules(
      compile(
        guardrail('creds', detectors('aws_access_key', 'private_key', 'bearer_token'), 'block'),
        guardrail('pii', detectors('email', 'phone', 'credit_card', 'iban'), 'redact'),
      ),
    );
    const names: DetectorName[][] = [
      ['aws_access_key', 'private_key', 'bearer_token'],
      ['email', 'phone', 'credit_card', 'iban'],
    ];
    const slow: PatternGuardrail[] = compiled.map((r, i) => ({ ...r, find: everyDetector(names[i]!) }));
    let redacted = 0;
    for (const text of SAMPLES) {
      for (const kind of ['text', 'json'] as const) {
        const fast = scanCompleteText(compiled, text, kind);
        expect(fast, `${kind} ${JSON.stringify(text)}`).toEqual(scanCompleteText(slow, text, kind));
        if (fast.text !== text) redacted++;
      }
    }
    expect(redacted).toBeGreaterThan(100);
  });
});

describe('JSON without a backslash is read as it is', () => {
  it('its escape-blanked view is the text itself', () => {
    for (const text of SAMPLES) {
      if (text.includes('\\')) continue;
      expect(lexJson(text).view).toBe(text);
    }
  });
  it('a redaction in it still keeps valid JSON valid', () => {
    const [pii] = patternRules(compile(guardrail('pii', detectors('email', 'credit_card'), 'redact')));
    const r = scanCompleteText([pii!], '{"to":"jane@example.com","card":4111111111111111,"n":[1]}', 'json');
    expect(r.text).toBe('{"to":"[REDACTED:email]","card":"[REDACTED:credit_card]","n":[1]}');
    expect(JSON.parse(r.text)).toEqual({ to: '[REDACTED:email]', card: '[REDACTED:credit_card]', n: [1] });
  });
});

describe('a cue split across stream deltas', () => {
  it('is still found once the deltas join', async () => {
    const rules = compile(guardrail('aws', detectors('aws_access_key', 'bearer_token'), 'redact'));
    const pieces = ['key A', 'K', 'IAIOSFODNN7EX', 'AMPLE, auth Bea', 'rer abcdefghij', 'klmnopqr done'];
    const events: StreamEvent[] = [
      { type: 'message_start', id: 'm', model: 'local/echo', created: 1 },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      ...pieces.map((text): StreamEvent => ({ type: 'block_delta', index: 0, delta: { kind: 'text', text } })),
      { type: 'block_stop', index: 0 },
      { type: 'message_stop', finish: 'stop', usage: { inputTokens: 1, outputTokens: 2 } },
    ];
    async function* source(): AsyncGenerator<StreamEvent> {
      yield* events;
    }
    const hits: ScanHit[] = [];
    let text = '';
    for await (const ev of guardStream(source(), rules, scope, (h) => hits.push(h))) {
      if (ev.type === 'block_delta' && ev.delta.kind === 'text') text += ev.delta.text;
    }
    expect(text).toBe('key [REDACTED:aws_access_key], auth Bearer [REDACTED:bearer_token] done');
    expect(hits.map((h) => h.label)).toEqual(['aws_access_key', 'bearer_token']);
  });
});
