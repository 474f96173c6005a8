/**
 * One scenario list, run for every cell of {OpenAI chat, Anthropic, OpenAI Responses upstream, and each
 * provider kind of kind-rigs.ts} × {openai SDK on /v1/chat/completions, Anthropic SDK on /v1/messages,
 * openai SDK on /v1/responses} × {JSON, stream}. One caller per upstream is same-format pass-through, the
 * other two are translations through the canonical model. The upstream is test/helpers/fake-upstream.ts
 * (set up as SCRIPTED), reached directly or through the kind's front; it renders the three wire formats
 * itself and is scripted by the last user message, so every cell expects the same outcome.
 *
 * Streams go through the SDKs' strict helpers (`chat.completions.stream().finalChatCompletion()`,
 * `messages.stream().finalMessage()`, `responses.stream().finalResponse()`); the raw SSE behind each
 * is kept and checked as well (Anthropic: assertAnthropicStreamOrder; OpenAI chat: chunk shape, one
 * finish_reason, [DONE] last; Responses: responsesOrderViolations).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SseDecoder, type SseMessage } from '../../src/sse/decode.js';
import { assertAnthropicStreamOrder } from '../helpers/anthropic-order.js';
import { type FakeUpstream, SCRIPTED, startFakeUpstream, type UpstreamCall } from '../helpers/fake-upstream.js';
import { ANT_SECRET, OAI_SECRET, RESP_SECRET, SCRIPTED_KEY, scriptedGateway } from '../helpers/gateway-config.js';
import { chatCalls, type KindFront, type KindRig, KINDS } from '../helpers/kind-rigs.js';

/** Every kind: the scenarios below check each upstream format they reach. */
const MATRIX_KINDS = KINDS;
import { responsesOrderViolations } from '../helpers/responses-order.js';
import { recordingFetch } from '../helpers/sse.js';
import { configOf, startGateway, type RunningGateway } from '../helpers/start-gateway.js';

let up: FakeUpstream;
let gw: RunningGateway;
let openai: OpenAI;
let anthropic: Anthropic;
/** Raw event-stream bodies the SDK clients received, in order. */
const streams: string[] = [];
const fronts = new Map<KindRig, KindFront>();

beforeAll(async () => {
  up = await startFakeUpstream(SCRIPTED);
  const spec = scriptedGateway(up.url);
  for (const rig of MATRIX_KINDS) {
    const front = await rig.start(up, ['m']);
    fronts.set(rig, front);
    spec.providers[rig.kind] = front.provider(
      { m: { context_window: 100000, max_output_tokens: 1000 } },
      { timeouts: { connect_ms: 2000, first_byte_ms: 3000, total_ms: 10000 } },
    );
  }
  gw = await startGateway(configOf(spec));
  openai = new OpenAI({ apiKey: SCRIPTED_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0, fetch: recordingFetch(streams) });
  anthropic = new Anthropic({ apiKey: SCRIPTED_KEY, baseURL: gw.url, maxRetries: 0, fetch: recordingFetch(streams) });
});
afterAll(async () => {
  await gw?.close();
  for (const front of fronts.values()) await front.close();
  await up?.close();
});
beforeEach(() => {
  up.reset();
  streams.length = 0;
});

// ---------------------------------------------------------------- a caller-neutral conversation

interface Call {
  id: string;
  name: string;
  args: unknown;
}
type Turn =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string }
  | { role: 'assistant'; calls: Call[] }
  | { role: 'tool'; results: Array<{ id: string; text: string }> };
interface Ask {
  system?: string;
  turns: Turn[];
  maxTokens?: number;
  tools?: boolean;
}
type Stop = 'stop' | 'length' | 'tool_calls';
interface Outcome {
  text: string;
  calls: Call[];
  stop: Stop;
  /** finish_reason / stop_reason exactly as the caller saw it. */
  rawStop: string;
  /** The caller format's own usage object. */
  usage: any;
}

type ErrorClass = abstract new (...args: any[]) => Error;

type CallerId = 'openai' | 'anthropic' | 'responses';

