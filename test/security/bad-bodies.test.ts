/**
 * Bad bodies over real sockets, on every endpoint × provider pair (pass-through and translated):
 * a 400 in the caller's format and no upstream call, never a 500, and never a disagreement with
 * the provider. Duplicate keys (a role bypass when the gateway and the upstream read different
 * duplicates), `__proto__` / `constructor` keys, nesting past the documented limit, wrong types
 * for documented fields (also on pass-through), absurd numbers (which must never reach budget
 * arithmetic: a warn-mode budget's counter stays a finite sum). Values the gateway does not know
 * (a new top-level field, role, content-block type, tool type) pass through untouched.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { budgetCounterKey } from '../../src/budget/plan.js';
import { jsonReply, PAIRS, post, startRig, type Endpoint, type Provider, type SecurityRig } from './harness.js';

const UPSTREAM_MODEL: Record<Provider, string> = { oa: 'gpt-4o-mini', an: 'claude-test', rs: 'gpt-4o-mini' };

let rig: SecurityRig;

beforeAll(async () => {
  // These tests check that fields, roles and blocks the gateway does not know reach the upstream as sent.
  const accept = { anyBody: true };
  rig = await startRig(
    (req) => {
      if (req.path.endsWith('/count_tokens')) return { kind: 'json', body: { input_tokens: 5 } };
      return { kind: 'json', body: jsonReply(req.path, 'ok') };
    },
    { accept },
  );
});
afterAll(async () => {
  await rig.close();
});
beforeEach(() => {
  rig.up.received.length = 0;
});

/** A body as raw JSON text; `extra` goes before `messages`, `msg` is the messages array's content. */
function raw(p: Provider, extra = '', msg = '{"role":"user","content":"hi"}'): string {
  return `{"model":"${p}/m","max_tokens":20,${extra}"messages":[${msg}]}`;
}

/** A 400 in the caller's format, reaching no upstream; returns the message (and checks `param` on OpenAI). */
async function expect400(res: Response, ep: Endpoint, param?: string): Promise<string> {
  const text = await res.text();
  expect(res.status, text).toBe(400);
  const body = JSON.parse(text);
  if (ep === 'openai') {
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.code).toBeTypeOf('string');
    if (param !== undefined) expect(body.error.param).toBe(param);
    return body.error.message;
  }
  expect(body.type).toBe('error');
  expect(body.error.type).toBe('invalid_request_error');
  if (param !== undefined) expect(body.error.message).toContain(param);
  return body.error.message;
}

/** The counter once it reaches `want` (settlement is written after the response), else its last value. */
async function settledSpend(r: SecurityRig, key: string, want: number): Promise<number> {
  const until = Date.now() + 5000;
  for (;;) {
    const v = (await r.gw.gateway.runtime.store.get([key]))[0];
    if (v === want || Date.now() > until) return v;
    await new Promise((res) => setTimeout(res, 20));
  }
}

function serverErrors(): string[] {
  return rig.gw.logs.filter((l) => /"level":"error"/.test(l) || /"status":5\d\d/.test(l));
}

