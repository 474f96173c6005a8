/**
 * The providers' wire formats, written once: every body, stream and error the fake upstream
 * (fake-upstream.ts) sends, and every upstream stream a test builds by hand, comes from these
 * encoders, so a format change touches this file only. Shares no code with src/ (the gateway's own
 * encoders are what the tests check). The shapes follow the openai 6.x and @anthropic-ai/sdk 1.x
 * types: OpenAI streams are role chunk, content deltas, tool-call chunks (id + name first, then
 * argument pieces), finish chunk, usage chunk when asked, [DONE]; Anthropic streams are
 * message_start, ping, per block content_block_start / deltas / content_block_stop, message_delta,
 * message_stop; OpenAI Responses streams are response.created, response.in_progress, per output item
 * output_item.added / its parts and deltas / output_item.done (reasoning, message, function_call or
 * custom_tool_call items), then response.completed or response.incomplete, every event numbered.
 */

/**
 * `openai`: Chat Completions; `responses`: the OpenAI Responses API; `anthropic`: Messages; `gemini`:
 * generateContent (its wire is gemini-wire.ts); `bedrock`: Converse (bedrock-wire.ts).
 */
export type WireFormat = 'openai' | 'anthropic' | 'responses' | 'gemini' | 'bedrock';

/** Token counts, neutral: OpenAI's prompt_tokens is input + cacheRead, Anthropic reports each apart. */
export interface WireUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** OpenAI reasoning tokens (part of output). */
  reasoning: number;
}

export interface WireToolCall {
  id: string;
  name: string;
  /** The argument JSON in the pieces a stream sends; joined, the whole JSON text (a custom tool: its input text). */
  args: string[];
  /** Responses: a call of a free-form (`custom`) tool, written as a custom_tool_call item. */
  custom?: boolean;
}

/** One assistant turn, independent of the format it is written in. */
export interface WireAnswer {
  id: string;
  model: string;
  /** Anthropic: a thinking block (pieces, signature) first. OpenAI shows only its reasoning tokens. */
  thinking?: { pieces: string[]; signature: string };
  /**
   * Responses: a reasoning item first, with its summary pieces (empty when no summary was asked) and
   * its encrypted_content (when `include` asked for it).
   */
  reasoning?: { summary: string[]; encrypted?: string };
  /** Text pieces, one stream delta each; joined for a JSON body. Empty: no text. */
  text: string[];
  toolCalls: WireToolCall[];
  finish: 'stop' | 'length' | 'tool_calls';
  usage: WireUsage;
  /** Responses: the create request, whose settings the response object repeats; Gemini: the request. */
  request?: Record<string, any>;
  /** Gemini: the prompt was blocked for this reason (promptFeedback.blockReason): no candidate. */
  blocked?: string;
}

export interface StreamStyle {
  /** OpenAI: the usage chunk (and `usage: null` on the others), as stream_options.include_usage asks. */
  includeUsage?: boolean;
  /** OpenAI: the argument pieces of parallel calls interleaved by index, as the API may send them. */
  interleave?: boolean;
}

export interface WireError {
  message: string;
  type?: string;
  code?: string | null;
  param?: string | null;
  requestId?: string;
}

const CREATED = 1700000000;
const STOP_REASON = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use' } as const;

/** The text cut into words, each with the spaces after it (how both APIs stream text). */
export const words = (s: string): string[] => s.match(/\S+\s*/g) ?? [];

export function encodeJson(format: WireFormat, a: WireAnswer): unknown {
  if (format === 'responses') return responsesJson(a);
  return format === 'openai' ? openaiJson(a) : anthropicJson(a);
}

/** The events of a stream, each a complete SSE message (one write each). */
export function encodeStream(format: WireFormat, a: WireAnswer, style: StreamStyle = {}): string[] {
  if (format === 'responses') return responsesStream(a);
  return format === 'openai' ? openaiStream(a, style) : anthropicStream(a);
}