interface Caller {
  id: CallerId;
  send(model: string, ask: Ask, stream: boolean): Promise<Outcome>;
  /** The raw stop the caller sees: finish_reason, stop_reason, or a Responses status. */
  stopName: Record<Stop, string>;
  /** SDK error class expected for an upstream HTTP status before any stream. */
  errorClass: Record<number, ErrorClass>;
  /** The error type an Anthropic caller sees in the body, per status (OpenAI: not checked). */
  errorType?: Record<number, string>;
  apiError: ErrorClass;
  /** The raw SSE of the last streaming call, decoded and already checked. */
  lastSse?: SseMessage[];
}

const WEATHER_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

function decode(text: string): SseMessage[] {
  const d = new SseDecoder();
  return [...d.push(text), ...d.end()];
}

/**
 * What the OpenAI SDK's accumulator does not check about a chat.completion.chunk stream. Azure's first chunk
 * (its prompt filter results, no choices), passed through to chat callers, is not one of the answer's.
 */
function assertOpenAIStream(msgs: SseMessage[]): void {
  expect(msgs.length, 'stream is empty').toBeGreaterThan(0);
  const lastData = msgs.at(-1)!.data;
  const failed = lastData !== '[DONE]' && JSON.parse(lastData).error !== undefined;
  if (!failed) expect(lastData, 'the stream ends with [DONE]').toBe('[DONE]');
  // Without the last message: [DONE], or the in-stream error.
  const chunks = msgs
    .slice(0, -1)
    .map((m) => JSON.parse(m.data))
    .filter((c) => !(c.prompt_filter_results && c.choices.length === 0));
  expect(new Set(chunks.map((c) => c.id)).size, 'one id across chunks').toBe(1);
  for (const c of chunks) expect(c.object).toBe('chat.completion.chunk');
  expect(chunks[0].choices[0].delta.role, 'role in the first chunk').toBe('assistant');
  const finishes = chunks.filter((c) => c.choices.some((ch: any) => ch.finish_reason));
  expect(finishes.length, 'finish_reason exactly once').toBe(failed ? 0 : 1);
  const usage = chunks.filter((c) => c.choices.length === 0);
  for (const u of usage) expect(u.usage, 'the empty-choices chunk carries usage').toBeTruthy();
}

const openaiCaller: Caller = {
  id: 'openai',
  stopName: { stop: 'stop', length: 'length', tool_calls: 'tool_calls' },
  errorClass: {
    400: OpenAI.BadRequestError,
    429: OpenAI.RateLimitError,
    500: OpenAI.InternalServerError,
    503: OpenAI.InternalServerError,
    529: OpenAI.InternalServerError,
  },
  apiError: OpenAI.APIError,
  async send(model, ask, stream) {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
    // The system prompt as a string in JSON mode and as text parts when streaming: both decoders get used.
    if (ask.system)
      messages.push({ role: 'system', content: stream ? [{ type: 'text', text: ask.system }] : ask.system });
    for (const t of ask.turns) {
      if (t.role === 'user') messages.push({ role: 'user', content: t.text });
      else if (t.role === 'tool')
        for (const r of t.results) messages.push({ role: 'tool', tool_call_id: r.id, content: r.text });
      else if ('calls' in t) {
        messages.push({
          role: 'assistant',
          content: null,
          tool_calls: t.calls.map((c) => ({
            id: c.id,
            type: 'function' as const,
            function: { name: c.name, arguments: JSON.stringify(c.args) },
          })),
        });
      } else messages.push({ role: 'assistant', content: t.text });
    }
    const params = {
      model,
      messages,
      // Both spellings of the limit are exercised.
      ...(ask.maxTokens === undefined
        ? {}
        : stream
          ? { max_completion_tokens: ask.maxTokens }
          : { max_tokens: ask.maxTokens }),
      ...(ask.tools
        ? {
            tools: [
              {
                type: 'function' as const,
                function: { name: 'get_weather', description: 'Current weather in a city', parameters: WEATHER_SCHEMA },
              },
            ],
          }
        : {}),
    };
    const before = streams.length;
    this.lastSse = undefined;
    let res: OpenAI.Chat.ChatCompletion;
    try {
      res = stream
        ? await openai.chat.completions
            .stream({ ...params, stream_options: { include_usage: true } })
            .finalChatCompletion()
        : await openai.chat.completions.create(params);
    } finally {
      if (stream && streams.length > before) {
        this.lastSse = decode(streams[before]);
        assertOpenAIStream(this.lastSse);
      }
    }
    if (stream) expect(this.lastSse, 'the raw stream was captured').toBeDefined();
    expect(res.choices).toHaveLength(1);
    const choice = res.choices[0];
    const calls = (choice.message.tool_calls ?? []).map((tc) => {
      if (tc.type !== 'function') throw new Error(`unexpected tool call type ${tc.type}`);
      return { id: tc.id, name: tc.function.name, args: JSON.parse(tc.function.arguments) as unknown };
    });
    const stop = (Object.keys(this.stopName) as Stop[]).find((k) => this.stopName[k] === choice.finish_reason);
    if (!stop) throw new Error(`unexpected finish_reason ${choice.finish_reason}`);
    return { text: choice.message.content ?? '', calls, stop, rawStop: choice.finish_reason, usage: res.usage };
  },
};

