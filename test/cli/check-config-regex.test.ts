/**
 * check-config refuses a guardrail regex that can backtrack catastrophically (one request would
 * freeze the gateway) and warns about one whose time is polynomial, naming the rule's path.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, ROOT, VALID } from './capture.js';

/** valid.yaml with one guardrail list appended, written to a temporary file. */
function withGuardrails(lines: string[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'gw-regex-')), 'gateway.yaml');
  writeFileSync(file, `${readFileSync(join(ROOT, VALID), 'utf8')}\nguardrails:\n${lines.join('\n')}\n`);
  return file;
}

describe('gateway check-config: guardrail regexes', () => {
  test('(a+)+$ is an error at guardrails[i].check.pattern, saying why; exit 2', async () => {
    const file = withGuardrails([
      '  - { id: fine, applies_to: input, check: { type: regex, pattern: "sk-[A-Za-z0-9]{20,}" }, action: block }',
      '  - { id: nested, applies_to: input, check: { type: regex, pattern: "(a+)+$" }, action: block }',
    ]);
    const r = await cli(['check-config', file]);
    expect(r.code).toBe(2);
    const line = r.out.find((l) => l.includes('guardrails[1].check.pattern'));
    expect(line).toMatch(
      /guardrails\[1\]\.check\.pattern: catastrophic backtracking: "a\+" is repeated inside "\(a\+\)\+"/,
    );
    expect(line).toContain('exponential');
    expect(r.out.some((l) => l.includes('guardrails[0]'))).toBe(false);
  });

  test('a polynomial regex is a warning: the file stays valid', async () => {
    const file = withGuardrails([
      '  - { id: mails, applies_to: output, check: { type: regex, pattern: "[a-z]+@[a-z]+\\\\.com" }, action: redact }',
    ]);
    const r = await cli(['check-config', file]);
    expect(r.code).toBe(0);
    expect(r.out.find((l) => l.includes('guardrails[0].check.pattern'))).toMatch(
      /warning: matching time can grow with the square of the text's length/,
    );
  });
});