/** How many events at the end of encodeStream's list close the stream (finish, usage, stop). */
export function closingEvents(format: WireFormat, a: WireAnswer, style: StreamStyle = {}): number {
  if (format === 'responses') return 1;
  if (format === 'openai') return style.includeUsage ? 3 : 2;
  const blocks = (a.thinking ? 1 : 0) + (a.text.length > 0 ? 1 : 0) + a.toolCalls.length;
  return blocks > 0 ? 3 : 2;
}

// ---------------------------------------------------------------- OpenAI

function openaiUsage(u: WireUsage) {
  const prompt = u.input + u.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: u.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function openaiJson(a: WireAnswer): unknown {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: a.text.length > 0 ? a.text.join('') : null,
    refusal: null,
    annotations: [],
  };
  if (a.toolCalls.length > 0) {
    message.tool_calls = a.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.args.join('') },
    }));
  }
  return {
    id: a.id,
    object: 'chat.completion',
    created: CREATED,
    model: a.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: a.finish }],
    usage: openaiUsage(a.usage),
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

function openaiStream(a: WireAnswer, style: StreamStyle): string[] {
  const head = {
    id: a.id,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: a.model,
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
  const nullUsage = style.includeUsage ? { usage: null } : {};
  const chunk = (delta: unknown, finish: string | null) => {
    const choice = { index: 0, delta, logprobs: null, finish_reason: finish };
    return `data: ${JSON.stringify({ ...head, choices: [choice], ...nullUsage })}\n\n`;
  };
  const onlyCalls = a.text.length === 0 && a.toolCalls.length > 0;
  const out = [chunk({ role: 'assistant', content: onlyCalls ? null : '', refusal: null }, null)];
  for (const t of a.text) out.push(chunk({ content: t }, null));
  const opener = (c: WireToolCall, index: number) =>
    chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }, null);
  const piece = (index: number, args: string) =>
    chunk({ tool_calls: [{ index, function: { arguments: args } }] }, null);
  if (style.interleave) {
    out.push(...a.toolCalls.map(opener));
    const rounds = Math.max(0, ...a.toolCalls.map((c) => c.args.length));
    for (let k = 0; k < rounds; k++) {
      a.toolCalls.forEach((c, i) => {
        if (k < c.args.length) out.push(piece(i, c.args[k]!));
      });
    }
  } else {
    a.toolCalls.forEach((c, i) => {
      out.push(opener(c, i));
      for (const args of c.args) out.push(piece(i, args));
    });
  }
  out.push(chunk({}, a.finish));
  if (style.includeUsage)
    out.push(`data: ${JSON.stringify({ ...head, choices: [], usage: openaiUsage(a.usage) })}\n\n`);
  out.push('data: [DONE]\n\n');
  return out;
}

// ---------------------------------------------------------------- Anthropic

function anthropicUsage(u: WireUsage) {
  return {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: u.cacheWrite, ephemeral_1h_input_tokens: 0 },
    output_tokens: u.output,
    service_tier: 'standard',
  };
}

function anthropicContent(a: WireAnswer): any[] {
  const content: any[] = [];
  if (a.thinking)
    content.push({ type: 'thinking', thinking: a.thinking.pieces.join(''), signature: a.thinking.signature });
  if (a.text.length > 0) content.push({ type: 'text', text: a.text.join('') });
  for (const c of a.toolCalls)
    content.push({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.args.join('') || '{}') });
  return content;
}

function anthropicJson(a: WireAnswer): unknown {
  return {
    id: a.id,
    type: 'message',
    role: 'assistant',
    model: a.model,
    content: anthropicContent(a),
    stop_reason: STOP_REASON[a.finish],
    stop_sequence: null,
    usage: anthropicUsage(a.usage),
  };
}

