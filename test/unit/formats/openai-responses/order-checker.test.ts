import { describe, expect, it } from 'vitest';
import { answerEvents } from '../../../helpers/fake-upstream.js';
import { type ResponsesSseMessage, responsesOrderViolations, sseMessages } from '../../../helpers/responses-order.js';

type Ev = Record<string, any>;

/** Messages with the event line and sequence numbers right, from bare event bodies. */
const sse = (events: Ev[]): ResponsesSseMessage[] =>
  events.map((e, i) => ({ event: e.type, data: JSON.stringify({ ...e, sequence_number: i }) }));

const response = (status: string, output: unknown[] = [], extra: Ev = {}) => ({
  id: 'resp_1',
  object: 'response',
  status,
  output,
  ...extra,
});
const opening: Ev[] = [
  { type: 'response.created', response: response('in_progress') },
  { type: 'response.in_progress', response: response('in_progress') },
];

const msgDone = { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed' };
function message(index: number, pieces: string[], id = 'msg_1'): { events: Ev[]; item: Ev } {
  const text = pieces.join('');
  const at = { item_id: id, output_index: index, content_index: 0 };
  const part = (t: string) => ({ type: 'output_text', annotations: [], text: t });
  const item = { ...msgDone, id, content: [part(text)] };
  return {
    item,
    events: [
      {
        type: 'response.output_item.added',
        output_index: index,
        item: { ...item, status: 'in_progress', content: [] },
      },
      { type: 'response.content_part.added', ...at, part: part('') },
      ...pieces.map((delta) => ({ type: 'response.output_text.delta', ...at, delta, logprobs: [] })),
      { type: 'response.output_text.done', ...at, text, logprobs: [] },
      { type: 'response.content_part.done', ...at, part: part(text) },
      { type: 'response.output_item.done', output_index: index, item },
    ],
  };
}

function reasoning(index: number, pieces: string[]): { events: Ev[]; item: Ev } {
  const text = pieces.join('');
  const at = { item_id: 'rs_1', output_index: index, summary_index: 0 };
  const item = { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text }], encrypted_content: 'e' };
  return {
    item,
    events: [
      { type: 'response.output_item.added', output_index: index, item: { id: 'rs_1', type: 'reasoning', summary: [] } },
      { type: 'response.reasoning_summary_part.added', ...at, part: { type: 'summary_text', text: '' } },
      ...pieces.map((delta) => ({ type: 'response.reasoning_summary_text.delta', ...at, delta })),
      { type: 'response.reasoning_summary_text.done', ...at, text },
      { type: 'response.reasoning_summary_part.done', ...at, part: { type: 'summary_text', text } },
      { type: 'response.output_item.done', output_index: index, item },
    ],
  };
}

function call(index: number, pieces: string[], kind: 'function_call' | 'custom_tool_call' = 'function_call') {
  const id = `${kind === 'function_call' ? 'fc' : 'ctc'}_${index}`;
  const field = kind === 'function_call' ? 'arguments' : 'input';
  const event = kind === 'function_call' ? 'response.function_call_arguments' : 'response.custom_tool_call_input';
  const whole = pieces.join('');
  const item = { id, type: kind, call_id: `call_${index}`, name: 'f', [field]: whole };
  const at = { item_id: id, output_index: index };
  return {
    item,
    events: [
      { type: 'response.output_item.added', output_index: index, item: { ...item, [field]: '' } },
      ...pieces.map((delta) => ({ type: `${event}.delta`, ...at, delta })),
      { type: `${event}.done`, ...at, [field]: whole },
      { type: 'response.output_item.done', output_index: index, item },
    ],
  };
}

const completed = (items: Ev[]): Ev => ({ type: 'response.completed', response: response('completed', items) });
const full = (...parts: Array<{ events: Ev[]; item: Ev }>) => [
  ...opening,
  ...parts.flatMap((p) => p.events),
  completed(parts.map((p) => p.item)),
];

