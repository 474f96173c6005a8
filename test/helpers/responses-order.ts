/**
 * Checks that SSE messages follow the OpenAI Responses API's documented stream order — what the
 * official SDK's accumulator relies on (it appends on output_item.added and addresses every later
 * event by output_index and content_index). Returns the violations; an empty list means valid.
 *
 *   every event: an `event:` line equal to data.type, and sequence_number 0, 1, 2… without gaps
 *   response.created, then response.in_progress (the same response id, status in_progress)
 *   output items one at a time, output_index 0..n-1: output_item.added → that item's events (same
 *     item_id and output_index; parts and summary parts one at a time with indices 0..k-1; each
 *     `.done` text equal to its deltas joined) → output_item.done (the same id, the text the events built)
 *   exactly one terminal event, last: response.completed | response.incomplete | response.failed, whose
 *     response has the matching status, the created id, and `output` equal to the items output_item.done
 *     announced, in order; or an `error` event, which may end the stream at any point.
 *
 * Shares no code with src/: it is the referee of the gateway's Responses streams.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */

import { isDeepStrictEqual } from 'node:util';

/** One SSE message: its `event:` name and its data (JSON text, or already parsed). */
export interface ResponsesSseMessage {
  event?: string | null;
  data: unknown;
}

type Json = Record<string, any>;

const TERMINAL_STATUS: Record<string, string> = {
  'response.completed': 'completed',
  'response.incomplete': 'incomplete',
  'response.failed': 'failed',
};

/** Per item type: the events it may carry, and the delta/done pair of each text it streams. */
interface TextStream {
  delta: string;
  done: string;
  /** The field of the `.done` event holding the whole text. */
  field: string;
}
const MESSAGE_TEXT: Record<string, TextStream> = {
  output_text: { delta: 'response.output_text.delta', done: 'response.output_text.done', field: 'text' },
  refusal: { delta: 'response.refusal.delta', done: 'response.refusal.done', field: 'refusal' },
};
const REASONING_TEXT: TextStream = {
  delta: 'response.reasoning_text.delta',
  done: 'response.reasoning_text.done',
  field: 'text',
};
const SUMMARY_TEXT: TextStream = {
  delta: 'response.reasoning_summary_text.delta',
  done: 'response.reasoning_summary_text.done',
  field: 'text',
};
const CALL_INPUT: Record<string, TextStream & { itemField: string }> = {
  function_call: {
    delta: 'response.function_call_arguments.delta',
    done: 'response.function_call_arguments.done',
    field: 'arguments',
    itemField: 'arguments',
  },
  custom_tool_call: {
    delta: 'response.custom_tool_call_input.delta',
    done: 'response.custom_tool_call_input.done',
    field: 'input',
    itemField: 'input',
  },
};

/** A content part or summary part being streamed. */
interface Part {
  index: number;
  stream: TextStream;
  /** The part's type (output_text, refusal, reasoning_text, summary_text). */
  type: string;
  text: string;
  /** The `.done` text, once sent. */
  doneText?: string;
}

interface OpenItem {
  index: number;
  id: string;
  type: string;
  part?: Part;
  /** Texts of the parts closed so far, by kind: content parts, summary parts. */
  parts: Array<{ type: string; text: string }>;
  summaries: string[];
  /** Function / custom tool call input so far, and its `.done` value once sent. */
  input: string;
  inputDone?: string;
}

export function responsesOrderViolations(messages: ResponsesSseMessage[]): string[] {
  const out: string[] = [];
  if (messages.length === 0) return ['stream is empty'];
  const events: Json[] = [];
  messages.forEach((m, i) => {
    let data: unknown = m.data;
    if (typeof data === 'string') {
      try {
        data = JSON.parse(data);
      } catch {
        out.push(`event ${i}: data is not JSON`);
        data = {};
      }
    }
    const d = (typeof data === 'object' && data !== null ? data : {}) as Json;
    if (m.event !== d.type) out.push(`event ${i}: event line '${m.event ?? ''}' differs from data.type '${d.type}'`);
    if (!Number.isInteger(d.sequence_number))
      out.push(`event ${i} (${d.type}): sequence_number missing or not an integer`);
    else if (d.sequence_number !== i)
      out.push(`event ${i} (${d.type}): sequence_number ${d.sequence_number}, expected ${i}`);
    events.push(d);
  });
  return [...out, ...orderViolations(events)];
}