const event = (type: string, data: Record<string, unknown> = {}) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function anthropicStream(a: WireAnswer): string[] {
  const message = {
    id: a.id,
    type: 'message',
    role: 'assistant',
    model: a.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { ...anthropicUsage(a.usage), output_tokens: 1 },
  };
  const out = [event('message_start', { message }), event('ping')];
  let index = 0;
  const block = (start: unknown, deltas: unknown[]) => {
    out.push(event('content_block_start', { index, content_block: start }));
    for (const delta of deltas) out.push(event('content_block_delta', { index, delta }));
    out.push(event('content_block_stop', { index }));
    index += 1;
  };
  if (a.thinking) {
    block({ type: 'thinking', thinking: '', signature: '' }, [
      ...a.thinking.pieces.map((thinking) => ({ type: 'thinking_delta', thinking })),
      { type: 'signature_delta', signature: a.thinking.signature },
    ]);
  }
  if (a.text.length > 0)
    block(
      { type: 'text', text: '' },
      a.text.map((text) => ({ type: 'text_delta', text })),
    );
  for (const c of a.toolCalls) {
    block(
      { type: 'tool_use', id: c.id, name: c.name, input: {} },
      c.args.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
    );
  }
  const u = anthropicUsage(a.usage);
  out.push(
    event('message_delta', {
      delta: { stop_reason: STOP_REASON[a.finish], stop_sequence: null },
      usage: {
        input_tokens: u.input_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
        output_tokens: u.output_tokens,
      },
    }),
  );
  out.push(event('message_stop'));
  return out;
}

// ---------------------------------------------------------------- OpenAI Responses

/**
 * The encrypted_content the fake issues for a reasoning item, and what it accepts back: the reasoning
 * text sealed in base64, so an upstream can tell its own (whole, unaltered) content from anything else.
 */
const SEAL = 'fake-sealed-reasoning:';
export const sealReasoning = (text: string): string => Buffer.from(SEAL + text).toString('base64');
export function unsealReasoning(sealed: unknown): string | undefined {
  if (typeof sealed !== 'string' || !/^[A-Za-z0-9+/]+=*$/.test(sealed)) return undefined;
  const plain = Buffer.from(sealed, 'base64').toString('utf8');
  return plain.startsWith(SEAL) && sealReasoning(plain.slice(SEAL.length)) === sealed
    ? plain.slice(SEAL.length)
    : undefined;
}

/** Item ids of an answer: one per item, derived from the response id. */
function responsesIds(a: WireAnswer) {
  const tag = a.id.replace(/^resp_/, '');
  return {
    reasoning: `rs_${tag}`,
    message: `msg_${tag}`,
    call: (c: WireToolCall, i: number) => `${c.custom ? 'ctc' : 'fc'}_${tag}_${i}`,
  };
}

function responsesUsage(u: WireUsage) {
  const input = u.input + u.cacheRead + u.cacheWrite;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cacheRead, cache_write_tokens: u.cacheWrite },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: input + u.output,
  };
}

const outputText = (text: string) => ({ type: 'output_text', annotations: [], logprobs: [], text });

/** The output items, complete (as output_item.done and the final response carry them). */
function responsesOutput(a: WireAnswer): Array<Record<string, unknown>> {
  const ids = responsesIds(a);
  const items: Array<Record<string, unknown>> = [];
  if (a.reasoning) {
    const text = a.reasoning.summary.join('');
    items.push({
      id: ids.reasoning,
      type: 'reasoning',
      summary: a.reasoning.summary.length > 0 ? [{ type: 'summary_text', text }] : [],
      ...(a.reasoning.encrypted !== undefined ? { encrypted_content: a.reasoning.encrypted } : {}),
    });
  }
  if (a.text.length > 0) {
    const status = a.finish === 'length' ? 'incomplete' : 'completed';
    const content = [outputText(a.text.join(''))];
    items.push({ id: ids.message, type: 'message', status, content, role: 'assistant' });
  }
  a.toolCalls.forEach((c, i) => {
    const whole = c.args.join('');
    const item = { id: ids.call(c, i), type: c.custom ? 'custom_tool_call' : 'function_call' };
    if (c.custom) items.push({ ...item, call_id: c.id, name: c.name, input: whole });
    else items.push({ ...item, status: 'completed', arguments: whole, call_id: c.id, name: c.name });
  });
  return items;
}