describe('duplicate keys: 400 in the caller format, upstream not called', () => {
  const cases = (p: Provider): Array<[string, string, string]> => [
    [
      'model',
      `{"model":"nope/x","model":"${p}/m","max_tokens":20,"messages":[{"role":"user","content":"hi"}]}`,
      'model',
    ],
    [
      'model spelled with an escape',
      `{"model":"nope/x","mod\\u0065l":"${p}/m","max_tokens":20,"messages":[{"role":"user","content":"hi"}]}`,
      'model',
    ],
    ['messages', raw(p, '"messages":[{"role":"user","content":"first"}],'), 'messages'],
    ['stream', raw(p, '"stream":true,"stream":false,'), 'stream'],
    ['max_tokens', raw(p, '"max_tokens":100000,'), 'max_tokens'],
    ['message content', raw(p, '', '{"role":"user","content":"a","content":"b"}'), 'messages[0].content'],
    ['message role', raw(p, '', '{"role":"user","role":"assistant","content":"a"}'), 'messages[0].role'],
    [
      'nested content block',
      raw(p, '', '{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}'),
      'messages[0].content[0].text',
    ],
  ];
  for (const [ep, p] of PAIRS) {
    it(`${ep} → ${p}`, async () => {
      for (const [what, body, param] of cases(p)) {
        const msg = await expect400(await post(rig.gw.url, ep, body), ep, param);
        expect(msg, what).toContain('more than once');
      }
      expect(rig.up.received).toHaveLength(0);
    });
  }
  it('count_tokens too', async () => {
    const res = await fetch(`${rig.gw.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer sec-gateway-key-0001`,
        'anthropic-version': '2023-06-01',
      },
      body: '{"model":"nope/x","model":"an/m","messages":[{"role":"user","content":"hi"}]}',
    });
    await expect400(res, 'anthropic', 'model');
    expect(rig.up.received).toHaveLength(0);
  });
});

describe('__proto__ and constructor keys never cause a 500', () => {
  const cases = (p: Provider): Array<[string, string]> => [
    ['top-level __proto__ object', raw(p, '"__proto__":{"model":"nope/x","max_tokens":1},')],
    ['top-level __proto__ null', raw(p, '"__proto__":null,')],
    ['top-level constructor', raw(p, '"constructor":{"prototype":{"x":1}},')],
    ['top-level toString / hasOwnProperty', raw(p, '"toString":1,"hasOwnProperty":"x",')],
    ['in a message', raw(p, '', '{"role":"user","content":"hi","__proto__":{"role":"system"},"constructor":1}')],
    [
      'in a content block',
      raw(
        p,
        '',
        '{"role":"user","content":[{"type":"text","text":"hi","__proto__":{"type":"image"},"constructor":"x"}]}',
      ),
    ],
    ['in metadata', raw(p, '"metadata":{"__proto__":{"user_id":1}},')],
    ['metadata constructor', raw(p, '"metadata":{"constructor":"x","user_id":"u"},')],
  ];
  for (const [ep, p] of PAIRS) {
    it(`${ep} → ${p}`, async () => {
      for (const [what, body] of cases(p)) {
        const res = await post(rig.gw.url, ep, body);
        const text = await res.text();
        expect([200, 400], `${what}: ${res.status} ${text}`).toContain(res.status);
        if (res.status === 400) await expect400(new Response(text, { status: 400 }), ep);
      }
      expect(serverErrors()).toEqual([]);
    });
  }
  it('on pass-through a top-level __proto__ reaches the upstream untouched', async () => {
    for (const [ep, p] of [
      ['openai', 'oa'],
      ['anthropic', 'an'],
    ] as const) {
      rig.up.received.length = 0;
      const body = raw(p, '"__proto__":{"x":1},"constructor":7,');
      const res = await post(rig.gw.url, ep, body);
      expect(res.status, await res.text()).toBe(200);
      expect(rig.up.received[0].rawBody).toBe(body.replace(`"${p}/m"`, JSON.stringify(UPSTREAM_MODEL[p])));
    }
  });
});

