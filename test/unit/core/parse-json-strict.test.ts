import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/core/errors.js';
import { MAX_JSON_DEPTH, parseJsonStrictMembers, scanJson } from '../../../src/core/parse-json-strict.js';

const parse = (text: string | Buffer) =>
  parseJsonStrictMembers(typeof text === 'string' ? Buffer.from(text) : text).value;

function failure(text: string | Buffer): GatewayError {
  try {
    parse(text);
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error(`accepted: ${String(text).slice(0, 80)}`);
}

describe('parseJsonStrict: valid JSON', () => {
  const corpus = [
    '{}',
    '[]',
    '0',
    '"x"',
    'null',
    ' \n\t{ "a" : [ 1 , -2.5e+3 , true , false , null , "s" ] , "b" : { } }\r\n',
    '{"s":"quote \\" backslash \\\\ and \\\\\\" both","t":"\\\\"}',
    '{"k\\"ey":1,"k\\\\ey":2}',
    `{"long":"${'ab\\"cd\\\\'.repeat(500)}","after":1}`,
    '{"é":1,"e\\u0301":2,"emoji 😀":"ü"}',
    '{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}',
    '{"__proto__":{"x":1},"constructor":1,"toString":2,"hasOwnProperty":3}',
    JSON.stringify({ many: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i])) }),
    JSON.stringify({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(10_000) }] }] }),
  ];
  it.each(corpus)('parses %# as JSON.parse does', (text) => {
    expect(parse(text)).toEqual(JSON.parse(text));
  });

  it('keeps __proto__ an own data property (no prototype change)', () => {
    const v = parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.hasOwn(v, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('accepts nesting up to the limit', () => {
    const text = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    expect(() => parse(text)).not.toThrow();
    expect(() => parse(`{"a":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`)).not.toThrow();
  });
});

describe('parseJsonStrict: refusals', () => {
  it.each([
    '',
    '   ',
    '{',
    '{"a":1',
    '{"a" 1}',
    '{"a":1,}',
    '{a:1}',
    '[1,]',
    '[1 2]',
    '{"a":"unterminated}',
    '{"a":"x\\"}',
    '{"a":tru}',
    '{"a":1}}',
    '{"a":1} x',
    '{"a":[}',
  ])('%j is invalid_json', (text) => {
    const e = failure(text);
    expect(e.code).toBe('invalid_json');
    expect(e.status).toBe(400);
  });

  it('refuses nesting past the limit before parsing, whatever the rest', () => {
    for (const text of [
      '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1),
      '['.repeat(100_000),
      `{"a":${'{"b":'.repeat(200)}`,
    ]) {
      const e = failure(text);
      expect(e.code).toBe('invalid_request');
      expect(e.status).toBe(400);
      expect(e.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    }
  });

  it('refuses a duplicate key at the top level, naming it', () => {
    const e = failure('{"model":"premium","model":"team/fast","messages":[]}');
    expect(e.code).toBe('invalid_request');
    expect(e.param).toBe('model');
  });

  it('compares keys decoded: escapes and non-ASCII spellings of one key are duplicates', () => {
    expect(failure('{"model":"a","\\u006dodel":"b"}').param).toBe('model');
    expect(failure('{"\\u006dodel":"a","model":"b"}').param).toBe('model');
    expect(failure('{"é":1,"\\u00e9":2}').param).toBe('é');
    // Two different invalid UTF-8 sequences both decode to U+FFFD.
    const bad = Buffer.concat([
      Buffer.from('{"a'),
      Buffer.from([0xff]),
      Buffer.from('":1,"a'),
      Buffer.from([0xfe]),
      Buffer.from('":2}'),
    ]);
    expect(failure(bad).code).toBe('invalid_request');
    // Same text, different bytes only through escapes: still different keys.
    expect(() => parse('{"a\\\\":1,"a\\"":2}')).not.toThrow();
  });

  it('names the path of a nested duplicate', () => {
    const body = {
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'a' },
            { type: 'tool_use', id: 't', name: 'f', input: { deep: [{}, { x: 1 }] } },
          ],
        },
      ],
    };
    const text = JSON.stringify(body).replace('{"x":1}', '{"x":1,"x":2}');
    expect(failure(text).param).toBe('messages[1].content[1].input.deep[1].x');
    expect(failure(JSON.stringify(body).replace('"role":"user"', '"role":"user","role":"system"')).param).toBe(
      'messages[0].role',
    );
  });

  it('finds duplicates in any object: large ones, siblings, after nested objects', () => {
    const keys = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`);
    expect(failure(`{"tools":[{"input_schema":{${keys.join(',')},"k3":0}}]}`).param).toBe('tools[0].input_schema.k3');
    // The same key in sibling or nested objects is fine; a key repeated after a child closes is not.
    expect(() => parse('{"a":{"a":{"a":1}},"b":{"a":2},"c":[{"a":1},{"a":2}]}')).not.toThrow();
    expect(failure('{"a":{"b":{"c":1}},"z":1,"a":2}').param).toBe('a');
    expect(failure('{"o":{"x":{"y":1,"z":2},"y":1,"x":3}}').param).toBe('o.x');
    expect(failure('{"__proto__":1,"__proto__":2}').param).toBe('__proto__');
  });
});

describe('parseJsonStrict: cost', () => {
  /** Best of several runs, in ms per call. */
  function time(fn: () => void, runs = 15, perRun = 5): number {
    let best = Infinity;
    for (let r = 0; r < runs; r++) {
      const t = performance.now();
      for (let k = 0; k < perRun; k++) fn();
      best = Math.min(best, (performance.now() - t) / perRun);
    }
    return best;
  }

  /** A chat-shaped body of about `kb` KB: texts with quotes and escapes, tool calls, schemas. */
  function chatBody(kb: number): Buffer {
    const para = 'The quick brown fox; "quoted" text, a \\ backslash and a\nnewline. ';
    const tools = Array.from({ length: 10 }, (_, k) => ({
      name: `T${k}`,
      description: para,
      input_schema: {
        type: 'object',
        properties: { a: { type: 'string', description: para }, b: { type: 'array', items: { type: 'number' } } },
      },
    }));
    const messages: unknown[] = [];
    for (let i = 0; JSON.stringify(messages).length < kb * 1024; i++) {
      messages.push({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: `t${i}`, content: para.repeat(8) },
          { type: 'text', text: para },
        ],
      });
      messages.push({
        role: 'assistant',
        content: [
          { type: 'text', text: para.repeat(2) },
          { type: 'tool_use', id: `t${i + 1}`, name: 'T1', input: { a: 'x', b: [1, 2] } },
        ],
      });
    }
    return Buffer.from(JSON.stringify({ model: 'm', max_tokens: 100, tools, messages }));
  }

  it('stays cheap next to JSON.parse on a 100 KB body', () => {
    const body = chatBody(100);
    const scan = time(() => scanJson(body));
    const parse = time(() => JSON.parse(body.toString('utf8')));
    // Measured about 0.4-0.7× JSON.parse on the 2-core machine; generous for a loaded one.
    expect(scan).toBeLessThan(2 * parse + 0.5);
  });

  it('is linear: doubling the body does not quadruple the time', () => {
    const cases: Array<(n: number) => Buffer> = [
      (n) => chatBody(n),
      // One object with many keys (the Set path), and many keys repeated in sibling objects.
      (n) => Buffer.from(`{"metadata":{${Array.from({ length: n * 40 }, (_, i) => `"key_${i}":${i}`).join(',')}}}`),
      // A long run of backslashes and escaped quotes inside one string.
      (n) => Buffer.from(`{"a":"${'\\\\\\"'.repeat(n * 2000)}"}`),
      // Deep but allowed nesting, repeated.
      (n) => Buffer.from(`[${Array.from({ length: n * 4 }, () => '['.repeat(100) + ']'.repeat(100)).join(',')}]`),
    ];
    for (const make of cases) {
      const small = make(100);
      const large = make(200);
      const t1 = time(() => scanJson(small), 9, 3);
      const t2 = time(() => scanJson(large), 9, 3);
      expect(t2).toBeLessThan(3.2 * t1 + 2);
    }
  });
});