/** The response object: the request's settings repeated, the status, the output and the usage. */
function responseObject(a: WireAnswer, stage: 'in_progress' | 'done'): Record<string, unknown> {
  const r = a.request ?? {};
  const incomplete = a.finish === 'length';
  const done = stage === 'done';
  return {
    id: a.id,
    object: 'response',
    created_at: CREATED,
    status: done ? (incomplete ? 'incomplete' : 'completed') : 'in_progress',
    background: false,
    error: null,
    incomplete_details: done && incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: r.instructions ?? null,
    max_output_tokens: r.max_output_tokens ?? null,
    max_tool_calls: r.max_tool_calls ?? null,
    model: a.model,
    output: done ? responsesOutput(a) : [],
    parallel_tool_calls: r.parallel_tool_calls ?? true,
    previous_response_id: r.previous_response_id ?? null,
    prompt_cache_key: r.prompt_cache_key ?? null,
    reasoning: { effort: r.reasoning?.effort ?? null, summary: r.reasoning?.summary ?? null },
    safety_identifier: r.safety_identifier ?? null,
    service_tier: 'default',
    store: r.store ?? true,
    temperature: r.temperature ?? 1,
    text: { format: r.text?.format ?? { type: 'text' }, verbosity: r.text?.verbosity ?? 'medium' },
    tool_choice: r.tool_choice ?? 'auto',
    tools: r.tools ?? [],
    top_logprobs: r.top_logprobs ?? 0,
    top_p: r.top_p ?? 1,
    truncation: r.truncation ?? 'disabled',
    usage: done ? responsesUsage(a.usage) : null,
    user: r.user ?? null,
    metadata: r.metadata ?? {},
  };
}

function responsesJson(a: WireAnswer): unknown {
  return responseObject(a, 'done');
}