function orderViolations(events: Json[]): string[] {
  const out: string[] = [];
  const at = (i: number) => `event ${i} (${events[i]!.type})`;
  let responseId: string | undefined;
  let open: OpenItem | undefined;
  const doneItems: unknown[] = [];
  const seenIds = new Set<string>();

  for (let i = 0; i < events.length; i++) {
    const d = events[i]!;
    const type = String(d.type);
    if (type === 'error' || type in TERMINAL_STATUS) {
      if (i !== events.length - 1) out.push(`${at(i)}: a terminal event must be the last one`);
      if (type === 'error') out.push(...errorViolations(d, at(i)));
      else {
        if (i < 2) out.push(`${at(i)}: terminal event before response.created and response.in_progress`);
        if (open && type !== 'response.failed') out.push(`${at(i)}: item ${open.index} is still open`);
        out.push(...terminalViolations(d, at(i), responseId, type === 'response.failed' ? undefined : doneItems));
      }
      return out;
    }
    const opener = ['response.created', 'response.in_progress'][i];
    if (opener && type !== opener) out.push(`${at(i)}: expected ${opener}`);
    if (type === 'response.created' || type === 'response.in_progress') {
      if (type !== opener) {
        out.push(`${at(i)}: ${type} may only open the stream, as event ${type === 'response.created' ? 0 : 1}`);
        continue;
      }
      if (d.response?.status !== 'in_progress') out.push(`${at(i)}: response.status should be in_progress`);
      if (i === 0) responseId = d.response?.id;
      else if (d.response?.id !== responseId) out.push(`${at(i)}: response.id differs from response.created's`);
      if (typeof d.response?.id !== 'string') out.push(`${at(i)}: response.id missing`);
      continue;
    }
    if (type === 'response.output_item.added') {
      if (open) out.push(`${at(i)}: item ${open.index} is still open`);
      if (d.output_index !== doneItems.length)
        out.push(`${at(i)}: output_index ${d.output_index}, expected ${doneItems.length}`);
      const id = d.item?.id;
      if (typeof id !== 'string' || id === '') out.push(`${at(i)}: item.id missing`);
      else if (seenIds.has(id)) out.push(`${at(i)}: item id ${id} used twice`);
      else seenIds.add(id);
      open = { index: doneItems.length, id, type: String(d.item?.type), parts: [], summaries: [], input: '' };
      out.push(...itemAddedViolations(d.item ?? {}, at(i)));
      continue;
    }
    if (!open) {
      out.push(`${at(i)}: outside an output item`);
      continue;
    }
    if (d.output_index !== open.index) out.push(`${at(i)}: output_index ${d.output_index}, open item is ${open.index}`);
    if (type === 'response.output_item.done') {
      out.push(...itemDoneViolations(d, open, at(i)));
      doneItems.push(d.item);
      open = undefined;
      continue;
    }
    if (d.item_id !== open.id) out.push(`${at(i)}: item_id ${d.item_id}, open item is ${open.id}`);
    out.push(...itemEventViolations(d, open, at(i)));
  }
  out.push('stream ended without a terminal event (response.completed, response.incomplete, response.failed, error)');
  return out;
}

function errorViolations(d: Json, where: string): string[] {
  // Documented: code/message/param at the top; the API also sends them nested under `error`.
  const message = d.error !== undefined ? d.error?.message : d.message;
  return typeof message === 'string' ? [] : [`${where}: error event without a message`];
}