const anthropicCaller: Caller = {
  id: 'anthropic',
  stopName: { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use' },
  errorClass: {
    400: Anthropic.BadRequestError,
    429: Anthropic.RateLimitError,
    500: Anthropic.InternalServerError,
    503: Anthropic.ServiceUnavailableError,
    529: Anthropic.OverloadedError,
  },
  errorType: {
    400: 'invalid_request_error',
    429: 'rate_limit_error',
    500: 'api_error',
    503: 'overloaded_error',
    529: 'overloaded_error',
  },
  apiError: Anthropic.APIError,
  async send(model, ask, stream) {
    const messages: Anthropic.MessageParam[] = [];
    for (const t of ask.turns) {
      if (t.role === 'user') messages.push({ role: 'user', content: t.text });
      else if (t.role === 'tool') {
        messages.push({
          role: 'user',
          content: t.results.map((r) => ({ type: 'tool_result' as const, tool_use_id: r.id, content: r.text })),
        });
      } else if ('calls' in t) {
        messages.push({
          role: 'assistant',
          content: t.calls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: c.args })),
        });
      } else messages.push({ role: 'assistant', content: t.text });
    }
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model,
      max_tokens: ask.maxTokens ?? 500,
      messages,
      ...(ask.system ? { system: stream ? [{ type: 'text' as const, text: ask.system }] : ask.system } : {}),
      ...(ask.tools
        ? {
            tools: [
              {
                name: 'get_weather',
                description: 'Current weather in a city',
                input_schema: WEATHER_SCHEMA as Anthropic.Tool.InputSchema,
              },
            ],
          }
        : {}),
    };
    const before = streams.length;
    this.lastSse = undefined;
    let msg: Anthropic.Message;
    try {
      msg = stream ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
    } finally {
      if (stream && streams.length > before) {
        this.lastSse = decode(streams[before]);
        assertAnthropicStreamOrder(this.lastSse);
      }
    }
    if (stream) expect(this.lastSse, 'the raw stream was captured').toBeDefined();
    expect(msg.type).toBe('message');
    expect(msg.role).toBe('assistant');
    const text = msg.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    const calls = msg.content.flatMap((b) =>
      b.type === 'tool_use' ? [{ id: b.id, name: b.name, args: b.input }] : [],
    );
    const stop = (Object.keys(this.stopName) as Stop[]).find((k) => this.stopName[k] === msg.stop_reason);
    if (!stop) throw new Error(`unexpected stop_reason ${msg.stop_reason}`);
    return { text, calls, stop, rawStop: msg.stop_reason!, usage: msg.usage };
  },
};

type ResponseInputItem = OpenAI.Responses.ResponseInputItem;

/** The conversation as Responses input items; JSON and stream use different spellings so both decoders get used. */
function responsesInput(ask: Ask, stream: boolean): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const t of ask.turns) {
    if (t.role === 'user')
      input.push({ role: 'user', content: stream ? [{ type: 'input_text', text: t.text }] : t.text });
    else if (t.role === 'tool')
      for (const r of t.results) input.push({ type: 'function_call_output', call_id: r.id, output: r.text });
    else if ('calls' in t) {
      for (const c of t.calls)
        input.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: JSON.stringify(c.args) });
    } else if (stream) {
      input.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: t.text }] } as never);
    } else input.push({ role: 'assistant', content: t.text });
  }
  return input;
}

