import { describe, expect, it } from 'vitest';
import {
  type CompiledGuardrail,
  compileGuardrail,
  type GuardrailDirection,
  type GuardrailScope,
  guardrailSelection,
  patternRules,
  REGEX_MAX_SPAN,
  selectGuardrails,
  type PatternGuardrail,
} from '../../../src/guardrails/rules.js';
import { compile, detectors, guardrail, keywords, regex, scope, webhook } from './rule-configs.js';

const pattern = (g: ReturnType<typeof guardrail>): PatternGuardrail => compileGuardrail(g) as PatternGuardrail;
const texts = (r: PatternGuardrail, text: string) => r.find(text).map((s) => [text.slice(s.start, s.end), s.label]);

describe('compileGuardrail', () => {
  it('compiles regexes with the g flag added to the configured ones', () => {
    const r = pattern(guardrail('r', regex('ticket-(\\d+)', 'i'), 'redact'));
    expect(r.kind).toBe('pattern');
    expect(r.maxSpan).toBe(REGEX_MAX_SPAN);
    expect(texts(r, 'TICKET-12 and ticket-7')).toEqual([
      ['TICKET-12', 'regex'],
      ['ticket-7', 'regex'],
    ]);
    // Running twice gives the same answer (the shared regex's lastIndex is reset).
    expect(texts(r, 'ticket-1')).toEqual([['ticket-1', 'regex']]);
  });
  it('skips empty regex matches instead of looping', () => {
    expect(texts(pattern(guardrail('r', regex('x*'), 'log')), 'axxb')).toEqual([['xx', 'regex']]);
  });
  it('keywords: whole words, case-insensitive by default, longest first, literal characters', () => {
    const r = pattern(guardrail('k', keywords(['secret', 'top secret', 'c++', 'Ünïcode']), 'redact'));
    expect(r.maxSpan).toBe('top secret'.length);
    expect(texts(r, 'TOP SECRET, secrets, Secret_x, c++ and ünïcode; csecret')).toEqual([
      ['TOP SECRET', 'keyword'],
      ['c++', 'keyword'],
      ['ünïcode', 'keyword'],
    ]);
  });
  it('keywords: case-sensitive when asked', () => {
    expect(texts(pattern(guardrail('k', keywords(['Acme'], true), 'log')), 'acme Acme ACME')).toEqual([
      ['Acme', 'keyword'],
    ]);
  });
  it('detectors: labelled with the detector, maxSpan the largest', () => {
    const r = pattern(guardrail('d', detectors('aws_access_key', 'email'), 'redact'));
    expect(texts(r, 'AKIAIOSFODNN7EXAMPLE a@example.com')).toEqual([
      ['AKIAIOSFODNN7EXAMPLE', 'aws_access_key'],
      ['a@example.com', 'email'],
    ]);
    expect(r.maxSpan).toBe(185);
  });
  it('max_input_tokens and webhook keep what their checks need', () => {
    expect(compileGuardrail(guardrail('t', { type: 'max_input_tokens', limit: 100 }, 'block'))).toMatchObject({
      kind: 'max_input_tokens',
      limit: 100,
    });
    expect(compileGuardrail(guardrail('w', webhook('http://127.0.0.1:9/x', 300, 'fail_open'), 'block'))).toMatchObject({
      kind: 'webhook',
      url: 'http://127.0.0.1:9/x',
      timeoutMs: 300,
      onError: 'fail_open',
    });
  });
  it('refuses unknown checks and detectors', () => {
    expect(() => compileGuardrail(guardrail('x', { type: 'nope' }, 'log'))).toThrow(/unknown check type/);
    expect(() => compileGuardrail(guardrail('x', detectors('ssn'), 'log'))).toThrow(/unknown detector "ssn"/);
  });
});

describe('matches and selectGuardrails', () => {
  const rules = compile(
    guardrail('any', keywords(['a']), 'log'),
    guardrail('in', keywords(['a']), 'log', { appliesTo: 'input' }),
    guardrail('out', keywords(['a']), 'log', { appliesTo: 'output' }),
    guardrail('role', keywords(['a']), 'log', { match: { roles: ['ops'] } }),
    guardrail('key', keywords(['a']), 'log', { match: { keys: ['k1', 'k9'] } }),
    guardrail('models', keywords(['a']), 'log', { match: { models: ['openai/*', 'team/fast'] } }),
    guardrail('all-of', keywords(['a']), 'log', { match: { roles: ['dev'], keys: ['k2'] } }),
    guardrail('hook', webhook('http://127.0.0.1:9/'), 'block'),
  );
  const ids = (direction: 'input' | 'output', s = scope) => selectGuardrails(rules, direction, s).map((r) => r.id);

  it('filters on direction, roles and keys exactly, keeping config order', () => {
    expect(ids('input')).toEqual(['any', 'in', 'key', 'hook']);
    expect(ids('output')).toEqual(['any', 'out', 'key', 'hook']);
    expect(ids('input', { ...scope, role: 'ops', keyId: 'k2' })).toEqual(['any', 'in', 'role', 'hook']);
    expect(ids('input', { ...scope, keyId: 'k2' })).toEqual(['any', 'in', 'all-of', 'hook']);
  });
  it('models: patterns against the named model or any model it can reach', () => {
    expect(ids('input', { ...scope, modelId: 'openai/gpt-4o' })).toContain('models');
    expect(ids('input', { ...scope, modelId: 'team/fast' })).toContain('models');
    expect(ids('input', { ...scope, modelId: 'team/slow' })).not.toContain('models');
    expect(
      ids('input', { ...scope, modelId: 'team/slow', reachableModelIds: ['local/echo', 'openai/gpt-4o'] }),
    ).toContain('models');
    expect(ids('input', { ...scope, modelId: 'openaix/gpt' })).not.toContain('models');
  });
  it('patternRules keeps only the synchronous text checks', () => {
    expect(patternRules(rules).map((r) => r.id)).not.toContain('hook');
  });
});