function terminalViolations(d: Json, where: string, id: string | undefined, doneItems?: unknown[]): string[] {
  const out: string[] = [];
  const r = d.response;
  if (typeof r !== 'object' || r === null) return [`${where}: response missing`];
  const status = TERMINAL_STATUS[d.type]!;
  if (r.status !== status) out.push(`${where}: response.status '${r.status}', expected '${status}'`);
  if (r.id !== id) out.push(`${where}: response.id ${r.id} differs from response.created's ${id}`);
  if (status === 'incomplete' && typeof r.incomplete_details?.reason !== 'string')
    out.push(`${where}: incomplete_details.reason missing`);
  if (status === 'failed' && typeof r.error?.message !== 'string') out.push(`${where}: response.error missing`);
  if (doneItems && !isDeepStrictEqual(r.output, doneItems))
    out.push(`${where}: response.output differs from the items output_item.done announced`);
  return out;
}

/** An event inside the open item. */
function itemEventViolations(d: Json, item: OpenItem, where: string): string[] {
  const type = String(d.type);
  if (type === 'response.content_part.added' || type === 'response.reasoning_summary_part.added') {
    const summary = type === 'response.reasoning_summary_part.added';
    const partType = String(d.part?.type);
    const stream = partStream(item.type, partType, summary);
    if (!stream) return [`${where}: a ${partType} part does not fit a ${item.type} item`];
    const out: string[] = [];
    if (item.part) out.push(`${where}: part ${item.part.index} is still open`);
    const index = summary ? d.summary_index : d.content_index;
    const next = summary ? item.summaries.length : item.parts.length;
    if (index !== next) out.push(`${where}: part index ${index}, expected ${next}`);
    if (d.part?.[stream.field] !== '') out.push(`${where}: a part starts with an empty ${stream.field}`);
    item.part = { index: next, stream, type: partType, text: '' };
    return out;
  }
  if (type === 'response.content_part.done' || type === 'response.reasoning_summary_part.done') {
    const summary = type === 'response.reasoning_summary_part.done';
    const part = item.part;
    if (!part || (part.stream === SUMMARY_TEXT) !== summary) return [`${where}: no such part open`];
    const out = partIndexViolations(d, part, where);
    if (part.doneText === undefined) out.push(`${where}: part closed before its ${part.stream.done}`);
    if (d.part?.type !== part.type || d.part?.[part.stream.field] !== part.doneText)
      out.push(`${where}: the closed part differs from its streamed text`);
    if (summary) item.summaries.push(part.doneText ?? '');
    else item.parts.push({ type: part.type, text: part.doneText ?? '' });
    item.part = undefined;
    return out;
  }
  const call = CALL_INPUT[item.type];
  if (call && (type === call.delta || type === call.done)) {
    if (item.inputDone !== undefined) return [`${where}: after ${call.done}`];
    if (type === call.delta) {
      item.input += typeof d.delta === 'string' ? d.delta : '';
      return typeof d.delta === 'string' ? [] : [`${where}: delta is not a string`];
    }
    item.inputDone = d[call.field];
    return d[call.field] === item.input ? [] : [`${where}: ${call.field} differs from the deltas joined`];
  }
  const part = item.part;
  if (part && (type === part.stream.delta || type === part.stream.done)) {
    const out = partIndexViolations(d, part, where);
    if (part.doneText !== undefined) return [...out, `${where}: after ${part.stream.done}`];
    if (type === part.stream.delta) {
      if (typeof d.delta !== 'string') out.push(`${where}: delta is not a string`);
      else part.text += d.delta;
      return out;
    }
    part.doneText = d[part.stream.field];
    if (d[part.stream.field] !== part.text) out.push(`${where}: ${part.stream.field} differs from the deltas joined`);
    return out;
  }
  if (type === 'response.output_text.annotation.added' && part?.type === 'output_text') return [];
  // Hosted tools' items carry events named after their type (response.web_search_call.searching…).
  if (!['message', 'reasoning', ...Object.keys(CALL_INPUT)].includes(item.type)) {
    if (type.startsWith(`response.${item.type}.`) || type.startsWith(`response.${item.type}_`)) return [];
  }
  return [`${where}: does not fit ${part ? `the open ${part.type} part of ` : ''}a ${item.type} item`];
}