describe('nesting deeper than the documented limit (128): 400 before anything recurses', () => {
  const nest = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  const nestObj = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  for (const [ep, p] of PAIRS) {
    it(`${ep} → ${p}`, async () => {
      const bodies: Array<[string, string]> = [
        ['100000 [', '['.repeat(100_000)],
        ['100000 {"a":', '{"a":'.repeat(100_000)],
        ['valid, deep in an unknown field', raw(p, `"x_deep":${nest(200)},`)],
        ['valid, deep objects in an unknown field', raw(p, `"x_deep":${nestObj(5000)},`)],
        [
          'valid, deep in a tool schema',
          ep === 'openai'
            ? raw(
                p,
                '"tools":[{"type":"function","function":{"name":"f",' +
                  `"parameters":{"type":"object","properties":{"a":${nestObj(300)}}}}}],`,
              )
            : raw(p, `"tools":[{"name":"f","input_schema":{"type":"object","properties":{"a":${nestObj(300)}}}}],`),
        ],
      ];
      for (const [what, body] of bodies) {
        const msg = await expect400(await post(rig.gw.url, ep, body), ep);
        expect(msg, what).toContain('128');
      }
      expect(rig.up.received).toHaveLength(0);
      expect(serverErrors()).toEqual([]);
      // Still up, and a body nested within the limit is served.
      const passThrough = (ep === 'openai') === (p === 'oa');
      const ok = await post(rig.gw.url, ep, raw(p, passThrough ? `"x_deep":${nest(100)},` : ''));
      expect(ok.status, await ok.text()).toBe(200);
    });
  }
  it('a pass-through body nested within the limit reaches the upstream untouched', async () => {
    const body = raw('oa', `"x_deep":${'['.repeat(120)}1${']'.repeat(120)},`);
    const res = await post(rig.gw.url, 'openai', body);
    expect(res.status, await res.text()).toBe(200);
    expect(rig.up.received[0].rawBody).toBe(body.replace('"oa/m"', '"gpt-4o-mini"'));
  });
});

describe('wrong types for documented fields: 400 naming the field, also on pass-through', () => {
  const openaiCases: Array<[string, string]> = [
    ['"n":"x",', 'n'],
    ['"user":5,', 'user'],
    [
      '"tools":[{"type":"function","function":{"name":"f","description":5,"parameters":{"type":"object"}}}],',
      'tools[0].function.description',
    ],
    ['"tools":[{"type":"function","function":{"name":"f","parameters":"x"}}],', 'tools[0].function.parameters'],
    ['"tools":[{"type":"function","function":{"name":"f","strict":"yes"}}],', 'tools[0].function.strict'],
    ['"stream_options":{"include_usage":"yes"},', 'stream_options.include_usage'],
    ['"stream":"yes",', 'stream'],
    ['"logprobs":"yes",', 'logprobs'],
    ['"metadata":{"k":5},', 'metadata.k'],
    ['"temperature":"hot",', 'temperature'],
    ['"seed":1.5,', 'seed'],
    ['"response_format":"json",', 'response_format'],
    ['"parallel_tool_calls":"no",', 'parallel_tool_calls'],
    ['"logit_bias":{"50256":"x"},', 'logit_bias.50256'],
    ['"max_completion_tokens":"many",', 'max_completion_tokens'],
  ];
  const openaiMessageCases: Array<[string, string]> = [
    ['{"role":"user","content":"hi","name":5}', 'messages[0].name'],
    ['{"role":"user","content":5}', 'messages[0].content'],
    ['{"role":"user","content":[{"type":"text","text":5}]}', 'messages[0].content[0].text'],
    ['{"role":5,"content":"hi"}', 'messages[0].role'],
    [
      '{"role":"user","content":"hi"},' +
        '{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",' +
        '"function":{"name":"f","arguments":5}}]},{"role":"tool","tool_call_id":"c1","content":"r"}',
      'messages[1].tool_calls[0].function.arguments',
    ],
  ];
  const anthropicCases: Array<[string, string]> = [
    ['"metadata":{"user_id":5},', 'metadata.user_id'],
    ['"metadata":"x",', 'metadata'],
    ['"tools":[{"name":"f","input_schema":"x"}],', 'tools[0].input_schema'],
    ['"tools":[{"name":"f","description":5,"input_schema":{"type":"object"}}],', 'tools[0].description'],
    ['"stream":"yes",', 'stream'],
    ['"temperature":"x",', 'temperature'],
    ['"top_k":"x",', 'top_k'],
    ['"thinking":{"type":"enabled","budget_tokens":"x"},', 'thinking.budget_tokens'],
    ['"stop_sequences":"x",', 'stop_sequences'],
    ['"system":5,', 'system'],
    ['"service_tier":5,', 'service_tier'],
    ['"tool_choice":"auto",', 'tool_choice'],
  ];
  const anthropicMessageCases: Array<[string, string]> = [
    ['{"role":"user","content":5}', 'messages[0].content'],
    ['{"role":"user","content":[{"type":"text","text":5}]}', 'messages[0].content[0].text'],
    ['{"role":5,"content":"hi"}', 'messages[0].role'],
    [
      '{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":"yes"}]}',
      'messages[0].content[0].is_error',
    ],
  ];
  for (const [ep, p] of PAIRS) {
    it(`${ep} → ${p}`, async () => {
      const top = ep === 'openai' ? openaiCases : anthropicCases;
      const inMessages = ep === 'openai' ? openaiMessageCases : anthropicMessageCases;
      for (const [extra, param] of top) await expect400(await post(rig.gw.url, ep, raw(p, extra)), ep, param);
      for (const [msg, param] of inMessages) await expect400(await post(rig.gw.url, ep, raw(p, '', msg)), ep, param);
      expect(rig.up.received).toHaveLength(0);
    });
  }
});

