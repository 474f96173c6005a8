/**
 * Guardrail regexes that can freeze the gateway: exponential backtracking is an error, polynomial
 * time a warning, linear patterns pass; the config loader reports them at the pattern's path.
 */
import { describe, expect, it } from 'vitest';
import { loadConfigText } from '../../../src/config/load.js';
import { regexBacktrackingRisk } from '../../../src/config/regex-safety.js';

describe('regexBacktrackingRisk', () => {
  it.each([
    ['(a+)+$', '"a+" is repeated inside "(a+)+"'],
    ['^(\\d+)*$', '"\\d+" is repeated inside "(\\d+)*"'],
    ['([a-z0-9]+[.-]?)+@example\\.com', 'is repeated inside'],
    ['(x+x+)+y', 'can match the same characters'],
    // Repeated groups whose alternatives overlap: what scslre alone reports as polynomial.
    ['^(a|a)*$', 'the alternatives of "(a|a)*" can match the same text'],
    ['(\\w|\\d)+$', 'the alternatives of "(\\w|\\d)+"'],
    ['(.|\\s)*x', 'the alternatives of "(.|\\s)*"'],
    ['(ab|ab)*c', 'the alternatives of "(ab|ab)*"'],
  ])('%s: error (catastrophic)', (pattern, why) => {
    const risk = regexBacktrackingRisk(pattern, '');
    expect(risk?.severity).toBe('error');
    expect(risk?.message).toMatch(/^catastrophic backtracking: /);
    expect(risk?.message).toContain(why);
    expect(risk?.message).toContain('exponential');
  });

  it.each(['\\s*x\\s*$', '[a-z]+@[a-z]+\\.com', '\\w+@example\\.com', '(a|b)*c'])(
    '%s: warning (polynomial)',
    (pattern) => {
      const risk = regexBacktrackingRisk(pattern, 'i');
      expect(risk?.severity).toBe('warning');
      expect(risk?.message).toMatch(/^matching time can grow with the square of the text's length/);
    },
  );

  it.each([
    'sk-[A-Za-z0-9]{20,}',
    'TCK-[0-9]{6}',
    'deploy',
    'password\\s*[:=]\\s*\\S+',
    '(?<=secret:)\\w+',
    '(\\d+)*',
    '(?<![a-z])[a-z]+@[a-z]+\\.com',
    '(a|b)+',
    'internal-[a-z0-9-]+\\.corp\\.example',
  ])('%s: linear, no issue', (pattern) => {
    expect(regexBacktrackingRisk(pattern, 'i')).toBeUndefined();
  });

  it('reads the u and v flags (class set syntax) and answers in milliseconds', () => {
    const start = performance.now();
    expect(regexBacktrackingRisk('[\\p{L}--[a-z]]+', 'v')).toBeUndefined();
    expect(regexBacktrackingRisk('(\\p{L}+)+$', 'u')?.severity).toBe('error');
    expect(performance.now() - start).toBeLessThan(2_000);
  });
});

describe('config load', () => {
  const yaml = (pattern: string) => `
providers:
  local: { api: mock, models: { echo: { context_window: 1000 } } }
roles:
  dev: { models: ["*"] }
keys:
  - { id: k, key: test-key-123456, role: dev }
guardrails:
  - { id: ok, applies_to: input, check: { type: regex, pattern: "deploy" }, action: block }
  - { id: risky, applies_to: input, check: { type: regex, pattern: ${JSON.stringify(pattern)} }, action: block }
`;

  it('refuses the config (no config object, so serve does not start) with the error at the pattern', () => {
    const r = loadConfigText(yaml('(a+)+$'), 'g.yaml', {});
    expect(r.config).toBeUndefined();
    const issue = r.issues.find((i) => i.path === 'guardrails[1].check.pattern');
    expect(issue).toMatchObject({ severity: 'error', line: 10 });
    expect(issue?.message).toMatch(/^catastrophic backtracking/);
  });

  it('keeps a polynomial pattern with a warning, and an invalid one is still only "invalid"', () => {
    const warned = loadConfigText(yaml('[a-z]+@[a-z]+\\.com'), 'g.yaml', {});
    expect(warned.config).toBeDefined();
    expect(warned.issues).toEqual([
      expect.objectContaining({ severity: 'warning', path: 'guardrails[1].check.pattern' }),
    ]);
    const invalid = loadConfigText(yaml('(a+'), 'g.yaml', {});
    expect(invalid.issues.filter((i) => i.path === 'guardrails[1].check.pattern').map((i) => i.message)).toEqual([
      expect.stringMatching(/^invalid regular expression/),
    ]);
  });
});