function responsesStream(a: WireAnswer): string[] {
  const out: string[] = [];
  const send = (type: string, data: Record<string, unknown>) =>
    out.push(event(type, { sequence_number: out.length, ...data }));
  send('response.created', { response: responseObject(a, 'in_progress') });
  send('response.in_progress', { response: responseObject(a, 'in_progress') });
  const ids = responsesIds(a);
  const items = responsesOutput(a);
  let index = 0;
  const item = (done: Record<string, unknown>, started: Record<string, unknown>, body: () => void) => {
    send('response.output_item.added', { output_index: index, item: started });
    body();
    send('response.output_item.done', { output_index: index, item: done });
    index += 1;
  };
  if (a.reasoning) {
    const text = a.reasoning.summary.join('');
    item(items[index]!, { id: ids.reasoning, type: 'reasoning', summary: [] }, () => {
      if (a.reasoning!.summary.length === 0) return;
      const at = { item_id: ids.reasoning, output_index: index, summary_index: 0 };
      send('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
      for (const delta of a.reasoning!.summary) send('response.reasoning_summary_text.delta', { ...at, delta });
      send('response.reasoning_summary_text.done', { ...at, text });
      send('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } });
    });
  }
  if (a.text.length > 0) {
    const text = a.text.join('');
    const started = { id: ids.message, type: 'message', status: 'in_progress', content: [], role: 'assistant' };
    item(items[index]!, started, () => {
      const at = { item_id: ids.message, output_index: index, content_index: 0 };
      send('response.content_part.added', { ...at, part: outputText('') });
      for (const delta of a.text) send('response.output_text.delta', { ...at, delta, logprobs: [] });
      send('response.output_text.done', { ...at, text, logprobs: [] });
      send('response.content_part.done', { ...at, part: outputText(text) });
    });
  }
  a.toolCalls.forEach((c, i) => {
    const done = items[index]!;
    const at = { item_id: ids.call(c, i), output_index: index };
    const [field, name] = c.custom ? ['input', 'custom_tool_call_input'] : ['arguments', 'function_call_arguments'];
    const started = c.custom ? { ...done, input: '' } : { ...done, status: 'in_progress', arguments: '' };
    item(done, started, () => {
      for (const delta of c.args) send(`response.${name}.delta`, { ...at, delta });
      send(`response.${name}.done`, { ...at, [field]: c.args.join(''), ...(c.custom ? {} : { name: c.name }) });
    });
  });
  const final = responseObject(a, 'done');
  send(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final });
  return out;
}

// ---------------------------------------------------------------- errors and the rest

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** An error body as each API sends it (type and code chosen from the status unless given); Responses as OpenAI. */
export function errorBody(format: WireFormat, status: number, e: WireError): unknown {
  if (format === 'anthropic') {
    const type = e.type ?? ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
    return { type: 'error', error: { type, message: e.message }, ...(e.requestId ? { request_id: e.requestId } : {}) };
  }
  const type = e.type ?? (status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error');
  const code = e.code !== undefined ? e.code : status === 429 ? 'rate_limit_exceeded' : null;
  return { error: { message: e.message, type, param: e.param ?? null, code } };
}

/**
 * An error sent inside a stream that already started (200): Anthropic's `event: error`, OpenAI's data
 * error, the Responses `error` event numbered `sequence` (the count of events before it). The Responses
 * API nests code, message and param under `error`, as it sends them (its reference shows them flat).
 */
export function streamError(format: WireFormat, message: string, type?: string, sequence = 0): string {
  if (format === 'anthropic') return event('error', { error: { type: type ?? 'overloaded_error', message } });
  if (format === 'responses') {
    const t = type ?? 'server_error';
    return event('error', { sequence_number: sequence, error: { type: t, code: t, message, param: null } });
  }
  return `data: ${JSON.stringify({ error: { message, type: type ?? 'server_error', param: null, code: null } })}\n\n`;
}

/** The fake's vector size when a request names none. */
export const FAKE_EMBEDDING_DIMENSIONS = 4;

/**
 * The fake's vector for one input (a text or token ids): a pure function of it, different for
 * different inputs, of `dimensions` values.
 */
export function fakeEmbedding(input: string | number[], dimensions = FAKE_EMBEDDING_DIMENSIONS): number[] {
  const codes = typeof input === 'string' ? [...input].map((ch) => ch.codePointAt(0)!) : input.map((t) => t + 1);
  const seed = codes.reduce((h, c) => (h * 31 + c) % 1_000_003, codes.length);
  // Quarters are exact in float32, so the base64 form decodes to these very numbers.
  return Array.from({ length: dimensions }, (_, k) => (((seed * (k + 7)) % 41) - 20) / 4);
}

/** An OpenAI embeddings body: one vector per input, as numbers or as base64 of little-endian float32. */
export function embeddingsJson(
  model: string,
  vectors: number[][],
  promptTokens: number,
  encoding: 'float' | 'base64' = 'float',
): unknown {
  const encode = (v: number[]) => {
    if (encoding === 'float') return v;
    const bytes = Buffer.alloc(v.length * 4);
    for (const [i, x] of v.entries()) bytes.writeFloatLE(x, i * 4);
    return bytes.toString('base64');
  };
  return {
    object: 'list',
    data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: encode(v) })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

/** The header that carries each API's request id. */
export function requestIdHeader(format: WireFormat, id: string): Record<string, string> {
  return format === 'anthropic' ? { 'request-id': id } : { 'x-request-id': id };
}

/** The models the fake lists on GET /v1/models. */
export const LISTED_MODELS = ['fake-model'];

/** `GET /v1/models`: OpenAI's list object, or Anthropic's page (`data`, `has_more`, `first_id`, `last_id`). */
export function modelListBody(format: WireFormat): unknown {
  if (format === 'anthropic') {
    const data = LISTED_MODELS.map((id) => ({
      type: 'model',
      id,
      display_name: id,
      created_at: '2025-01-01T00:00:00Z',
    }));
    return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
  }
  const data = LISTED_MODELS.map((id) => ({ id, object: 'model', created: 1735689600, owned_by: 'fake' }));
  return { object: 'list', data };
}

/** An SSE comment, as proxies and the APIs send to keep a connection alive. */
export const KEEP_ALIVE = ': keep-alive\n\n';