describe('guardrailSelection (kept per rule list, direction and subset)', () => {
  const maxTokens = { type: 'max_input_tokens', limit: 10 };
  const mixed = [
    guardrail('any', keywords(['a']), 'log'),
    guardrail('in-limit', maxTokens, 'block', { appliesTo: 'input', match: { roles: ['dev'] } }),
    guardrail('out', detectors('email'), 'redact', { appliesTo: 'output', match: { keys: ['k1'] } }),
    guardrail('models', keywords(['a']), 'log', { match: { models: ['openai/*'] } }),
    guardrail('hook', webhook('http://127.0.0.1:9/'), 'block', { match: { roles: ['ops'], keys: ['k2'] } }),
  ];
  const scopes: GuardrailScope[] = [];
  for (const role of ['dev', 'ops'])
    for (const keyId of ['k1', 'k2'])
      for (const [modelId, reachableModelIds] of [
        ['local/echo', undefined],
        ['openai/gpt-4o', undefined],
        ['team/alias', ['local/echo', 'openai/gpt-4o']],
      ] as const)
        scopes.push({ role, keyId, modelId, ...(reachableModelIds ? { reachableModelIds } : {}) });

  /** What the selection must equal: the plain filter, split by kind. */
  const expected = (rules: readonly CompiledGuardrail[], direction: GuardrailDirection, s: GuardrailScope) => {
    const all = rules.filter((r) => (r.appliesTo === 'both' || r.appliesTo === direction) && r.matches(s));
    return {
      all: all.map((r) => r.id),
      patterns: all.filter((r) => r.kind === 'pattern').map((r) => r.id),
      tokenLimits: all.filter((r) => r.kind === 'max_input_tokens').map((r) => r.id),
      webhooks: all.filter((r) => r.kind === 'webhook').map((r) => r.id),
    };
  };
  const actual = (rules: readonly CompiledGuardrail[], direction: GuardrailDirection, s: GuardrailScope) => {
    const sel = guardrailSelection(rules, direction, s);
    const ids = (list: readonly CompiledGuardrail[]) => list.map((r) => r.id);
    return {
      all: ids(sel.all),
      patterns: ids(sel.patterns),
      tokenLimits: ids(sel.tokenLimits),
      webhooks: ids(sel.webhooks),
    };
  };

  it('equals the plain filter for every scope and direction, asked twice in any order', () => {
    const rules = compile(...mixed);
    for (const pass of [0, 1])
      for (const direction of ['input', 'output'] as const)
        for (const s of pass === 0 ? scopes : [...scopes].reverse())
          expect(actual(rules, direction, s), `${direction} ${JSON.stringify(s)}`).toEqual(
            expected(rules, direction, s),
          );
  });
  it('gives the same object to requests that select the same rules, and a new one for another list', () => {
    const rules = compile(...mixed);
    const a = guardrailSelection(rules, 'input', scopes[0]!);
    expect(guardrailSelection(rules, 'input', { ...scopes[0]! })).toBe(a);
    expect(selectGuardrails(rules, 'input', scopes[0]!)).toBe(a.all);
    expect(guardrailSelection(rules, 'output', scopes[0]!)).not.toBe(a);
    expect(guardrailSelection(compile(...mixed), 'input', scopes[0]!)).not.toBe(a);
  });
  it('more rules than a subset key holds: still the plain filter', () => {
    const many = Array.from({ length: 40 }, (_, i) =>
      guardrail(`r${i}`, keywords(['a']), 'log', i % 3 === 0 ? { match: { keys: ['k2'] } } : {}),
    );
    const rules = compile(...many);
    for (const s of scopes) expect(actual(rules, 'input', s)).toEqual(expected(rules, 'input', s));
    expect(guardrailSelection(rules, 'input', scopes[0]!).all).toHaveLength(26);
    expect(guardrailSelection(rules, 'input', { ...scopes[0]!, keyId: 'k2' }).all).toHaveLength(40);
  });
});