const responsesCaller: Caller = {
  id: 'responses',
  // A Responses answer has no stop reason: its status, and function_call items when it calls tools.
  stopName: { stop: 'completed', length: 'incomplete', tool_calls: 'completed' },
  errorClass: openaiCaller.errorClass,
  apiError: OpenAI.APIError,
  async send(model, ask, stream) {
    const input = responsesInput(ask, stream);
    // The system prompt as `instructions` in JSON mode and as a leading developer item when streaming.
    if (ask.system && stream) input.unshift({ role: 'developer', content: ask.system });
    const params = {
      model,
      input,
      ...(ask.system && !stream ? { instructions: ask.system } : {}),
      ...(ask.maxTokens === undefined ? {} : { max_output_tokens: ask.maxTokens }),
      ...(ask.tools
        ? {
            tools: [
              {
                type: 'function' as const,
                name: 'get_weather',
                description: 'Current weather in a city',
                parameters: WEATHER_SCHEMA,
                strict: false,
              },
            ],
          }
        : {}),
    };
    const before = streams.length;
    this.lastSse = undefined;
    let res: OpenAI.Responses.Response;
    try {
      res = stream ? await openai.responses.stream(params).finalResponse() : await openai.responses.create(params);
    } finally {
      if (stream && streams.length > before) {
        this.lastSse = decode(streams[before]);
        expect(responsesOrderViolations(this.lastSse), streams[before]).toEqual([]);
      }
    }
    if (stream) expect(this.lastSse, 'the raw stream was captured').toBeDefined();
    expect(res.object).toBe('response');
    expect(res.model).toBe(model);
    const calls = res.output.flatMap((o) =>
      o.type === 'function_call' ? [{ id: o.call_id, name: o.name, args: JSON.parse(o.arguments) as unknown }] : [],
    );
    if (res.status !== 'completed' && res.status !== 'incomplete') throw new Error(`unexpected status ${res.status}`);
    if (res.status === 'incomplete') expect(res.incomplete_details?.reason).toBe('max_output_tokens');
    const stop: Stop = res.status === 'incomplete' ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop';
    return { text: res.output_text, calls, stop, rawStop: res.status, usage: res.usage };
  },
};

const CALLERS: Record<CallerId, Caller> = {
  openai: openaiCaller,
  anthropic: anthropicCaller,
  responses: responsesCaller,
};

// ---------------------------------------------------------------- the matrix

/** An upstream column: the fake upstream reached directly, or through a provider kind's front. */
interface Column {
  upstream: 'openai' | 'anthropic' | 'responses' | 'gemini' | 'bedrock';
  /** The upstream's name in labels: its format, or the kind. */
  name: string;
  model: string;
  /** The gateway's credential for the provider reached the upstream (or the kind's front). */
  expectCredential(u: UpstreamCall): void;
  /** An upstream 429's retry-after reaches the gateway. */
  retryAfter: boolean;
  /** Upstream error statuses the kind's front answers with another. */
  statuses: Record<number, number>;
}
const direct = (upstream: Column['upstream'], model: string, secret: string): Column => ({
  upstream,
  name: upstream,
  model,
  expectCredential: (u) =>
    expect(u.headers[upstream === 'anthropic' ? 'x-api-key' : 'authorization']).toBe(
      upstream === 'anthropic' ? secret : `Bearer ${secret}`,
    ),
  retryAfter: true,
  statuses: {},
});
const COLUMNS: Column[] = [
  direct('openai', 'oai/m', OAI_SECRET),
  direct('anthropic', 'ant/m', ANT_SECRET),
  direct('responses', 'resp/m', RESP_SECRET),
  ...MATRIX_KINDS.map(
    (rig): Column => ({
      upstream: rig.format,
      name: rig.kind,
      model: `${rig.kind}/m`,
      expectCredential() {
        const front = fronts.get(rig)!;
        expect(front.secrets().sent).toContain(front.lastCall()?.credential);
      },
      retryAfter: rig.retryAfter,
      statuses: rig.statuses ?? {},
    }),
  ),
];
const CALLER_LABEL: Record<CallerId, string> = {
  openai: 'openai SDK chat',
  anthropic: 'Anthropic SDK',
  responses: 'openai SDK responses',
};
const MATRIX = COLUMNS.flatMap((k) =>
  (['openai', 'anthropic', 'responses'] as const).flatMap((caller) =>
    (['json', 'stream'] as const).map((mode) => ({
      ...k,
      caller,
      mode,
      label: `${CALLER_LABEL[caller]} → ${k.name} upstream (${k.model}), ${mode}`,
    })),
  ),
);
type Cell = (typeof MATRIX)[number];