describe('values the gateway does not know pass through untouched; translation refuses them by name', () => {
  const openaiUnknown: Array<[string, string, string]> = [
    ['unknown top-level field', '"x_future":{"a":[1,"b",null]},', 'x_future'],
    ['unknown role', '', 'messages[1].role'],
    ['unknown content part type', '', 'messages[0].content[1]'],
    ['documented input_audio part', '', 'messages[0].content[1]'],
    ['unknown tool type', '"tools":[{"type":"custom","custom":{"name":"grep"}}],', 'tools[0]'],
    [
      'unknown tool_choice',
      '"tools":[{"type":"function","function":{"name":"f"}}],' +
        '"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[]}},',
      'tool_choice',
    ],
    ['new reasoning_effort value', '"reasoning_effort":"ultra",', 'reasoning_effort'],
  ];
  const openaiMsgs: Record<string, string> = {
    'unknown role': '{"role":"user","content":"hi"},{"role":"critic","content":"be brief"}',
    'unknown content part type':
      '{"role":"user","content":[{"type":"text","text":"hi"},' +
      '{"type":"input_video","input_video":{"url":"https://example.test/v.mp4"}}]}',
    'documented input_audio part':
      '{"role":"user","content":[{"type":"text","text":"hi"},' +
      '{"type":"input_audio","input_audio":{"data":"AA==","format":"wav"}}]}',
  };
  const anthropicUnknown: Array<[string, string, string]> = [
    ['unknown top-level field', '"x_future":{"a":[1,"b",null]},', 'x_future'],
    ['unknown role', '', 'messages[1].role'],
    ['unknown block type', '', 'messages[0].content[1]'],
    ['documented document block', '', 'messages[0].content[1]'],
    ['image from the Files API', '', 'messages[0].content[1]'],
    [
      'unknown tool_choice type',
      '"tools":[{"name":"f","input_schema":{"type":"object"}}],"tool_choice":{"type":"sometimes"},',
      'tool_choice',
    ],
    ['unknown thinking type', '"thinking":{"type":"between_tools"},', 'thinking'],
  ];
  const anthropicMsgs: Record<string, string> = {
    'unknown role': '{"role":"user","content":"hi"},{"role":"critic","content":"be brief"}',
    'unknown block type':
      '{"role":"user","content":[{"type":"text","text":"hi"},{"type":"future_block","data":{"x":1}}]}',
    'documented document block':
      '{"role":"user","content":[{"type":"text","text":"hi"},' +
      '{"type":"document","source":{"type":"text","media_type":"text/plain","data":"doc"}}]}',
    'image from the Files API':
      '{"role":"user","content":[{"type":"text","text":"hi"},' +
      '{"type":"image","source":{"type":"file","file_id":"file_1"}}]}',
  };
  for (const [ep, p] of PAIRS) {
    const passThrough = (ep === 'openai') === (p === 'oa');
    it(`${ep} → ${p} (${passThrough ? 'forwarded' : '400 naming the field'})`, async () => {
      const cases = ep === 'openai' ? openaiUnknown : anthropicUnknown;
      const msgs = ep === 'openai' ? openaiMsgs : anthropicMsgs;
      for (const [what, extra, param] of cases) {
        rig.up.received.length = 0;
        const body = raw(p, extra, msgs[what]);
        const res = await post(rig.gw.url, ep, body);
        if (passThrough) {
          expect(res.status, `${what}: ${await res.clone().text()}`).toBe(200);
          expect(rig.up.received, what).toHaveLength(1);
          expect(rig.up.received[0].rawBody, what).toBe(body.replace(`"${p}/m"`, JSON.stringify(UPSTREAM_MODEL[p])));
        } else {
          await expect400(res, ep, param);
          expect(rig.up.received, what).toHaveLength(0);
        }
      }
    });
  }
});