describe('responsesOrderViolations', () => {
  it('accepts valid streams: text, reasoning + text + calls, incomplete, failed, error', () => {
    expect(responsesOrderViolations(sse(full(message(0, ['Hel', 'lo']))))).toEqual([]);
    const valid = full(reasoning(0, ['thin', 'king']), message(1, ['a']), call(2, ['{"a"', ':1}']), {
      ...call(3, ['*** Begin'], 'custom_tool_call'),
    });
    expect(responsesOrderViolations(sse(valid))).toEqual([]);
    const cut = message(0, ['a', 'b']);
    const incomplete = { ...cut.item, status: 'incomplete' };
    cut.events[cut.events.length - 1] = { type: 'response.output_item.done', output_index: 0, item: incomplete };
    const response_ = response('incomplete', [incomplete], { incomplete_details: { reason: 'max_output_tokens' } });
    expect(
      responsesOrderViolations(sse([...opening, ...cut.events, { type: 'response.incomplete', response: response_ }])),
    ).toEqual([]);
    const failed = response('failed', [], { error: { code: 'server_error', message: 'boom' } });
    expect(responsesOrderViolations(sse([...opening, { type: 'response.failed', response: failed }]))).toEqual([]);
    const nested = { type: 'error', error: { type: 'server_error', code: 'server_error', message: 'x', param: null } };
    expect(responsesOrderViolations(sse([...opening, ...message(0, ['a']).events.slice(0, 3), nested]))).toEqual([]);
    expect(responsesOrderViolations(sse([{ type: 'error', code: null, message: 'x', param: null }]))).toEqual([]);
    // Already-parsed data is accepted too.
    const parsed = full(message(0, ['x'])).map((e, i) => ({ event: e.type, data: { ...e, sequence_number: i } }));
    expect(responsesOrderViolations(parsed)).toEqual([]);
  });

  it("accepts the fake upstream's streams, read back from their SSE text", () => {
    const answers = [
      { text: 'one two three' },
      { thinking: 'hmm', text: 'so', toolCalls: [{ name: 'f', args: { a: 1 } }, { name: 'g' }] },
      { text: 'cut short', finish: 'length' as const },
      { toolCalls: [{ name: 'f', pieces: ['{"a', '":', '1}'] }] },
    ];
    for (const a of answers) {
      const text = answerEvents('responses', a).join('');
      expect(sseMessages(text).length).toBeGreaterThan(4);
      expect(responsesOrderViolations(sseMessages(text))).toEqual([]);
    }
  });

  /** Each broken stream, with a piece of the violation it must report. */
  const text = message(0, ['a', 'b']);
  const broken: Array<[string, ResponsesSseMessage[], string]> = [
    ['empty', [], 'stream is empty'],
    [
      'event line differs',
      sse(full(text)).map((m, i) => (i === 2 ? { ...m, event: 'response.output_item.done' } : m)),
      'differs from data.type',
    ],
    [
      'sequence gap',
      full(text).map((e, i) => ({ event: e.type, data: JSON.stringify({ ...e, sequence_number: i < 3 ? i : i + 1 }) })),
      'sequence_number 4, expected 3',
    ],
    [
      'sequence missing',
      full(text).map((e) => ({ event: e.type, data: JSON.stringify(e) })),
      'sequence_number missing',
    ],
    ['no in_progress', sse([opening[0]!, ...text.events, completed([text.item])]), 'expected response.in_progress'],
    [
      'no created',
      sse([opening[1]!, opening[1]!, ...text.events, completed([text.item])]),
      'expected response.created',
    ],
    ['output_index skips', sse(full(message(1, ['a']))), 'output_index 1, expected 0'],
    [
      'two items open at once',
      sse([...opening, ...text.events.slice(0, 3), ...call(1, ['{}']).events, completed([])]),
      'item 0 is still open',
    ],
    [
      'item_id mismatch',
      sse(full(text).map((e) => (e.type === 'response.output_text.delta' ? { ...e, item_id: 'msg_x' } : e))),
      'item_id msg_x, open item is msg_1',
    ],
    [
      'done text differs from deltas',
      sse(full(text).map((e) => (e.type === 'response.output_text.done' ? { ...e, text: 'ab!' } : e))),
      'text differs from the deltas joined',
    ],
    [
      'arguments differ from deltas',
      sse(full(call(0, ['{"a"', ':1}'])).map((e) => (e.arguments !== undefined ? { ...e, arguments: '{}' } : e))),
      'arguments differs from the deltas joined',
    ],
    [
      'summary text differs',
      sse(
        full(reasoning(0, ['x'])).map((e) =>
          e.type === 'response.reasoning_summary_text.done' ? { ...e, text: 'y' } : e,
        ),
      ),
      'text differs from the deltas joined',
    ],
    [
      'content_index wrong',
      sse(full(text).map((e) => (e.type === 'response.output_text.delta' ? { ...e, content_index: 1 } : e))),
      'part index 1, open part is 0',
    ],
    [
      'delta of the wrong kind',
      sse(
        full(text).map((e) => (e.type === 'response.output_text.delta' ? { ...e, type: 'response.refusal.delta' } : e)),
      ),
      'does not fit the open output_text part',
    ],
    [
      'function arguments in a message',
      sse([
        ...opening,
        ...text.events.slice(0, 1),
        { type: 'response.function_call_arguments.delta', item_id: 'msg_1', output_index: 0, delta: 'x' },
        ...text.events.slice(1),
        completed([text.item]),
      ]),
      'does not fit a message item',
    ],
    [
      'part left open at item done',
      sse([...opening, ...text.events.filter((e) => e.type !== 'response.content_part.done'), completed([text.item])]),
      'part 0 is still open',
    ],
    [
      'item done with other text',
      sse(
        full(text).map((e) =>
          e.type === 'response.output_item.done' ? { ...e, item: { ...e.item, content: [] } } : e,
        ),
      ),
      'item.content differs from the streamed parts',
    ],
    [
      'item done with another id',
      sse(
        full(text).map((e) =>
          e.type === 'response.output_item.done' ? { ...e, item: { ...e.item, id: 'msg_2' } } : e,
        ),
      ),
      'item.id msg_2, added as msg_1',
    ],
    [
      'added item not empty',
      sse(full(text).map((e) => (e.type === 'response.output_item.added' ? { ...e, item: text.item } : e))),
      'item.content should start empty',
    ],
    ['no terminal', sse([...opening, ...text.events]), 'stream ended without a terminal event'],
    ['event after terminal', sse([...full(text), text.events[0]!]), 'a terminal event must be the last one'],
    ['two terminals', sse([...full(text), completed([text.item])]), 'a terminal event must be the last one'],
    ['output differs', sse([...opening, ...text.events, completed([])]), 'response.output differs'],
    [
      'status mismatch',
      sse([...opening, ...text.events, { type: 'response.completed', response: response('incomplete', [text.item]) }]),
      "response.status 'incomplete', expected 'completed'",
    ],
    [
      'incomplete without reason',
      sse([...opening, ...text.events, { type: 'response.incomplete', response: response('incomplete', [text.item]) }]),
      'incomplete_details.reason missing',
    ],
    [
      'failed without error',
      sse([...opening, { type: 'response.failed', response: response('failed') }]),
      'response.error missing',
    ],
    [
      'terminal id differs',
      sse([
        ...opening,
        ...text.events,
        { type: 'response.completed', response: { ...completed([text.item]).response, id: 'resp_2' } },
      ]),
      'response.id resp_2 differs',
    ],
    [
      'error without message',
      sse([...opening, { type: 'error', error: { type: 'server_error' } }]),
      'without a message',
    ],
    [
      'completed while an item is open',
      sse([...opening, ...text.events.slice(0, 3), completed([])]),
      'item 0 is still open',
    ],
    ['duplicate item ids', sse(full(message(0, ['a']), message(1, ['b']))), 'item id msg_1 used twice'],
  ];
  it.each(broken)('reports: %s', (_name, stream, expected) => {
    const violations = responsesOrderViolations(stream);
    expect(
      violations.some((v) => v.includes(expected)),
      violations.join('\n'),
    ).toBe(true);
  });
});