interface Ctx {
  cell: Cell;
  caller: Caller;
  stream: boolean;
  ask(a: Ask): Promise<Outcome>;
  /** The chat requests the upstream received during this test. */
  upstreamCalls(): UpstreamCall[];
}

const TEXT_PARTS = ['text', 'input_text', 'output_text'];

/** The text of Converse content blocks. */
const converseText = (blocks: any[] = []) => blocks.map((b) => b.text ?? '').join('');

/** The text of Gemini parts (a thought's aside). */
const geminiText = (parts: any[] = []) => parts.map((p) => (p.thought ? '' : (p.text ?? ''))).join('');

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: any) => (TEXT_PARTS.includes(p?.type) ? p.text : '')).join('');
  return '';
}

/** The upstream request's messages (Responses: input items) minus any system ones, as [role, text]. */
function upstreamTurns(cell: Cell, body: any): Array<[string, string]> {
  if (cell.upstream === 'gemini')
    return (body.contents as any[]).map((c) => [c.role === 'model' ? 'assistant' : c.role, geminiText(c.parts)]);
  if (cell.upstream === 'bedrock') return (body.messages as any[]).map((m) => [m.role, converseText(m.content)]);
  return ((cell.upstream === 'responses' ? body.input : body.messages) as any[])
    .filter((m) => m.role !== 'system' && m.role !== 'developer')
    .map((m) => [m.role, textOf(m.content)]);
}

const say = (text: string): Ask => ({ turns: [{ role: 'user', text }] });