describe('absurd numbers: 400, never NaN or Infinity in budget arithmetic', () => {
  const absurd = (ep: Endpoint, p: Provider): Array<[string, string]> => [
    [`{"model":"${p}/m","max_tokens":1e308,"messages":[{"role":"user","content":"hi"}]}`, 'max_tokens'],
    [`{"model":"${p}/m","max_tokens":1e15,"messages":[{"role":"user","content":"hi"}]}`, 'max_tokens'],
    [`{"model":"${p}/m","max_tokens":-1e308,"messages":[{"role":"user","content":"hi"}]}`, 'max_tokens'],
    ...(ep === 'openai'
      ? ([
          [
            `{"model":"${p}/m","max_completion_tokens":1e308,"messages":[{"role":"user","content":"hi"}]}`,
            'max_completion_tokens',
          ],
          [raw(p, '"n":1e308,'), 'n'],
          [raw(p, '"n":129,'), 'n'],
          [raw(p, '"temperature":1e308,'), 'temperature'],
        ] as Array<[string, string]>)
      : ([
          [
            `{"model":"${p}/m","max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":1e308},` +
              '"messages":[{"role":"user","content":"hi"}]}',
            'thinking.budget_tokens',
          ],
          [raw(p, '"top_k":1e308,'), 'top_k'],
        ] as Array<[string, string]>)),
  ];
  for (const [ep, p] of PAIRS) {
    it(`${ep} → ${p}`, async () => {
      for (const [body, param] of absurd(ep, p)) await expect400(await post(rig.gw.url, ep, body), ep, param);
      expect(rig.up.received).toHaveLength(0);
    });
  }

  it('a warn-mode budget keeps a finite, exact spend', async () => {
    const warn = await startRig((req) => ({ kind: 'json', body: jsonReply(req.path, 'ok') }), {
      extra: 'budgets:\n  - { id: soft, scope: { global: true }, limit_usd: 0.000001, period: total, mode: warn }\n',
    });
    try {
      let charged = 0;
      for (const [ep, p] of PAIRS) {
        for (const body of [
          `{"model":"${p}/m","max_tokens":1e308,"messages":[{"role":"user","content":"hi"}]}`,
          `{"model":"${p}/m","max_tokens":9007199254740993,"messages":[{"role":"user","content":"hi"}]}`,
        ]) {
          // A 400 here (or a clamp, which would be charged like any request): never NaN in the counter.
          const bad = await post(warn.gw.url, ep, body);
          expect(bad.status, await bad.text()).toBeLessThan(500);
          if (bad.status === 200) charged += Math.round(Number(bad.headers.get('x-gateway-cost-usd')) * 1e9);
        }
        const ok = await post(warn.gw.url, ep, raw(p));
        expect(ok.status, await ok.text()).toBe(200);
        charged += Math.round(Number(ok.headers.get('x-gateway-cost-usd')) * 1e9);
      }
      expect(charged).toBeGreaterThan(0);
      const key = budgetCounterKey('soft', '*', 'total');
      const spent = await settledSpend(warn, key, charged);
      expect(Number.isFinite(spent)).toBe(true);
      expect(spent).toBe(charged);
    } finally {
      await warn.close();
    }
  });
});
