/**
 * The JSON line is written without copying its fields (logger.ts, jsonLine): it must stay byte for
 * byte what `JSON.stringify({ time, level, msg, ...fields })` wrote, for request records (with and
 * without their optional fields, errors, guardrail hits, long and unicode strings) and for any
 * other field layout.
 */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/core/errors.js';
import { boundField, MAX_FIELD_CHARS } from '../../../src/observe/bound-field.js';
import { createLogger, type LogLevel } from '../../../src/observe/logger.js';
import { buildRecord, type RecordInput } from '../../../src/observe/record.js';

/** The line as the spread wrote it: string fields bounded, the record's own time or the clock's. */
function spreadLine(level: LogLevel, msg: string, fields: Record<string, unknown>, clock: string): string {
  const f: Record<string, unknown> = { ...fields };
  for (const k of Object.keys(f)) {
    const v = f[k];
    if (typeof v === 'string' && v.length > MAX_FIELD_CHARS) f[k] = boundField(v);
  }
  const time = Object.hasOwn(f, 'time') ? undefined : clock;
  return `${JSON.stringify({ time, level, msg, ...f })}\n`;
}

function logged(level: LogLevel, msg: string, fields?: Record<string, unknown>): { line: string; expected: string } {
  const lines: string[] = [];
  createLogger({ level: 'debug', write: (l) => lines.push(l) }).log(level, msg, fields);
  expect(lines).toHaveLength(1);
  const clock = String(JSON.parse(lines[0]).time);
  return { line: lines[0], expected: spreadLine(level, msg, fields ?? {}, clock) };
}

const BASE: RecordInput = {
  id: 'gw-0123456789abcdef',
  endpoint: 'POST /v1/chat/completions',
  startedAtEpochMs: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
  startedAt: 1000,
  endedAt: 1012.3456,
  backoffMs: 0,
  attempts: [],
  status: 200,
  clientAborted: false,
  guardrails: [],
};

const FULL: RecordInput = {
  ...BASE,
  firstByteSentAt: 1003.5,
  attempts: [
    {
      provider: 'a',
      model: 'a/m',
      startMs: BASE.startedAtEpochMs,
      endMs: BASE.startedAtEpochMs + 4,
      outcome: 'failed',
      status: 503,
      errorCode: 'upstream_error',
      byok: false,
    },
    { provider: 'b', model: 'b/m', startMs: BASE.startedAtEpochMs + 5, outcome: 'ok', status: 200, byok: true },
  ],
  keyId: 'team-key',
  role: 'dev',
  model: 'team/fast',
  servedProvider: 'b',
  servedModel: 'b/m',
  fallback: true,
  stream: true,
  usage: { inputTokens: 12, outputTokens: 34, cacheReadTokens: 5, cacheWriteTokens: 6 },
  costNano: 8250,
  byok: true,
  droppedFields: ['logprobs', 'seed'],
  rewrittenFields: ['thinking'],
};

const RECORDS: Record<string, RecordInput> = {
  'no optional fields': BASE,
  'every optional field': FULL,
  'a caller error': { ...BASE, status: 400, error: new GatewayError('invalid_request', 'bad') },
  'a provider error after the caller left': {
    ...FULL,
    status: 502,
    error: new GatewayError('upstream_error', 'boom'),
    clientAborted: true,
  },
  'guardrail hits': {
    ...FULL,
    guardrails: [
      { guardrail: 'no-secrets', action: 'block', direction: 'input', label: 'aws_access_key' },
      { guardrail: 'pii', action: 'redact', direction: 'output' },
    ],
    status: 400,
    error: new GatewayError('guardrail_blocked', 'blocked'),
  },
  'long strings (a surrogate pair at the cut)': {
    ...FULL,
    model: `${'m'.repeat(MAX_FIELD_CHARS - 1)}😀${'x'.repeat(3000)}`,
    droppedFields: ['d'.repeat(5000), ...Array.from({ length: 70 }, (_, n) => `f${n}`)],
    keyId: 'k'.repeat(2000),
  },
  'unicode, quotes and control characters': {
    ...FULL,
    id: 'id "quoted" \\ \n\r\t \u0000 \u2028\u2029 é 漢字 😀',
    model: 'módèl/naïve-😀',
    endpoint: 'POST /v1/chat/completions?x=\u001b[31m',
    keyId: '\ud800 lone surrogate',
  },
};

describe('the JSON request line, joined without a copy', () => {
  for (const [name, input] of Object.entries(RECORDS)) {
    for (const level of ['info', 'warn', 'error'] as const) {
      it(`${name} (${level}): byte for byte the spread's line`, () => {
        const record = buildRecord(input) as unknown as Record<string, unknown>;
        const { line, expected } = logged(level, 'request', record);
        expect(line).toBe(expected);
      });
    }
  }

  it('keeps its key order: time, level, msg, then the record in its order', () => {
    const { line } = logged('info', 'request', buildRecord(FULL) as unknown as Record<string, unknown>);
    expect(line).toBe(
      '{"time":"2026-01-02T03:04:05.678Z","level":"info","msg":"request","correlation_id":"gw-0123456789abcdef",' +
        '"endpoint":"POST /v1/chat/completions","key_id":"team-key","role":"dev","model":"team/fast",' +
        '"provider":"b","served_model":"b/m","attempts":2,"fallback":true,"status":200,"stream":true,' +
        '"input_tokens":12,"output_tokens":34,"cache_read_tokens":5,"cache_write_tokens":6,"cost_usd":0.00000825,' +
        '"latency_ms":12.35,"upstream_ms":11.35,"ttft_ms":3.5,"overhead_ms":1,"byok":true,' +
        '"dropped_fields":["logprobs","seed"],"rewritten_fields":["thinking"]}\n',
    );
  });

  it('a record joined by extra fields (an internal error, prompts) is the same line', () => {
    const record = buildRecord(FULL);
    const { line, expected } = logged('error', 'request', {
      ...record,
      error: 'Error: x\n    at y',
      prompt: { messages: [{ role: 'user', content: 'hé "x"' }] },
    });
    expect(line).toBe(expected);
  });
});

describe('other field layouts keep the spread line', () => {
  const cases: Record<string, Record<string, unknown> | undefined> = {
    'no fields': undefined,
    'empty fields': {},
    'only undefined fields': { a: undefined, b: undefined },
    'plain fields': { correlation_id: 'c1', budgets: ['b'], n: 3, ok: true, nested: { time: 'x', level: 1 } },
    'a time that is not first': { correlation_id: 'c', time: '2026-01-02T03:04:05.678Z', status: 200 },
    'a time that is not a string': { time: 12, status: 200 },
    'an own undefined time': { time: undefined, status: 200 },
    'a level field': { level: 'oops', x: 1 },
    'a msg field after a time': { time: '2026-01-02T03:04:05.678Z', msg: 'other' },
    'index-like keys': { b: 1, 2: 'two', 0: 'zero', a: 'x' },
    'a long string and a long key': { ['k'.repeat(2000)]: 'v'.repeat(5000) },
    'values JSON leaves out or turns': { f: () => 1, n: Number.NaN, i: -Infinity, d: new Date(0), z: null },
  };
  for (const [name, fields] of Object.entries(cases)) {
    it(name, () => {
      const { line, expected } = logged('warn', 'a "quoted" msg é 😀 \u2028', fields);
      expect(line).toBe(expected);
    });
  }
});
