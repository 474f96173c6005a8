/**
 * No request can freeze the event loop: over real sockets, each CPU-heavy path costs time linear
 * in its input (doubling the input must not quadruple the time) and `GET /health` stays prompt
 * (asked from another thread) while a big request runs:
 * - the private_key detector as an input guardrail (a text of thousands of BEGIN markers);
 * - redaction inside tool-call arguments (thousands of keys in one JSON scalar);
 * - count_tokens on one 200 KB word and on 256 KiB of `A` (local counting, the model's BPE);
 * - the max_input_tokens guardrail (the same counting, on a chat request);
 * - the output stream guard on a 200 KB `Bearer` token streamed in small deltas.
 * A guardrail regex that would backtrack catastrophically never gets that far: its config is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayYaml, securityGateway } from '../helpers/gateway-config.js';
import { expectLinearDoubling, healthLatencyDuring } from '../helpers/linear-time.js';
import { loadConfigText } from '../../src/config/load.js';
import { bodyFor, headersFor, jsonReply, openaiStream, post, startRig, type SecurityRig } from './harness.js';

/** GET /health must answer within this while a big request is being worked on. */
const HEALTH_MS = 1_500;
const TEST_MS = 60_000;

const KB = 1024;
const BEGIN = '-----BEGIN PRIVATE KEY-----';

/** Lower-case letters without a space, not periodic (a deterministic LCG): one long word. */
function word(length: number): string {
  let seed = 42;
  let s = '';
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    s += String.fromCharCode(97 + (seed % 26));
  }
  return s;
}

/**
 * Runs `send` at n and 2n characters (after a small warm-up: tokenizer ranks, JIT): health prompt at both, time linear.
 */
async function expectLinearAndResponsive(
  rig: SecurityRig,
  n: number,
  send: (size: number) => Promise<void>,
): Promise<void> {
  await send(KB);
  const atN = await healthLatencyDuring(rig.gw.url, () => send(n));
  expect(atN.healthMs, `GET /health took ${atN.healthMs.toFixed(0)} ms during a request of ${n} chars`).toBeLessThan(
    HEALTH_MS,
  );
  const at2N = await healthLatencyDuring(rig.gw.url, () => send(2 * n));
  expect(
    at2N.healthMs,
    `GET /health took ${at2N.healthMs.toFixed(0)} ms during a request of ${2 * n} chars`,
  ).toBeLessThan(HEALTH_MS);
  expectLinearDoubling(atN.workMs, at2N.workMs);
}

describe('private_key detector as an input guardrail', () => {
  let rig: SecurityRig;
  beforeAll(async () => {
    rig = await startRig((req) => ({ kind: 'json', body: jsonReply(req.path, 'ok') }), {
      extra:
        `guardrails:\n  - { id: keys-in, applies_to: input, check: { type: detectors, detectors: [private_key] ` +
        `}, action: redact }`,
    });
  });
  afterAll(() => rig.close());

  it(
    '200 KB and 400 KB of BEGIN markers with no key after them: linear, /health prompt',
    async () => {
      await expectLinearAndResponsive(rig, 200 * KB, async (size) => {
        const text = `${BEGIN.repeat(Math.ceil(size / BEGIN.length))}x`;
        const res = await post(rig.gw.url, 'openai', bodyFor('openai', 'oa', { text }));
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        // Every marker was redacted before the upstream saw the text.
        expect(rig.up.received.at(-1)!.rawBody).not.toContain('BEGIN PRIVATE KEY');
      });
    },
    TEST_MS,
  );
});

describe('redaction inside tool-call arguments', () => {
  let rig: SecurityRig;
  beforeAll(async () => {
    rig = await startRig((req) => ({ kind: 'json', body: jsonReply(req.path, 'ok') }), {
      extra:
        `guardrails:\n  - { id: aws-in, applies_to: input, check: { type: detectors, detectors: [aws_access_key] ` +
        `` +
        `` +
        `` +
        `}, action: redact }`,
    });
  });
  afterAll(() => rig.close());

  it(
    '160 KB and 320 KB of keys glued into one bare JSON token: linear, /health prompt',
    async () => {
      const KEY = 'AKIAIOSFODNN7EXAMPLE-';
      await expectLinearAndResponsive(rig, 160 * KB, async (size) => {
        const args = `{"x": ${KEY.repeat(Math.ceil(size / KEY.length))}1}`;
        const messages = [
          { role: 'user', content: 'go' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: args } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'done' },
        ];
        const res = await post(rig.gw.url, 'openai', JSON.stringify({ model: 'oa/m', max_tokens: 20, messages }));
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        expect(rig.up.received.at(-1)!.rawBody).not.toContain('AKIAIOSFODNN7EXAMPLE');
      });
    },
    TEST_MS,
  );
});