/** How a part of this type streams inside an item of that type; undefined when it does not fit. */
function partStream(itemType: string, partType: string, summary: boolean): TextStream | undefined {
  if (summary) return itemType === 'reasoning' && partType === 'summary_text' ? SUMMARY_TEXT : undefined;
  if (itemType === 'message') return MESSAGE_TEXT[partType];
  return itemType === 'reasoning' && partType === 'reasoning_text' ? REASONING_TEXT : undefined;
}

function partIndexViolations(d: Json, part: Part, where: string): string[] {
  const index = part.stream === SUMMARY_TEXT ? d.summary_index : d.content_index;
  return index === part.index ? [] : [`${where}: part index ${index}, open part is ${part.index}`];
}

/** output_item.added announces an item with nothing streamed yet (the SDK appends every delta to it). */
function itemAddedViolations(item: Json, where: string): string[] {
  const empty: Record<string, [string, unknown]> = {
    message: ['content', []],
    reasoning: ['summary', []],
    function_call: ['arguments', ''],
    custom_tool_call: ['input', ''],
  };
  const rule = empty[item.type];
  if (!rule || isDeepStrictEqual(item[rule[0]], rule[1])) return [];
  return [`${where}: item.${rule[0]} should start empty`];
}

/** output_item.done: the item announced, closed, carrying what its events streamed. */
function itemDoneViolations(d: Json, item: OpenItem, where: string): string[] {
  const out: string[] = [];
  const done = d.item ?? {};
  if (item.part) out.push(`${where}: part ${item.part.index} is still open`);
  if (done.id !== item.id) out.push(`${where}: item.id ${done.id}, added as ${item.id}`);
  if (done.type !== item.type) out.push(`${where}: item.type ${done.type}, added as ${item.type}`);
  if (item.type === 'message') {
    const content = Array.isArray(done.content) ? done.content : [];
    const streamed = content.map((c: Json) => ({ type: c.type, text: c.type === 'refusal' ? c.refusal : c.text }));
    if (!isDeepStrictEqual(streamed, item.parts)) out.push(`${where}: item.content differs from the streamed parts`);
  } else if (item.type === 'reasoning') {
    const summary = Array.isArray(done.summary) ? done.summary.map((s: Json) => s.text) : undefined;
    if (!isDeepStrictEqual(summary, item.summaries)) out.push(`${where}: item.summary differs from the streamed parts`);
    const content = Array.isArray(done.content) ? done.content.map((c: Json) => c.text) : [];
    const streamed = item.parts.map((p) => p.text);
    if (!isDeepStrictEqual(content, streamed)) out.push(`${where}: item.content differs from the streamed reasoning`);
  } else if (CALL_INPUT[item.type]) {
    const call = CALL_INPUT[item.type]!;
    if (item.inputDone === undefined) out.push(`${where}: item closed before ${call.done}`);
    if (done[call.itemField] !== item.input)
      out.push(`${where}: item.${call.itemField} differs from the deltas joined`);
  }
  return out;
}

/** SSE text (LF line ends) → messages: `event:` and `data:` fields of each event; comments and empty events skipped. */
export function sseMessages(text: string): ResponsesSseMessage[] {
  const out: ResponsesSseMessage[] = [];
  for (const block of text.split('\n\n')) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const value = line.slice(colon + 1).replace(/^ /, '');
      if (line.startsWith('event:')) event = value;
      else if (line.startsWith('data:')) data.push(value);
    }
    if (data.length > 0) out.push({ event, data: data.join('\n') });
  }
  return out;
}
