import { describe, expect, it } from 'vitest';
import { lexJson, isSafeJsonCut } from '../../../src/guardrails/json-text.js';
import { patternRules } from '../../../src/guardrails/rules.js';
import { scanText } from '../../../src/guardrails/scan.js';
import { compile, detectors, guardrail, keywords, regex } from './rule-configs.js';

const rules = (...g: Parameters<typeof compile>) => patternRules(compile(...g));

describe('scanText', () => {
  it('replaces each match with a labelled placeholder and reports hits without the text', () => {
    const r = scanText(
      rules(guardrail('pii', detectors('email', 'credit_card'), 'redact')),
      'mail a@example.com, card 4111 1111 1111 1111.',
    );
    expect(r.text).toBe('mail [REDACTED:email], card [REDACTED:credit_card].');
    expect(r.hits).toEqual([
      { guardrailId: 'pii', action: 'redact', label: 'email' },
      { guardrailId: 'pii', action: 'redact', label: 'credit_card' },
    ]);
    expect(r.blockedBy).toBeUndefined();
    expect(JSON.stringify(r.hits)).not.toMatch(/example|4111/);
  });
  it('returns the same string and no hits when nothing matches', () => {
    const text = 'nothing to see';
    const r = scanText(rules(guardrail('pii', detectors('email'), 'redact')), text);
    expect(r).toEqual({ text, hits: [] });
  });
  it('merges overlapping matches into one placeholder, labelled after the first', () => {
    const r = scanText(
      rules(guardrail('re', regex('card \\d{4}'), 'redact'), guardrail('cc', detectors('credit_card'), 'redact')),
      'my card 4111 1111 1111 1111 ok',
    );
    expect(r.text).toBe('my [REDACTED:regex] ok');
    expect(r.hits.map((h) => h.guardrailId)).toEqual(['re', 'cc']);
  });
  it('keeps touching matches apart', () => {
    expect(scanText(rules(guardrail('k', keywords(['ab', 'cd']), 'redact')), 'ab cd').text).toBe(
      '[REDACTED:keyword] [REDACTED:keyword]',
    );
    expect(scanText(rules(guardrail('r', regex('ab|cd'), 'redact')), 'abcd').text).toBe(
      '[REDACTED:regex][REDACTED:regex]',
    );
  });
  it('block wins over redact, which wins over log; every rule that matched is reported', () => {
    const r = scanText(
      rules(
        guardrail('log', keywords(['password']), 'log'),
        guardrail('red', detectors('email'), 'redact'),
        guardrail('blk1', detectors('aws_access_key'), 'block'),
        guardrail('blk2', keywords(['hunter2']), 'block'),
      ),
      'password hunter2 for a@example.com is AKIAIOSFODNN7EXAMPLE',
    );
    expect(r.blockedBy).toBe('blk1');
    expect(r.hits).toEqual([
      { guardrailId: 'log', action: 'log', label: 'keyword' },
      { guardrailId: 'red', action: 'redact', label: 'email' },
      { guardrailId: 'blk1', action: 'block', label: 'aws_access_key' },
      { guardrailId: 'blk2', action: 'block', label: 'keyword' },
    ]);
    // A log match under a redaction: the text is redacted, the log hit still shows.
    const s = scanText(
      rules(guardrail('log', detectors('email'), 'log'), guardrail('red', regex('\\S+@\\S+'), 'redact')),
      'to a@example.com',
    );
    expect(s.text).toBe('to [REDACTED:regex]');
    expect(s.hits.map((h) => h.action)).toEqual(['log', 'redact']);
  });
  it('log only: text unchanged, one hit per rule and label', () => {
    const r = scanText(rules(guardrail('log', detectors('email'), 'log')), 'a@example.com b@example.com');
    expect(r.text).toBe('a@example.com b@example.com');
    expect(r.hits).toEqual([{ guardrailId: 'log', action: 'log', label: 'email' }]);
  });
});

describe('scanText on JSON (tool-call arguments)', () => {
  const pii = rules(guardrail('pii', detectors('email', 'credit_card', 'aws_access_key'), 'redact'));

  it('redacts inside strings and keeps the JSON valid', () => {
    const args = JSON.stringify({ to: 'a@example.com', note: 'key AKIAIOSFODNN7EXAMPLE, thanks' });
    const r = scanText(pii, args, 'json');
    expect(JSON.parse(r.text)).toEqual({ to: '[REDACTED:email]', note: 'key [REDACTED:aws_access_key], thanks' });
  });
  it('sees through escapes without splitting them', () => {
    const args = JSON.stringify({ note: 'line\nAKIAIOSFODNN7EXAMPLE\t"a@example.com"\\' });
    const r = scanText(pii, args, 'json');
    expect(JSON.parse(r.text)).toEqual({ note: 'line\n[REDACTED:aws_access_key]\t"[REDACTED:email]"\\' });
  });
  it('a number token becomes a string placeholder', () => {
    const r = scanText(pii, '{"card": 4111111111111111, "n": 1}', 'json');
    expect(JSON.parse(r.text)).toEqual({ card: '[REDACTED:credit_card]', n: 1 });
  });
  it('a match across tokens redacts each token it touches, leaving the punctuation', () => {
    const r = scanText(
      rules(guardrail('pw', regex('"password":\\s*"[^"]*"'), 'redact')),
      '{"password": "hunter2", "u": "x"}',
      'json',
    );
    expect(JSON.parse(r.text)).toEqual({ '[REDACTED:regex]': '[REDACTED:regex]', u: 'x' });
  });
  it('a regex that starts inside an escape widens to the whole escape', () => {
    // The view blanks `\n` to two spaces; `\s\w+` starts on the second, inside the escape.
    const r = scanText(rules(guardrail('r', regex('\\s\\w+'), 'redact')), JSON.stringify({ a: 'x\nabc' }), 'json');
    expect(JSON.parse(r.text)).toEqual({ a: 'x[REDACTED:regex]' });
  });
});

describe('JSON lexer', () => {
  it('classes and safe cut points', () => {
    const lex = lexJson('{"a":"x\\u00e9y","n":-12.5}');
    expect(lex.view).toBe('{"a":"x      y","n":-12.5}');
    const at = (s: string) => '{"a":"x\\u00e9y","n":-12.5}'.indexOf(s);
    expect(isSafeJsonCut(lex, at('\\u'))).toBe(true);
    expect(isSafeJsonCut(lex, at('u00'))).toBe(false);
    expect(isSafeJsonCut(lex, at('-12'))).toBe(true);
    expect(isSafeJsonCut(lex, at('12.'))).toBe(false);
    expect(isSafeJsonCut(lex, lex.classes.length)).toBe(true);
    expect(isSafeJsonCut(lexJson('{"n": 12'), 8)).toBe(false);
    expect(isSafeJsonCut(lexJson('{"s": "ab\\'), 10)).toBe(false);
  });
  it('carries its state across pieces', () => {
    const a = lexJson('{"s": "ab\\');
    const b = lexJson('u0041c"}', a.end);
    expect(a.view + b.view).toBe(lexJson('{"s": "ab\\u0041c"}').view);
  });
});