describe('count_tokens (local BPE)', () => {
  let rig: SecurityRig;
  beforeAll(async () => {
    rig = await startRig((req) => ({ kind: 'json', body: jsonReply(req.path, 'ok') }));
  });
  afterAll(() => rig.close());

  async function count(content: string): Promise<number> {
    const res = await fetch(`${rig.gw.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: headersFor('anthropic'),
      body: JSON.stringify({ model: 'oa/m', messages: [{ role: 'user', content }] }),
    });
    const body = (await res.json()) as { input_tokens: number };
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body.input_tokens;
  }

  it(
    'one word of 100 KB and 200 KB: linear, /health prompt',
    async () => {
      await expectLinearAndResponsive(rig, 100 * KB, async (size) => {
        // A long random word is a few characters per token.
        expect(await count(word(size))).toBeGreaterThan(size / 8);
      });
    },
    TEST_MS,
  );

  it(
    '128 KiB and 256 KiB of `A`: linear, /health prompt, counted as the whole run would be',
    async () => {
      await expectLinearAndResponsive(rig, 128 * KB, async (size) => {
        // o200k_base reads a run of `A` eight at a time.
        expect(await count('A'.repeat(size))).toBe(size / 8 + 3 + 1 + 3);
      });
    },
    TEST_MS,
  );
});

describe('max_input_tokens guardrail', () => {
  let rig: SecurityRig;
  beforeAll(async () => {
    rig = await startRig((req) => ({ kind: 'json', body: jsonReply(req.path, 'ok') }), {
      extra:
        `guardrails:\n  - { id: size-in, applies_to: input, check: { type: max_input_tokens, limit: 100 }, ` +
        `action: block }`,
    });
  });
  afterAll(() => rig.close());

  it(
    'a chat request of one 100 KB and 200 KB word: counted in linear time and refused, /health prompt',
    async () => {
      await expectLinearAndResponsive(rig, 100 * KB, async (size) => {
        const res = await post(rig.gw.url, 'openai', bodyFor('openai', 'oa', { text: word(size) }));
        const body = (await res.json()) as { error: { code?: string; message: string } };
        expect(res.status).toBe(400);
        expect(JSON.stringify(body)).toContain('size-in');
      });
    },
    TEST_MS,
  );
});

describe('output stream guard', () => {
  const DELTA = 32;
  let rig: SecurityRig;
  let tokenLength = 0;
  beforeAll(async () => {
    rig = await startRig(
      () => {
        const token = word(tokenLength);
        const deltas = ['Authorization: Bearer '];
        for (let i = 0; i < token.length; i += DELTA) deltas.push(token.slice(i, i + DELTA));
        deltas.push(' and the text after it.');
        return { kind: 'sse', events: openaiStream(deltas) };
      },
      {
        extra:
          `guardrails:\n  - { id: tokens-out, applies_to: output, check: { type: detectors, detectors: [email, ` +
          `phone, credit_card, iban, aws_access_key, private_key, bearer_token] }, action: redact }`,
      },
    );
  });
  afterAll(() => rig.close());

  it(
    'a Bearer token of 100 KB and 200 KB in 32-character deltas: linear, redacted whole, /health prompt',
    async () => {
      await expectLinearAndResponsive(rig, 100 * KB, async (size) => {
        tokenLength = size;
        const res = await post(rig.gw.url, 'openai', bodyFor('openai', 'oa', { stream: true }));
        expect(res.status).toBe(200);
        const text = (await res.text())
          .split('\n')
          .filter((l) => l.startsWith('data: {'))
          .map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '')
          .join('');
        expect(text).toBe('Authorization: Bearer [REDACTED:bearer_token] and the text after it.');
      });
    },
    TEST_MS,
  );
});

describe('guardrail regexes from the config', () => {
  it('one with catastrophic backtracking is refused at load, naming the rule path and why', () => {
    const yaml = gatewayYaml(
      securityGateway(
        'http://127.0.0.1:9',
        'guardrails:\n  - { id: nested, applies_to: input, check: { type: regex, pattern: "(a+)+$" }, action: block }',
      ),
    );
    const r = loadConfigText(yaml, 'gateway.yaml', {});
    expect(r.config).toBeUndefined();
    expect(r.issues).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        path: 'guardrails[0].check.pattern',
        message: expect.stringMatching(/^catastrophic backtracking: .*exponential/),
      }),
    );
  });
});
