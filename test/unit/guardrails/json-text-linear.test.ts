/**
 * Redacting inside JSON stays linear: thousands of matches inside one long scalar are widened to
 * that scalar in one pass, and the result is the same valid JSON.
 */
import { describe, expect, it } from 'vitest';
import { patternRules } from '../../../src/guardrails/rules.js';
import { scanText } from '../../../src/guardrails/scan.js';
import { compile, detectors, guardrail } from './rule-configs.js';

const RULES = patternRules(compile(guardrail('keys', detectors('aws_access_key'), 'redact')));

/** Best of three runs, ms. */
function bestMs(fn: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    fn();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

describe('redactJson: many matches in one scalar', () => {
  const json = (keys: number) => `{"x": ${'AKIAIOSFODNN7EXAMPLE-'.repeat(keys)}1, "y": "AKIAIOSFODNN7EXAMPLE"}`;

  it('becomes one placeholder string, still valid JSON', () => {
    const out = scanText(RULES, json(1000), 'json').text;
    expect(JSON.parse(out)).toEqual({ x: '[REDACTED:aws_access_key]', y: '[REDACTED:aws_access_key]' });
  });

  it('in time linear in the scalar (5,000 vs 10,000 keys)', () => {
    scanText(RULES, json(100), 'json');
    const atN = bestMs(() => scanText(RULES, json(5_000), 'json'));
    const at2N = bestMs(() => scanText(RULES, json(10_000), 'json'));
    // Widening each match across the whole scalar was quadratic: 10,000 keys took seconds.
    expect(at2N, `${atN.toFixed(1)} ms → ${at2N.toFixed(1)} ms`).toBeLessThan(3 * atN + 30);
  });
});