interface Scenario {
  name: string;
  only?: 'json' | 'stream';
  run(ctx: Ctx): Promise<void>;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'text',
    async run({ cell, caller, stream, ask, upstreamCalls }) {
      const r = await ask(say('hello there'));
      expect(r.text).toBe('echo: hello there');
      expect(r.calls).toEqual([]);
      expect(r.rawStop).toBe(caller.stopName.stop);
      const [u] = upstreamCalls();
      if (cell.upstream === 'gemini') {
        // The model and the stream are in the path.
        expect(u.path).toBe(`/v1beta/models/m:${stream ? 'streamGenerateContent' : 'generateContent'}`);
        expect(u.body.generationConfig.maxOutputTokens).toBe(caller.id === 'anthropic' ? 500 : 1000);
      } else if (cell.upstream === 'bedrock') {
        expect(u.path).toBe(`/model/m/${stream ? 'converse-stream' : 'converse'}`);
        expect(u.body.inferenceConfig.maxTokens).toBe(caller.id === 'anthropic' ? 500 : 1000);
      } else {
        expect(u.body.model).toBe('m');
        expect(u.body.stream === true).toBe(stream);
      }
      cell.expectCredential(u);
      // Anthropic requires max_tokens: an OpenAI caller that sent none gets the model's max_output_tokens.
      if (caller.id !== 'anthropic' && cell.upstream === 'anthropic') expect(u.body.max_tokens).toBe(1000);
      // A Responses upstream always gets a cap: the caller's (the Anthropic SDK's 500), else the model's.
      if (cell.upstream === 'responses') expect(u.body.max_output_tokens).toBe(caller.id === 'anthropic' ? 500 : 1000);
    },
  },
  {
    name: 'system prompt lands in the upstream format’s own place',
    async run({ cell, caller, ask, upstreamCalls }) {
      const r = await ask({ system: 'be terse', turns: [{ role: 'user', text: 'hi' }] });
      expect(r.text).toBe('[sys:be terse] echo: hi');
      const [u] = upstreamCalls();
      if (cell.upstream === 'bedrock') {
        expect(u.body.system).toEqual([{ text: 'be terse' }]);
        expect((u.body.messages as any[]).map((m) => m.role)).toEqual(['user']);
      } else if (cell.upstream === 'gemini') {
        expect(geminiText(u.body.systemInstruction?.parts)).toBe('be terse');
        expect((u.body.contents as any[]).map((c) => c.role)).toEqual(['user']);
      } else if (cell.upstream === 'responses') {
        // Translated: `instructions`. A Responses caller's own spelling (an item or instructions) passes through.
        const items = (u.body.input as any[]).filter((m) => m.role === 'system' || m.role === 'developer');
        const placed = [...(u.body.instructions === undefined ? [] : [u.body.instructions])];
        placed.push(...items.map((m) => textOf(m.content)));
        expect(placed).toEqual(['be terse']);
        if (caller.id !== 'responses') expect(u.body.instructions).toBe('be terse');
      } else if (cell.upstream === 'openai') {
        const sys = (u.body.messages as any[]).filter((m) => m.role === 'system' || m.role === 'developer');
        expect(sys).toHaveLength(1);
        expect(sys[0].role).toBe('system');
        expect(textOf(sys[0].content)).toBe('be terse');
        expect(u.body.messages[0]).toBe(sys[0]);
        expect(u.body).not.toHaveProperty('system');
      } else {
        expect(textOf(u.body.system)).toBe('be terse');
        expect((u.body.messages as any[]).some((m) => m.role === 'system')).toBe(false);
      }
    },
  },
  {
    name: 'multi-turn (3 user turns) reaches the upstream in order',
    async run({ cell, ask, upstreamCalls }) {
      const r = await ask({
        turns: [
          { role: 'user', text: 'first' },
          { role: 'assistant', text: 'echo: first' },
          { role: 'user', text: 'second' },
          { role: 'assistant', text: 'echo: second' },
          { role: 'user', text: 'third' },
        ],
      });
      expect(r.text).toBe('echo: third');
      const [u] = upstreamCalls();
      expect(upstreamTurns(cell, u.body)).toEqual([
        ['user', 'first'],
        ['assistant', 'echo: first'],
        ['user', 'second'],
        ['assistant', 'echo: second'],
        ['user', 'third'],
      ]);
    },
  },
  {
    name: 'tools: one call comes back as the caller format’s tool call',
    async run({ cell, caller, ask, upstreamCalls }) {
      const r = await ask({ tools: true, turns: [{ role: 'user', text: 'what is the weather in Paris?' }] });
      expect(r.text).toBe('');
      expect(r.rawStop).toBe(caller.stopName.tool_calls);
      expect(r.calls).toHaveLength(1);
      expect(r.calls[0]).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
      expect(r.calls[0].id).toEqual(expect.any(String));
      expect(r.calls[0].id.length).toBeGreaterThan(0);
      const [u] = upstreamCalls();
      if (cell.upstream === 'bedrock') {
        expect(u.body.toolConfig.tools).toEqual([
          { toolSpec: expect.objectContaining({ name: 'get_weather', inputSchema: { json: WEATHER_SCHEMA } }) },
        ]);
      } else if (cell.upstream === 'gemini') {
        expect(u.body.tools).toHaveLength(1);
        expect(u.body.tools[0].functionDeclarations).toEqual([expect.objectContaining({ name: 'get_weather' })]);
      } else if (cell.upstream === 'responses') {
        expect(u.body.tools).toEqual([
          expect.objectContaining({ type: 'function', name: 'get_weather', parameters: WEATHER_SCHEMA }),
        ]);
      } else if (cell.upstream === 'openai') {
        expect(u.body.tools).toEqual([
          { type: 'function', function: expect.objectContaining({ name: 'get_weather', parameters: WEATHER_SCHEMA }) },
        ]);
      } else {
        expect(u.body.tools).toEqual([expect.objectContaining({ name: 'get_weather', input_schema: WEATHER_SCHEMA })]);
      }
    },
  },
  {
    name: 'parallel tools: two calls, in order, with their own arguments',
    async run({ caller, ask }) {
      const r = await ask({ tools: true, turns: [{ role: 'user', text: 'parallel weather for Paris and Rome' }] });
      expect(r.rawStop).toBe(caller.stopName.tool_calls);
      expect(r.text).toBe('');
      expect(r.calls.map((c) => [c.name, c.args])).toEqual([
        ['get_weather', { city: 'Paris' }],
        ['get_weather', { city: 'Rome' }],
      ]);
      expect(new Set(r.calls.map((c) => c.id)).size).toBe(2);
    },
  },
  {
    name: 'tool results round trip',
    async run({ cell, ask, upstreamCalls }) {
      const first = await ask({ tools: true, turns: [{ role: 'user', text: 'weather in Paris?' }] });
      const call = first.calls[0];
      const r = await ask({
        tools: true,
        turns: [
          { role: 'user', text: 'weather in Paris?' },
          { role: 'assistant', calls: [call] },
          { role: 'tool', results: [{ id: call.id, text: 'sunny, 21C' }] },
        ],
      });
      // The upstream answers 400 if the result does not name the call before it: ids survived.
      expect(r.text).toBe('tool said: sunny, 21C');
      expect(r.stop).toBe('stop');
      const second = upstreamCalls()[1].body;
      if (cell.upstream === 'bedrock') {
        const msgs = second.messages as any[];
        expect(msgs.at(-2)).toMatchObject({
          role: 'assistant',
          content: [{ toolUse: { name: 'get_weather', input: { city: 'Paris' } } }],
        });
        const id = msgs.at(-2).content[0].toolUse.toolUseId;
        expect(msgs.at(-1)).toMatchObject({ role: 'user', content: [{ toolResult: { toolUseId: id } }] });
      } else if (cell.upstream === 'gemini') {
        const contents = second.contents as any[];
        expect(contents.at(-2)).toMatchObject({
          role: 'model',
          parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }],
        });
        expect(contents.at(-1)).toMatchObject({ role: 'user', parts: [{ functionResponse: { name: 'get_weather' } }] });
      } else if (cell.upstream === 'responses') {
        const items = second.input as any[];
        expect(items.at(-2)).toMatchObject({ type: 'function_call', name: 'get_weather' });
        expect(JSON.parse(items.at(-2).arguments)).toEqual({ city: 'Paris' });
        expect(items.at(-1)).toMatchObject({ type: 'function_call_output', call_id: items.at(-2).call_id });
      } else if (cell.upstream === 'openai') {
        const msgs = second.messages as any[];
        expect(msgs.at(-2)).toMatchObject({
          role: 'assistant',
          tool_calls: [{ type: 'function', function: { name: 'get_weather' } }],
        });
        expect(JSON.parse(msgs.at(-2).tool_calls[0].function.arguments)).toEqual({ city: 'Paris' });
        expect(msgs.at(-1)).toMatchObject({ role: 'tool', tool_call_id: msgs.at(-2).tool_calls[0].id });
      } else {
        const msgs = second.messages as any[];
        expect(msgs.at(-2)).toMatchObject({
          role: 'assistant',
          content: [{ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } }],
        });
        expect(msgs.at(-1)).toMatchObject({
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: msgs.at(-2).content[0].id }],
        });
      }
    },
  },
  {
    name: 'parallel tool results round trip (both results in one turn)',
    async run({ ask }) {
      const first = await ask({ tools: true, turns: [{ role: 'user', text: 'parallel weather' }] });
      const r = await ask({
        tools: true,
        turns: [
          { role: 'user', text: 'parallel weather' },
          { role: 'assistant', calls: first.calls },
          {
            role: 'tool',
            results: [
              { id: first.calls[0].id, text: 'sunny' },
              { id: first.calls[1].id, text: 'rainy' },
            ],
          },
        ],
      });
      expect(r.text).toBe('tool said: sunny\nrainy');
    },
  },
  {
    name: 'max tokens stop',
    async run({ cell, caller, ask, upstreamCalls }) {
      // 16: the least the Responses API takes; the echo is 21 words, its first 16 come back.
      const words = Array.from({ length: 20 }, (_, i) => `w${i + 1}`);
      const r = await ask({ maxTokens: 16, turns: [{ role: 'user', text: words.join(' ') }] });
      expect(r.text).toBe(`echo: ${words.slice(0, 15).join(' ')}`);
      expect(r.stop).toBe('length');
      expect(r.rawStop).toBe(caller.stopName.length);
      const [u] = upstreamCalls();
      if (cell.upstream === 'gemini') expect(u.body.generationConfig.maxOutputTokens).toBe(16);
      else if (cell.upstream === 'bedrock') expect(u.body.inferenceConfig.maxTokens).toBe(16);
      else if (cell.upstream === 'openai') expect(u.body.max_completion_tokens ?? u.body.max_tokens).toBe(16);
      else if (cell.upstream === 'responses') expect(u.body.max_output_tokens).toBe(16);
      else expect(u.body.max_tokens).toBe(16);
    },
  },
  {
    name: 'usage and cache figures survive',
    async run({ cell, caller, stream, ask, upstreamCalls }) {
      const r = await ask(say('count these words'));
      expect(r.text).toBe('echo: count these words');
      if (caller.id === 'openai') {
        // Anthropic's 16 uncached + 4 cache reads = OpenAI's 20 prompt tokens, 4 of them cached.
        expect(r.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 });
        expect(r.usage.prompt_tokens_details?.cached_tokens).toBe(4);
      } else if (caller.id === 'responses') {
        expect(r.usage).toMatchObject({ input_tokens: 20, output_tokens: 4, total_tokens: 24 });
        expect(r.usage.input_tokens_details?.cached_tokens).toBe(4);
      } else {
        expect(r.usage).toMatchObject({ input_tokens: 16, output_tokens: 4, cache_read_input_tokens: 4 });
        expect(r.usage.cache_creation_input_tokens ?? 0).toBe(0);
      }
      // A translated stream must ask an OpenAI upstream for its usage chunk.
      if (stream && cell.upstream === 'openai')
        expect(upstreamCalls()[0].body.stream_options).toEqual({ include_usage: true });
    },
  },
  ...[429, 500, 529, 400].map(
    (status): Scenario => ({
      name: `upstream ${status} before any output → the SDK's error class`,
      async run({ cell, caller, ask }) {
        const err = await ask(say(`please fail ${status}`)).then(
          () => undefined,
          (e: unknown) => e,
        );
        const seen = cell.statuses[status] ?? status;
        expect(err).toBeInstanceOf(caller.errorClass[seen]);
        expect((err as { status?: number }).status).toBe(seen);
        if (caller.errorType) expect((err as { error?: any }).error?.error?.type).toBe(caller.errorType[seen]);
        // Passed on when the answer reaching the gateway has it (fake-vertex drops Claude's header).
        if (status === 429)
          expect((err as { headers?: Headers }).headers?.get('retry-after')).toBe(cell.retryAfter ? '7' : null);
      },
    }),
  ),
  {
    name: 'an error during the stream → APIError, the stream well-formed up to it',
    only: 'stream',
    async run({ cell, caller, ask }) {
      const err = await ask(say('cut it short')).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(caller.apiError);
      const sse = caller.lastSse;
      expect(sse, 'the gateway committed to a stream').toBeDefined();
      // Already checked by the caller adapter (Anthropic order / OpenAI chunk shape); here: it
      // delivered the first delta, then ended on the error.
      const datas = sse!.filter((m) => m.event !== 'ping').map((m) => JSON.parse(m.data));
      const last = datas.at(-1);
      if (caller.id === 'anthropic') {
        expect(sse!.at(-1)!.event).toBe('error');
        // The Anthropic upstream's own overloaded_error passes through; OpenAI's server_error is an api_error.
        expect(last).toMatchObject({
          type: 'error',
          error: { type: cell.upstream === 'anthropic' ? 'overloaded_error' : 'api_error' },
        });
        expect(datas.some((d) => d.type === 'content_block_delta' && d.delta?.text === 'echo:')).toBe(true);
      } else if (caller.id === 'responses') {
        expect(sse!.at(-1)!.event).toBe('error');
        expect(last.type).toBe('error');
        expect(datas.some((d) => d.type === 'response.output_text.delta' && d.delta === 'echo:')).toBe(true);
      } else {
        expect(last.error).toEqual(expect.objectContaining({ message: expect.any(String) }));
        expect(datas.some((d) => d.choices?.[0]?.delta?.content === 'echo:')).toBe(true);
      }
    },
  },
];

// Labels go through %s (vitest truncates long `$field` interpolations).
describe.each(MATRIX.map((c) => [c.label, c] as const))('%s', (_label, cell) => {
  const stream = cell.mode === 'stream';
  const scenarios = SCENARIOS.filter((s) => !s.only || s.only === cell.mode);
  it.each(scenarios.map((s) => [s.name, s] as const))('%s', async (_name, s) => {
    const caller = CALLERS[cell.caller];
    await s.run({
      cell,
      caller,
      stream,
      ask: (a) => caller.send(cell.model, a, stream),
      upstreamCalls: () => chatCalls(up, cell.upstream),
    });
  });
});
