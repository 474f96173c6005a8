/**
 * THE fake upstream of the tests: a real HTTP server on 127.0.0.1 that plays the providers' APIs as
 * strictly as the real ones (it refuses what they refuse, with their error shapes: upstream-rules.ts,
 * gemini-rules.ts), records every call, and answers each call as the test chooses. Bodies and streams are
 * written by upstream-wire.ts, or a format's own wire file (gemini-wire.ts, bedrock-wire.ts, dispatched from
 * OWN_WIRES);
 * the Responses API's stored state is responses-state.ts. Shares no code with src/.
 *
 *   POST /v1/chat/completions        OpenAI Chat Completions (Bearer key required)
 *   POST /v1/responses               OpenAI Responses (Bearer key; JSON, or SSE with `stream: true`; stored
 *                                    unless `store: false`, so previous_response_id and item references resolve)
 *   POST /v1/responses/input_tokens  Responses token counting ({object: 'response.input_tokens', input_tokens})
 *   GET /v1/responses/{id}           a stored response; DELETE: {id, object: 'response.deleted', deleted: true}
 *   GET /v1/responses/{id}/input_items  its input items (list object; `order`, `after`, `limit`)
 *   POST /v1/messages                Anthropic Messages (x-api-key or Bearer, and anthropic-version required)
 *   POST /v1/messages/count_tokens   Anthropic token counting ({input_tokens})
 *   POST /v1/embeddings              OpenAI embeddings (Bearer key required; answers embeddingsAnswer)
 *   GET /v1/models                   the model list (modelListBody): Anthropic's when the call carries
 *                                    anthropic-version (its key and version required), else OpenAI's (Bearer key)
 *   /v1beta/…                        the Gemini API (gemini-rules.ts: `models/{m}:generateContent`,
 *                                    `:streamGenerateContent?alt=sse`, `:countTokens`, GET `models`; x-goog-api-key,
 *                                    `geminiKey` when given), written by gemini-wire.ts
 *   /model/{id}/…, /async-invoke     the AWS Bedrock runtime (bedrock-rules.ts: POST `converse`, `converse-stream`
 *                                    (event-stream frames; in-stream errors as exception frames), `count-tokens`
 *                                    (`countTokens` gets `input.converse`), GET /async-invoke (endpoint 'models', the
 *                                    health check); the `aws` account's API key or SigV4), written by bedrock-wire.ts
 *   anything else                    404 in the format the path suggests (an unknown response id: 404 too)
 *
 * API
 *   const up = await startFakeUpstream({ answer?, usage?, countTokens?, accept?, name?, ... })
 *   up.url                     origin (OpenAI providers use `${up.url}/v1`, Anthropic ones `up.url`)
 *   up.received / up.calls     every call, oldest first (one array, two names); call.format is 'openai',
 *                              'responses', 'anthropic', 'gemini' or 'bedrock', call.endpoint names the route
 *   up.accepted / up.rejected  the calls answered 2xx / refused
 *   up.on(path) / up.last(path?)
 *   up.setHandler(h)           how calls are answered from now on: a Reply, or (call) => Reply | undefined
 *   up.script(...replies)      replies for the next calls, in order (a number: an error with that status)
 *   up.hold()                  every call from now on waits until the function returned is called
 *   up.responses               the stored Responses state (get(id), conversation(id), item(id))
 *   up.waitForCalls(n) / up.open (responses still open) / up.reset() (state included) / up.close()
 *
 * A Reply (undefined: the default answer, `options.answer`):
 *   Content                      an answer (text, thinking, tool calls, json, usage), JSON or stream as asked;
 *                                on the token-count and stored-response routes, their own answer instead
 *   { kind: 'json', body? }      a JSON body: `body` as given, or the content encoded; any status
 *   { kind: 'sse', events? }     a stream: `events` as given (SSE text or Bedrock frames), or the content encoded;
 *                                `delayMs` between events
 *   { kind: 'error', status? }   an error body in the called format (headers such as retry-after);
 *                                `inStream`: 200 and, after `after` events, the format's in-stream error
 *                                (Responses: an `error` event numbered after them)
 *   { kind: 'hang' }             never answers; with `after`, 200 and that many events first
 *   { kind: 'drop' }             destroys the socket before any byte; with `after` (or `events`), mid-stream
 *   { kind: 'held', until }      waits for `until`, then answers `then`
 *   { kind: 'raw', status, body } bytes as given
 * `after` counts the answer's stream events (0: a keep-alive comment only, nothing for Bedrock; 'body': all but
 * the closing ones, for Responses the terminal event); a non-streaming call gets half its JSON body instead.
 * A Responses answer the fake encodes itself and sends whole (200) is stored; bodies or events given
 * as they are, cut streams and errors are not.
 *
 * Default answer (strict): a forced tool choice → that tool called with an object sampled from its
 * schema (a Responses custom tool: the input 'sample'); structured output asked → JSON text sampled from
 * the schema; otherwise `echo: <last user text>`. Responses: thinking → a reasoning item (summary and
 * encrypted_content only when the request asks, as the real API), a call of a `custom` tool → a
 * custom_tool_call item, finish 'length' → an incomplete response (max_output_tokens).
 * Usage is never zero: input ≈ request characters / 4, output = words (+ 10 per tool call, + reasoning), unless
 * `usage` (per provider, settable on up.usage; `openai` serves both OpenAI APIs) or the content's usage says otherwise.
 * Embeddings calls get fakeEmbedding vectors (upstream-wire.ts), unless a reply with a kind says otherwise.
 */

import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { ResponsesStore } from './responses-state.js';
import {
  authRefusal,
  DEFAULT_REASONING,
  type Refusal,
  validateAnthropic,
  validateOpenAIChat,
  validateOpenAIEmbeddings,
  validateOpenAIResponses,
} from './upstream-rules.js';
import * as baseWire from './upstream-wire.js';
import {
  embeddingsJson,
  fakeEmbedding,
  KEEP_ALIVE,
  sealReasoning,
  type StreamStyle,
  type WireAnswer,
  type WireError,
  type WireFormat,
  type WireUsage,
  words,
} from './upstream-wire.js';
import {
  geminiContentCount,
  geminiConversation,
  geminiForcedTool,
  geminiLastUserText,
  geminiRefusal,
  geminiRoute,
  geminiSchema,
} from './gemini-rules.js';
import { geminiError, geminiJson, geminiModelList, geminiStream, geminiStreamError } from './gemini-wire.js';
import {
  AWS_TEST_ACCOUNT,
  type AwsTestAccount,
  bedrockChecker,
  bedrockConversation,
  bedrockEndpoint,
  bedrockForcedTool,
  bedrockLastUserText,
  bedrockModel,
  isBedrockPath,
  isBedrockStream,
} from './bedrock-rules.js';
import {
  BEDROCK_STREAM_TYPE,
  bedrockAsyncInvokeList,
  bedrockError,
  bedrockFrames,
  bedrockJson,
  bedrockRequestIdHeader,
  bedrockStreamError,
} from './bedrock-wire.js';

export type { WireFormat } from './upstream-wire.js';

// ---------------------------------------------------------------- wire formats written in files of their own

/** What a stream writes: SSE text, or a binary frame (Bedrock's event stream). */
export type Chunk = string | Uint8Array;

/** How one format is written on the wire (upstream-wire.ts writes openai, responses and anthropic). */
interface OwnWire {
  json(a: WireAnswer): unknown;
  stream(a: WireAnswer, style: StreamStyle): Chunk[];
  closingEvents: number;
  error(status: number, e: WireError, headers: Headers): { body: unknown; headers: Headers };
  streamError(message: string, type?: string): Chunk;
  modelList(): unknown;
  /** A stream's media type when it is not SSE (its head is then sent at once: no keep-alive comment exists). */
  streamType?: string;
  requestIdHeader?(id: string): Headers;
}

const OWN_WIRES: Partial<Record<WireFormat, OwnWire>> = {
  gemini: {
    json: geminiJson,
    stream: geminiStream,
    closingEvents: 1,
    error: geminiError,
    streamError: geminiStreamError,
    modelList: geminiModelList,
  },
  bedrock: {
    json: bedrockJson,
    stream: bedrockFrames,
    closingEvents: 2, // messageStop, metadata
    error: bedrockError,
    streamError: bedrockStreamError,
    modelList: bedrockAsyncInvokeList,
    streamType: BEDROCK_STREAM_TYPE,
    requestIdHeader: bedrockRequestIdHeader,
  },
};

const encodeJson = (f: WireFormat, a: WireAnswer) => OWN_WIRES[f]?.json(a) ?? baseWire.encodeJson(f, a);
const encodeStream = (f: WireFormat, a: WireAnswer, style: StreamStyle = {}) =>
  OWN_WIRES[f]?.stream(a, style) ?? baseWire.encodeStream(f, a, style);
const closingEvents = (f: WireFormat, a: WireAnswer, style: StreamStyle) =>
  OWN_WIRES[f]?.closingEvents ?? baseWire.closingEvents(f, a, style);
const errorOf = (f: WireFormat, status: number, e: WireError, headers: Headers) =>
  OWN_WIRES[f]?.error(status, e, headers) ?? { body: baseWire.errorBody(f, status, e), headers };
const streamError = (f: WireFormat, message: string, type: string | undefined, sequence: number) =>
  OWN_WIRES[f]?.streamError(message, type) ?? baseWire.streamError(f, message, type, sequence);
const requestIdHeader = (f: WireFormat, id: string) =>
  OWN_WIRES[f] ? (OWN_WIRES[f].requestIdHeader?.(id) ?? {}) : baseWire.requestIdHeader(f, id);
const modelListBody = (f: WireFormat) => OWN_WIRES[f]?.modelList() ?? baseWire.modelListBody(f);

export interface UpstreamCall {
  /** 1-based, per upstream. */
  n: number;
  /** The fake's name (fleets). */
  upstream: string;
  method: string;
  /** Without the query string. */
  path: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any;
  format: WireFormat;
  /**
   * `responses`: POST /v1/responses; `count_tokens`: Anthropic's count_tokens or POST /v1/responses/input_tokens;
   * `retrieve`, `delete`, `input_items`: GET / DELETE /v1/responses/{id}, GET /v1/responses/{id}/input_items;
   * `embeddings`: POST /v1/embeddings; `models`: GET /v1/models. Gemini: `chat` (generateContent and
   * streamGenerateContent), `count_tokens` (countTokens), `models` (GET /v1beta/models). Bedrock: `chat`
   * (converse, converse-stream), `count_tokens` (count-tokens), `models` (GET /async-invoke).
   */
  endpoint: Endpoint;
  /** performance.now() when the body had arrived. */
  at: number;
  /** HTTP status answered (200 until answered). */
  status: number;
  /** The refusal or error message, when refused. */
  error?: string;
  /** The bytes answered (body). */
  responseText: string;
}

export type Endpoint =
  | 'chat'
  | 'messages'
  | 'responses'
  | 'count_tokens'
  | 'retrieve'
  | 'delete'
  | 'input_items'
  | 'embeddings'
  | 'models'
  | 'other';

export interface ToolCallSpec {
  name: string;
  /**
   * The input object (streamed in 8-character pieces). A Responses `custom` tool's input is text:
   * `args` itself when a string, else its `input` string, else its JSON.
   */
  args?: unknown;
  /** Or the argument JSON in the exact pieces to stream. */
  pieces?: string[];
  id?: string;
}

/** An answer's content; every field optional (fields combine: thinking + text + tool calls). */
export interface Content {
  /** A string streams word by word; an array streams one delta per piece. */
  text?: string | string[];
  /**
   * Anthropic: a signed thinking block first. OpenAI chat: counted as reasoning tokens only. Responses:
   * a reasoning item first, with the text as its summary when `reasoning.summary` asks for one and an
   * encrypted_content when `include` asks for `reasoning.encrypted_content` (as the real API).
   */
  thinking?: string;
  toolCalls?: ToolCallSpec[];
  /** Structured output: JSON text, or the forced tool's input when a tool is forced. */
  json?: unknown;
  /** Gemini: the prompt blocked for this reason (promptFeedback.blockReason, no candidate); others ignore it. */
  blocked?: string;
  finish?: 'stop' | 'length';
  usage?: Partial<Omit<WireUsage, 'reasoning'>>;
  id?: string;
  model?: string;
}

type Headers = Record<string, string>;
type After = number | 'body';

export type Reply =
  | (Content & { kind?: undefined })
  | (Content & { kind: 'json'; status?: number; body?: unknown; headers?: Headers })
  | (Content & { kind: 'sse'; events?: Chunk[]; delayMs?: number; headers?: Headers })
  /** The content: what a stream sends before an in-stream error. */
  | (Content & {
      kind: 'error';
      /** Default 500 (200 in a stream). */
      status?: number;
      message?: string | ((call: UpstreamCall) => string);
      type?: string;
      code?: string | null;
      headers?: Headers;
      inStream?: boolean;
      after?: number;
    })
  | (Content & { kind: 'hang' | 'drop'; after?: After; events?: Chunk[] })
  | { kind: 'held'; until: Promise<unknown>; then?: Reply }
  | { kind: 'raw'; status: number; body: string; headers?: Headers };

export type Handler = (call: UpstreamCall) => Reply | undefined | Promise<Reply | undefined>;

/**
 * Token counts as each API reports them: OpenAI's prompt INCLUDES cached, Anthropic's input EXCLUDES the cache.
 * `openai` serves both OpenAI formats (Responses: input_tokens = prompt).
 */
export interface FormatUsage {
  openai?: { prompt: number; cached: number; completion: number };
  anthropic?: { input: number; cacheRead: number; cacheWrite: number; output: number };
  /** Gemini: promptTokenCount includes the cached tokens, candidatesTokenCount excludes the thoughts. */
  gemini?: { prompt: number; cached: number; candidates: number; thoughts: number };
  /** Bedrock's inputTokens, as Anthropic's, excludes the cache. */
  bedrock?: { input: number; cacheRead: number; cacheWrite: number; output: number };
}

export interface FakeUpstreamOptions {
  /** Names the calls and the ids (fleets). Default 'fake'. */
  name?: string;
  /** The default answer. Default: strictAnswer. */
  answer?: (call: UpstreamCall) => Content;
  /** The initial handler (as setHandler). */
  handler?: Handler | Reply;
  /** Fixed usage per format for every answer that sets none. */
  usage?: FormatUsage;
  /** What count_tokens answers. Default: request characters / 4. */
  countTokens?: (body: any) => number;
  /** Model names that behave as OpenAI reasoning models. Default /^(o\d|gpt-5)/. */
  reasoningModels?: RegExp;
  /** Pause between stream events, ms (default 0). */
  streamDelayMs?: number;
  /** OpenAI streams interleave parallel calls' argument pieces. */
  interleave?: boolean;
  /**
   * Quirks a test opts into, each named for what it lets through; by default the fake refuses
   * everything the real APIs refuse. `missingKey`: calls without a provider key; `unknownFields`:
   * top-level fields the APIs do not know; `anyBody`: any JSON body (unknown roles, blocks, values).
   * For tests that check the gateway forwards what it does not know unchanged.
   */
  accept?: { missingKey?: boolean; unknownFields?: boolean; anyBody?: boolean };
  /** The one key the Gemini routes take in x-goog-api-key (another: 400 API_KEY_INVALID). Default: any. */
  geminiKey?: string;
  /** The AWS account the Bedrock routes serve (region, credentials, API key). Default AWS_TEST_ACCOUNT. */
  aws?: AwsTestAccount;
  /** Shared across a fleet: upstream names in call order, and every call. */
  sequence?: string[];
  allCalls?: UpstreamCall[];
}

export interface FakeUpstream {
  name: string;
  url: string;
  received: UpstreamCall[];
  calls: UpstreamCall[];
  readonly accepted: UpstreamCall[];
  readonly rejected: UpstreamCall[];
  /** Usage per format answers report unless they set their own (reset() restores the initial one). */
  usage: FormatUsage;
  /** The Responses API state: the responses stored so far (reset() forgets them). */
  responses: ResponsesStore;
  on(path: string): UpstreamCall[];
  last(path?: string): UpstreamCall | undefined;
  /** A number: an error with that status. */
  setHandler(h: Handler | Reply | number | undefined): void;
  /** Replies for the next calls, in order; after them the handler. A number: an error with that status. */
  script(...replies: Array<Reply | number>): void;
  /** Every call from now on waits (once recorded) until the function returned is called. */
  hold(): () => void;
  /** Resolves once at least `n` calls have arrived; rejects after `timeoutMs`. */
  waitForCalls(n: number, timeoutMs?: number): Promise<void>;
  /** Responses still open (held, streaming or hanging). */
  readonly open: number;
  /** Forgets the calls, the handler, the script, holds and usage changes. */
  reset(): void;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const toHandler = (h: Handler | Reply | number | undefined): Handler | undefined =>
  h === undefined || typeof h === 'function' ? h : () => toReply(h);
const toReply = (r: Reply | number): Reply => (typeof r === 'number' ? { kind: 'error', status: r } : r);
const copyUsage = (u: FormatUsage): FormatUsage => ({
  ...(u.openai ? { openai: { ...u.openai } } : {}),
  ...(u.anthropic ? { anthropic: { ...u.anthropic } } : {}),
  ...(u.gemini ? { gemini: { ...u.gemini } } : {}),
  ...(u.bedrock ? { bedrock: { ...u.bedrock } } : {}),
});

export async function startFakeUpstream(opts: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const name = opts.name ?? 'fake';
  const reasoning = opts.reasoningModels ?? DEFAULT_REASONING;
  const defaultAnswer = opts.answer ?? strictAnswer;
  const received: UpstreamCall[] = [];
  let handler = toHandler(opts.handler);
  let queue: Reply[] = [];
  let gate: Promise<void> | undefined;
  const usage = copyUsage(opts.usage ?? {});
  const responses = new ResponsesStore();
  const open = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const checkBedrock = bedrockChecker(opts.aws ?? AWS_TEST_ACCOUNT);

  const server: Server = createServer(async (req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const raw = Buffer.concat(parts);
    const rawBody = raw.toString('utf8');
    const url = req.url ?? '';
    const path = url.split('?')[0]!;
    // Both APIs list models at /v1/models; only Anthropic's callers send anthropic-version.
    const anthropicList = path === '/v1/models' && req.headers['anthropic-version'] !== undefined;
    const format: WireFormat = path.startsWith('/v1beta/')
      ? 'gemini'
      : isBedrockPath(path)
        ? 'bedrock'
        : path.startsWith('/v1/messages') || anthropicList
          ? 'anthropic'
          : path.startsWith('/v1/responses')
            ? 'responses'
            : 'openai';
    let body: any;
    let parsed = true;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      parsed = false;
    }
    const endpoint = endpointOf(req.method ?? '', path);
    const call: UpstreamCall = {
      n: received.length + 1,
      upstream: name,
      method: req.method ?? '',
      path,
      url,
      headers: req.headers,
      rawBody,
      body,
      format,
      endpoint,
      at: performance.now(),
      status: 200,
      responseText: '',
    };
    received.push(call);
    opts.allCalls?.push(call);
    opts.sequence?.push(name);
    const out = new Output(res, call, format, `req_${name}_${call.n}`);

    const refusal =
      format === 'gemini'
        ? geminiRefusal({ ...call, parsed, key: opts.geminiKey, accept: opts.accept ?? {} })
        : format === 'bedrock'
          ? await checkBedrock(call, raw, parsed, opts.accept ?? {})
          : check(call, parsed, reasoning, opts.accept ?? {}, responses);
    if (refusal) return out.error(refusal.status ?? 400, refusal);
    if (gate) await gate;
    const reply = queue.shift() ?? (await handler?.(call));
    const ctx: AnswerContext = { call, usage, defaultAnswer, countTokens: opts.countTokens, opts, responses };
    await answer(out, reply, ctx);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const byPath = (p: string) => received.filter((r) => r.path === p);

  return {
    name,
    url: `http://127.0.0.1:${port}`,
    received,
    calls: received,
    get accepted() {
      return received.filter((r) => r.status < 300);
    },
    get rejected() {
      return received.filter((r) => r.status >= 300);
    },
    usage,
    responses,
    on: byPath,
    last: (p) => (p === undefined ? received.at(-1) : byPath(p).at(-1)),
    setHandler(h) {
      handler = toHandler(h);
    },
    script(...replies) {
      queue = replies.map(toReply);
    },
    hold() {
      let release!: () => void;
      gate = new Promise<void>((r) => (release = r));
      const mine = gate;
      return () => {
        if (gate === mine) gate = undefined;
        release();
      };
    },
    async waitForCalls(n, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} upstream calls, got ${received.length}`);
        await sleep(5);
      }
    },
    get open() {
      return open.size;
    },
    reset() {
      received.length = 0;
      handler = toHandler(opts.handler);
      queue = [];
      gate = undefined;
      delete usage.openai;
      delete usage.anthropic;
      delete usage.gemini;
      delete usage.bedrock;
      Object.assign(usage, copyUsage(opts.usage ?? {}));
      responses.clear();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const RESPONSE_PATH = /^\/v1\/responses\/([^/]+)(\/input_items)?$/;

function endpointOf(method: string, path: string): Endpoint {
  if (path.startsWith('/v1beta/')) return geminiRoute(method, path)?.endpoint ?? 'other';
  if (isBedrockPath(path)) return bedrockEndpoint(method, path);
  const route = `${method} ${path}`;
  if (route === 'POST /v1/chat/completions') return 'chat';
  if (route === 'POST /v1/messages') return 'messages';
  if (route === 'POST /v1/responses') return 'responses';
  if (route === 'POST /v1/messages/count_tokens' || route === 'POST /v1/responses/input_tokens') return 'count_tokens';
  if (route === 'POST /v1/embeddings') return 'embeddings';
  if (route === 'GET /v1/models') return 'models';
  const m = RESPONSE_PATH.exec(path);
  if (m?.[2] && method === 'GET') return 'input_items';
  if (m && !m[2] && method === 'GET') return 'retrieve';
  if (m && !m[2] && method === 'DELETE') return 'delete';
  return 'other';
}

/** The response id a retrieve / delete / input_items path names. */
const responseIdOf = (path: string): string => RESPONSE_PATH.exec(path)?.[1] ?? '';

function responseNotFound(id: string): Refusal {
  return { status: 404, message: `Response with id '${id}' not found.`, type: 'invalid_request_error' };
}

function check(
  call: UpstreamCall,
  parsed: boolean,
  reasoning: RegExp,
  accept: NonNullable<FakeUpstreamOptions['accept']>,
  responses: ResponsesStore,
): Refusal | undefined {
  if (call.endpoint === 'other') {
    const type = call.format === 'anthropic' ? 'not_found_error' : 'invalid_request_error';
    return { status: 404, message: `Not found: ${call.method} ${call.path}`, type };
  }
  if (!accept.missingKey) {
    const auth = authRefusal(call.format, call.headers);
    if (auth) return auth;
  }
  if (call.endpoint === 'models') return undefined;
  if (['retrieve', 'delete', 'input_items'].includes(call.endpoint)) {
    const id = responseIdOf(call.path);
    return responses.get(id) ? undefined : responseNotFound(id);
  }
  if (!parsed) {
    return {
      message:
        call.format !== 'anthropic'
          ? "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your " +
            'HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)'
          : 'There was an issue with your request: invalid JSON',
    };
  }
  if (accept.anyBody) return undefined;
  const extra = accept.unknownFields === true;
  if (call.endpoint === 'embeddings') return validateOpenAIEmbeddings(call.body, extra);
  if (call.format === 'openai') return validateOpenAIChat(call.body, reasoning, extra);
  if (call.format === 'responses') {
    const kind = call.endpoint === 'count_tokens' ? 'input_tokens' : 'create';
    return validateOpenAIResponses(call.body, reasoning, extra, responses, kind);
  }
  const kind = call.endpoint === 'count_tokens' ? 'count_tokens' : 'messages';
  return validateAnthropic(call.body, call.headers, kind, extra);
}

/** Writes one response, keeping the bytes and the status on the call. */
class Output {
  constructor(
    readonly res: ServerResponse,
    readonly call: UpstreamCall,
    readonly format: WireFormat,
    readonly requestId: string,
  ) {}
  head(status: number, headers: Headers): void {
    this.call.status = status;
    this.res.writeHead(status, { ...requestIdHeader(this.format, this.requestId), ...headers });
  }
  /** Text, or a binary frame (Bedrock), kept on the call as latin1 (a character per byte). */
  write(s: Chunk): void {
    if (this.res.destroyed) return;
    this.call.responseText += typeof s === 'string' ? s : Buffer.from(s).toString('latin1');
    this.res.write(s);
  }
  end(s: Chunk = ''): void {
    this.write(s);
    if (!this.res.destroyed) this.res.end();
  }
  json(status: number, body: unknown, headers: Headers = {}): void {
    this.head(status, { 'content-type': 'application/json', ...headers });
    this.end(JSON.stringify(body));
  }
  error(status: number, e: Refusal, headers: Headers = {}): void {
    this.call.error = e.message;
    const written = errorOf(this.format, status, { ...e, requestId: this.requestId }, headers);
    this.json(status, written.body, written.headers);
  }
  /** A stream's head: SSE, or a format's own stream type (Bedrock's event stream), sent at once. */
  sseHead(headers: Headers = {}): void {
    const type = OWN_WIRES[this.format]?.streamType;
    if (type === undefined) {
      this.head(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
    } else {
      this.head(200, { 'content-type': type, ...headers });
      this.res.flushHeaders();
    }
  }
  async events(events: Chunk[], delayMs = 0): Promise<void> {
    for (const e of events) {
      if (this.res.destroyed) return;
      this.write(e);
      if (delayMs) await sleep(delayMs);
    }
  }
  async drop(): Promise<void> {
    await sleep(20);
    this.res.socket?.destroy();
  }
}

interface AnswerContext {
  call: UpstreamCall;
  usage: FormatUsage;
  defaultAnswer: (call: UpstreamCall) => Content;
  countTokens?: (body: any) => number;
  opts: FakeUpstreamOptions;
  responses: ResponsesStore;
}

async function answer(out: Output, reply: Reply | undefined, ctx: AnswerContext): Promise<void> {
  const { call } = ctx;
  const stream = streams(call);
  const style = { includeUsage: call.body?.stream_options?.include_usage === true, interleave: ctx.opts.interleave };
  const wire = (c: Content) => toWire(c, ctx);
  const content = (r: Content & { kind?: string }): Content =>
    hasContent(r) ? r : { ...ctx.defaultAnswer(call), ...pickMeta(r) };
  const delay = ctx.opts.streamDelayMs ?? 0;
  /** A Responses answer the fake wrote whole is stored, as the API stores what it answered. */
  const keep = (a: WireAnswer) => {
    if (call.endpoint === 'responses' && !out.res.destroyed)
      ctx.responses.save(call.body, encodeJson('responses', a) as Record<string, any>);
  };

  if (reply === undefined || reply.kind === undefined) {
    // Content is for model calls: the other endpoints answer from their own data unless a kind says otherwise.
    if (call.endpoint !== 'chat' && call.endpoint !== 'messages' && call.endpoint !== 'responses') {
      const body = endpointAnswer(ctx);
      // A response deleted while this call was held is gone by the time it answers.
      return body === undefined ? out.error(404, responseNotFound(responseIdOf(call.path))) : out.json(200, body);
    }
    const a = wire(content(reply ?? {}));
    if (!stream) {
      out.json(200, encodeJson(call.format, a));
      return keep(a);
    }
    out.sseHead();
    await out.events(encodeStream(call.format, a, style), delay);
    out.end();
    return keep(a);
  }
  switch (reply.kind) {
    case 'json': {
      if (reply.body !== undefined) return out.json(reply.status ?? 200, reply.body, reply.headers);
      const a = wire(content(reply));
      out.json(reply.status ?? 200, encodeJson(call.format, a), reply.headers);
      if ((reply.status ?? 200) === 200) keep(a);
      return;
    }
    case 'sse': {
      out.sseHead(reply.headers);
      if (reply.events !== undefined) {
        await out.events(reply.events, reply.delayMs ?? delay);
        return out.end();
      }
      const a = wire(content(reply));
      await out.events(encodeStream(call.format, a, style), reply.delayMs ?? delay);
      out.end();
      return keep(a);
    }
    case 'error': {
      const status = reply.status ?? 500;
      const from = ctx.opts.name ? ` from ${ctx.opts.name}` : '';
      const message =
        typeof reply.message === 'function' ? reply.message(call) : (reply.message ?? `scripted ${status}${from}`);
      if (!reply.inStream) return out.error(status, { ...reply, message }, reply.headers);
      out.call.error = message;
      out.sseHead(reply.headers);
      const sent = encodeStream(call.format, wire(content(reply)), style).slice(0, reply.after ?? 0);
      await out.events(sent);
      return out.end(streamError(call.format, message, reply.type, sent.length));
    }
    case 'hang':
    case 'drop': {
      if (reply.after !== undefined || reply.events !== undefined) {
        const a = wire(content(reply));
        if (reply.events === undefined && !stream) {
          // A non-streaming call cut short: half its JSON body.
          const text = JSON.stringify(encodeJson(call.format, a));
          out.head(200, { 'content-type': 'application/json' });
          out.write(text.slice(0, Math.floor(text.length / 2)));
        } else {
          const all = encodeStream(call.format, a, style);
          const n = reply.after === 'body' ? all.length - closingEvents(call.format, a, style) : reply.after;
          const events = reply.events ?? (n === 0 ? keepAlive(call.format) : all.slice(0, n));
          out.sseHead();
          await out.events(events, delay);
        }
      }
      if (reply.kind === 'drop') {
        if (reply.after === undefined && reply.events === undefined) out.res.socket?.destroy();
        else await out.drop();
      }
      return;
    }
    case 'held':
      await reply.until;
      return answer(out, reply.then, ctx);
    case 'raw':
      out.head(reply.status, reply.headers ?? {});
      return out.end(reply.body);
  }
}

/**
 * The default answer of a call that is not a model call: a token count, or the Responses API's
 * stored state (undefined: that response is not stored).
 */
function endpointAnswer(ctx: AnswerContext): unknown {
  const { call, responses } = ctx;
  const id = responseIdOf(call.path);
  switch (call.endpoint) {
    case 'count_tokens': {
      // Bedrock's CountTokens counts the Converse request under input.converse.
      const counted = call.format === 'bedrock' ? (call.body.input.converse ?? call.body.input) : call.body;
      const input_tokens = (ctx.countTokens ?? estimateTokens)(counted);
      if (call.format === 'gemini') return { totalTokens: input_tokens };
      if (call.format === 'bedrock') return { inputTokens: input_tokens };
      return call.format === 'responses' ? { object: 'response.input_tokens', input_tokens } : { input_tokens };
    }
    case 'retrieve':
      return responses.get(id);
    case 'delete':
      return responses.delete(id) ? { id, object: 'response.deleted', deleted: true } : undefined;
    case 'input_items':
      return responses.inputItemList(id, new URL(call.url, 'http://fake').searchParams);
    case 'embeddings':
      return embeddingsAnswer(call.body, ctx.usage.openai?.prompt);
    case 'models':
      return modelListBody(call.format);
    default:
      throw new Error(`no default answer for ${call.method} ${call.path}`);
  }
}

const CONTENT_KEYS = ['text', 'thinking', 'toolCalls', 'json', 'blocked'] as const;
const hasContent = (r: Content) => CONTENT_KEYS.some((k) => r[k] !== undefined);
const pickMeta = (r: Content): Content => ({
  ...(r.usage ? { usage: r.usage } : {}),
  ...(r.finish ? { finish: r.finish } : {}),
  ...(r.id ? { id: r.id } : {}),
  ...(r.model ? { model: r.model } : {}),
});

/**
 * The fake's answer to a valid embeddings body: fakeEmbedding per input (of the `dimensions` asked),
 * in the `encoding_format` asked; prompt tokens `promptTokens`, else about characters / 4 per text
 * (at least 1) plus the length of each token list.
 */
export function embeddingsAnswer(body: any, promptTokens?: number): unknown {
  const input = body.input;
  const inputs: Array<string | number[]> =
    typeof input === 'string' || typeof input[0] === 'number' ? [input] : (input as Array<string | number[]>);
  const tokens =
    promptTokens ??
    inputs.reduce((n, x) => n + (typeof x === 'string' ? Math.max(1, Math.ceil(x.length / 4)) : x.length), 0);
  const vectors = inputs.map((x) => fakeEmbedding(x, body.dimensions));
  return embeddingsJson(body.model, vectors, tokens, body.encoding_format ?? 'float');
}

function estimateTokens(body: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(body ?? '').length / 4));
}

const ID_PREFIX: Record<WireFormat, { answer: string; call: string }> = {
  openai: { answer: 'chatcmpl-', call: 'call_' },
  responses: { answer: 'resp_', call: 'call_' },
  anthropic: { answer: 'msg_', call: 'toolu_' },
  // Gemini calls have no id; its responseId is an opaque string.
  gemini: { answer: 'gemini-', call: '' },
  bedrock: { answer: 'converse-', call: 'tooluse_' },
};

/** Whether the call asked for a stream: Gemini and Bedrock by their path, the others by `stream: true`. */
const streams = (call: UpstreamCall): boolean =>
  call.format === 'gemini'
    ? geminiRoute(call.method, call.path)?.stream === true
    : call.format === 'bedrock'
      ? isBedrockStream(call.path)
      : call.body?.stream === true;

/** An SSE stream cut before its first event sends a keep-alive comment; an event stream, nothing. */
const keepAlive = (format: WireFormat): Chunk[] => (OWN_WIRES[format]?.streamType ? [] : [KEEP_ALIVE]);

/** The model a call names: Gemini's and Bedrock's are in the path. */
const modelOf = (call: UpstreamCall): string =>
  call.format === 'gemini'
    ? (geminiRoute(call.method, call.path)?.model ?? 'unknown')
    : call.format === 'bedrock'
      ? bedrockModel(call.path) || 'unknown'
      : String(call.body?.model ?? 'unknown');

/** Usage fixed for the call's format (FormatUsage), in neutral counts. */
function fixedUsage(format: WireFormat, usage: FormatUsage): Partial<WireUsage> | undefined {
  if (format === 'anthropic') return usage.anthropic;
  if (format === 'bedrock') return usage.bedrock;
  if (format === 'gemini') {
    const g = usage.gemini;
    if (!g) return undefined;
    return {
      input: g.prompt - g.cached,
      cacheRead: g.cached,
      output: g.candidates + g.thoughts,
      reasoning: g.thoughts,
    };
  }
  const o = usage.openai;
  return o && { input: o.prompt - o.cached, cacheRead: o.cached, output: o.completion };
}

/** A Responses custom tool's input text (ToolCallSpec.args). */
const customInput = (args: unknown): string =>
  typeof args === 'string'
    ? args
    : isObj(args) && typeof args.input === 'string'
      ? args.input
      : JSON.stringify(args ?? {});

function toWire(c: Content, ctx: AnswerContext): WireAnswer {
  const { call } = ctx;
  const { format, body } = call;
  const tag = `${ctx.opts.name ?? 'fake'}${call.n}`;
  let text = c.text;
  let toolCalls = c.toolCalls ?? [];
  if (c.json !== undefined) {
    const forced = forcedTool(format, body);
    if (forced && toolCalls.length === 0) toolCalls = [{ name: forced.name, args: c.json }];
    else text = JSON.stringify(c.json);
  }
  const pieces = typeof text === 'string' ? (words(text).length > 0 ? words(text) : text ? [text] : []) : (text ?? []);
  const customTools = format === 'responses' ? responsesTools(body, 'custom') : [];
  const calls = toolCalls.map((t, i) => {
    const custom = customTools.some((x) => x.name === t.name);
    const json = custom ? customInput(t.args) : JSON.stringify(t.args ?? {});
    const slices = Array.from({ length: Math.ceil(json.length / 8) }, (_, k) => json.slice(k * 8, k * 8 + 8));
    return { id: t.id ?? `${ID_PREFIX[format].call}${tag}_${i}`, name: t.name, args: t.pieces ?? slices, custom };
  });
  const fixed = fixedUsage(format, ctx.usage);
  const reasoningTokens = fixed?.reasoning ?? (c.thinking ? Math.max(1, words(c.thinking).length) : 0);
  const outputWords = words(pieces.join('')).length;
  return {
    id: c.id ?? `${ID_PREFIX[format].answer}${tag}`,
    model: c.model ?? modelOf(call),
    thinking:
      (format === 'anthropic' || format === 'gemini' || format === 'bedrock') && c.thinking !== undefined
        ? { pieces: words(c.thinking), signature: `sig_${Buffer.from(c.thinking).toString('base64').slice(0, 16)}` }
        : undefined,
    reasoning: format === 'responses' && c.thinking !== undefined ? responsesReasoning(c.thinking, body) : undefined,
    request: format === 'responses' || format === 'gemini' ? body : undefined,
    blocked: format === 'gemini' ? c.blocked : undefined,
    text: pieces,
    toolCalls: calls,
    finish: calls.length > 0 ? 'tool_calls' : (c.finish ?? 'stop'),
    usage: {
      input: c.usage?.input ?? fixed?.input ?? estimateTokens(body),
      output: c.usage?.output ?? fixed?.output ?? Math.max(1, outputWords + 10 * calls.length + reasoningTokens),
      cacheRead: c.usage?.cacheRead ?? fixed?.cacheRead ?? 0,
      cacheWrite: c.usage?.cacheWrite ?? fixed?.cacheWrite ?? 0,
      reasoning: reasoningTokens,
    },
  };
}

/** The reasoning item the real API returns: a summary only when asked, encrypted_content only when included. */
function responsesReasoning(thinking: string, body: any): WireAnswer['reasoning'] {
  const summary = (body?.reasoning?.summary ?? body?.reasoning?.generate_summary ?? null) !== null;
  const encrypted = Array.isArray(body?.include) && body.include.includes('reasoning.encrypted_content');
  return {
    summary: summary ? words(thinking) : [],
    encrypted: encrypted ? sealReasoning(thinking) : undefined,
  };
}

/** The request's function or custom tools (Responses). */
function responsesTools(body: any, type: 'function' | 'custom'): any[] {
  return (Array.isArray(body?.tools) ? body.tools : []).filter((t: any) => t?.type === type);
}

// ---------------------------------------------------------------- default answers

const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The strict default: a forced tool is called, structured output is sampled, anything else echoed. */
export function strictAnswer(call: UpstreamCall): Content {
  const forced = forcedTool(call.format, call.body);
  if (forced)
    return { toolCalls: [{ name: forced.name, args: forced.custom ? 'sample' : sampleFromSchema(forced.schema) }] };
  const schema = structuredSchema(call.format, call.body);
  if (schema !== undefined) return { json: sampleFromSchema(schema) };
  const userText = call.format === 'bedrock' ? bedrockLastUserText(call.body) : lastUserText(call.body);
  return { text: `echo: ${userText}` };
}

/** A value that satisfies a JSON schema (enough of JSON Schema for tool inputs and structured output). */
export function sampleFromSchema(schema: unknown, defs: Record<string, unknown> = {}, depth = 0): unknown {
  if (!isObj(schema) || depth > 12) return {};
  const allDefs = {
    ...defs,
    ...(isObj(schema.$defs) ? schema.$defs : {}),
    ...(isObj(schema.definitions) ? schema.definitions : {}),
  };
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref.split('/').at(-1)!;
    return sampleFromSchema(allDefs[ref], allDefs, depth + 1);
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key]) && schema[key].length > 0) {
      const notNull = schema[key].find((s: any) => !(isObj(s) && s.type === 'null')) ?? schema[key][0];
      return sampleFromSchema(notNull, allDefs, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return Object.assign({}, ...schema.allOf.map((s: unknown) => sampleFromSchema(s, allDefs, depth + 1)));
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'string': {
      const byFormat: Record<string, string> = {
        'date-time': '2024-01-01T00:00:00Z',
        email: 'a@example.com',
        uri: 'https://example.com',
      };
      return byFormat[schema.format] ?? 'sample';
    }
    case 'integer':
      return Math.max(1, typeof schema.minimum === 'number' ? Math.ceil(schema.minimum) : 1);
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1.5;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const n = Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1);
      return Array.from({ length: n }, () => sampleFromSchema(schema.items, allDefs, depth + 1));
    }
    default: {
      const out: Record<string, unknown> = {};
      if (isObj(schema.properties)) {
        for (const [k, v] of Object.entries(schema.properties)) out[k] = sampleFromSchema(v, allDefs, depth + 1);
      }
      return out;
    }
  }
}

/** Text of the last user message (string content or its text parts), in any format. */
export function lastUserText(body: any): string {
  if (Array.isArray(body?.contents) || body?.generateContentRequest !== undefined) return geminiLastUserText(body);
  if (body?.messages === undefined && body?.input !== undefined) return lastResponsesUserText(body.input);
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m?.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      const t = m.content
        .filter((b: any) => b?.type === 'text')
        .map((b: any) => b.text)
        .join(' ');
      if (t) return t;
      const r = m.content.find((b: any) => b?.type === 'tool_result');
      if (r) return typeof r.content === 'string' ? `tool result: ${r.content}` : 'tool result';
    }
  }
  return '';
}

/** Responses: the input's last user text, or the tool results it ends with. */
function lastResponsesUserText(input: unknown): string {
  const items: any[] =
    typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input : [];
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it?.type === 'function_call_output' || it?.type === 'custom_tool_call_output')
      return `tool result: ${textOf(it.output)}`;
    if (it?.role === 'user') return textOf(it.content);
  }
  return '';
}

/** The schema the request demands an answer in, if any. */
function structuredSchema(format: WireFormat, body: any): unknown | undefined {
  if (format === 'gemini') return geminiSchema(body);
  // Converse has no structured output field the gateway sends: a forced tool carries it.
  if (format === 'bedrock') return undefined;
  if (format === 'responses') {
    const f = body?.text?.format;
    if (f?.type === 'json_schema') return f.schema ?? {};
    if (f?.type === 'json_object') return { type: 'object', properties: { ok: { type: 'boolean' } } };
    return undefined;
  }
  if (format === 'openai') {
    const rf = body?.response_format;
    if (rf?.type === 'json_schema') return rf.json_schema?.schema ?? {};
    if (rf?.type === 'json_object') return { type: 'object', properties: { ok: { type: 'boolean' } } };
    return undefined;
  }
  return body?.output_config?.format?.schema;
}

function forcedTool(format: WireFormat, body: any): { name: string; schema: unknown; custom?: boolean } | undefined {
  if (format === 'gemini') return geminiForcedTool(body);
  if (format === 'bedrock') return bedrockForcedTool(body);
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
  const tc = body?.tool_choice;
  let name: string | undefined;
  if (format === 'responses') {
    const callable = [...responsesTools(body, 'function'), ...responsesTools(body, 'custom')];
    if (tc === 'required') name = callable[0]?.name;
    else if (tc?.type === 'function' || tc?.type === 'custom') name = tc.name;
    else if (tc?.type === 'allowed_tools' && tc.mode === 'required')
      name = (Array.isArray(tc.tools) ? tc.tools : []).find((x: any) => callable.some((t) => t.name === x?.name))?.name;
    const t = callable.find((x) => x.name === name);
    return t ? { name: t.name, schema: t.parameters, custom: t.type === 'custom' } : undefined;
  }
  if (format === 'openai') {
    if (tc === 'required') name = tools[0]?.function?.name;
    else if (tc?.type === 'function') name = tc.function?.name;
    const t = tools.find((x) => x.function?.name === name);
    return t ? { name: t.function.name, schema: t.function.parameters } : undefined;
  }
  if (tc?.type === 'any') name = tools.find((t) => t.input_schema)?.name;
  else if (tc?.type === 'tool') name = tc.name;
  const t = tools.find((x) => x.name === name);
  return t ? { name: t.name, schema: t.input_schema } : undefined;
}

/** `you said: <last user text>` (or `hello`), with the usage the format tests count on. */
export function youSaid(call: UpstreamCall): Content {
  const msgs: any[] = Array.isArray(call.body?.messages) ? call.body.messages : [];
  const last = [...msgs].reverse().find((m) => m?.role === 'user');
  const text = typeof last?.content === 'string' ? `you said: ${last.content}` : 'hello';
  if (call.body?.stream !== true) return { text, usage: { input: 11, output: 2 } };
  return { text, usage: { input: 8, cacheRead: 3, output: words(text).length } };
}

/** An answer written out in a format, for replies a test assembles itself (`model` default 'unknown'). */
export function answerBody(format: WireFormat, c: Content): unknown {
  return encodeJson(format, standalone(format, c));
}

/** The SSE events of an answer (Bedrock's binary frames: bedrockFrames in bedrock-wire.ts). */
export function answerEvents(
  format: Exclude<WireFormat, 'bedrock'>,
  c: Content,
  style: { includeUsage?: boolean } = {},
): string[] {
  return encodeStream(format, standalone(format, c), style) as string[];
}

/** ConverseStream's event-stream frames of an answer (bedrock-wire.ts). */
export function answerFrames(c: Content): Buffer[] {
  return bedrockFrames(standalone('bedrock', c));
}

function standalone(format: WireFormat, c: Content): WireAnswer {
  const call = { format, body: { model: c.model ?? 'unknown' }, n: 1 } as UpstreamCall;
  const ctx = { call, usage: {}, defaultAnswer: strictAnswer, opts: { name: 'fake' }, responses: new ResponsesStore() };
  return toWire(c, ctx);
}

// ---------------------------------------------------------------- scripted conversations

export const TOOL_CALL_TOKENS = 10;
export const COUNT_TOKENS_BASE = 1000;

/**
 * Answers scripted by the conversation, so one scenario list works whichever format the gateway
 * speaks upstream (the last user text decides):
 *   default              → `echo: <last user text>`, prefixed `[sys:<system>] ` when a system prompt was sent
 *   contains `weather`   → one tool call get_weather {"city":"Paris"}, no text
 *   contains `parallel`  → two calls get_weather Paris, Rome (OpenAI streams interleave their arguments)
 *   last message is a tool result → `tool said: <result text>`
 *   max_tokens < words   → the first max_tokens words, finish `length` / stop_reason `max_tokens`
 *   contains `fail NNN`  → HTTP NNN with the format's error body (429: retry-after 7)
 *   contains `cut`       → a stream that starts (first text delta), then an in-stream error
 * Usage: 16 input and 4 cache-read tokens (OpenAI prompt_tokens 20), output one per word plus
 * TOOL_CALL_TOKENS per call; count_tokens answers COUNT_TOKENS_BASE + messages.
 */
export const SCRIPTED: FakeUpstreamOptions = {
  handler: scripted,
  countTokens: (body) =>
    COUNT_TOKENS_BASE +
    (Array.isArray(body?.messages)
      ? body.messages.length
      : Array.isArray(body?.input)
        ? body.input.length
        : geminiContentCount(body)),
  interleave: true,
};

function scripted(call: UpstreamCall): Reply | undefined {
  if (!['chat', 'messages', 'responses'].includes(call.endpoint)) return undefined;
  const c = conversation(call.format, call.body);
  const usage = (output: number) => ({ input: 16, cacheRead: 4, output });
  /** Each word with the space before it, as streamed. */
  const say = (text: string, max = c.maxTokens) => {
    const all = text.split(' ');
    const kept = max !== undefined && max < all.length ? all.slice(0, max) : all;
    const finish = kept.length < all.length ? ('length' as const) : ('stop' as const);
    return { text: kept.map((w, i) => (i === 0 ? w : ` ${w}`)), finish, usage: usage(kept.length) };
  };
  if (c.toolResult !== undefined) return say(`tool said: ${c.toolResult}`);
  const fail = /fail (\d{3})/.exec(c.lastUserText);
  if (fail) {
    const status = Number(fail[1]);
    return { kind: 'error', status, headers: status === 429 ? { 'retry-after': '7' } : {} };
  }
  const cities = c.lastUserText.includes('parallel')
    ? ['Paris', 'Rome']
    : c.lastUserText.includes('weather')
      ? ['Paris']
      : [];
  if (cities.length > 0) {
    const toolCalls = cities.map((city) => ({ name: 'get_weather', pieces: thirds(JSON.stringify({ city })) }));
    return { toolCalls, usage: usage(TOOL_CALL_TOKENS * cities.length) };
  }
  const reply = `${c.system ? `[sys:${c.system}] ` : ''}echo: ${c.lastUserText}`;
  if (!c.lastUserText.includes('cut')) return say(reply);
  // A non-streaming request cannot fail half-way: a plain server error.
  if (!streams(call)) return { kind: 'error', status: 500 };
  // In-stream errors after the first text delta (OpenAI: role chunk; Anthropic: message_start, ping, block start;
  // Responses: created, in_progress, output_item.added, content_part.added; Bedrock: messageStart).
  const [message, type, after] =
    call.format === 'anthropic'
      ? ['Overloaded', 'overloaded_error', 4]
      : call.format === 'bedrock'
        ? ['boom', 'internalServerException', 2]
        : ['boom', 'server_error', call.format === 'responses' ? 5 : 2];
  return { kind: 'error', inStream: true, message, type, after, ...say(reply) };
}

/** A JSON text cut into three fragments, as providers stream arguments. */
function thirds(json: string): string[] {
  const a = Math.floor(json.length / 3);
  const b = Math.floor((2 * json.length) / 3);
  return [json.slice(0, a), json.slice(a, b), json.slice(b)];
}

/** Text parts of any format (text, input_text, output_text; tool_result content), joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: any) =>
      TEXT_PARTS.includes(p?.type) && typeof p.text === 'string'
        ? p.text
        : p?.type === 'tool_result'
          ? textOf(p.content)
          : '',
    )
    .join('');
}
const TEXT_PARTS = ['text', 'input_text', 'output_text'];

/** What the scenario depends on, whatever the format. */
function conversation(format: WireFormat, body: any) {
  if (format === 'responses') return responsesConversation(body);
  if (format === 'gemini') return geminiConversation(body);
  if (format === 'bedrock') return bedrockConversation(body);
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const lastUser = [...msgs].reverse().find((m) => m?.role === 'user');
  const last = msgs.at(-1);
  if (format === 'openai') {
    let i = msgs.length;
    while (i > 0 && msgs[i - 1]?.role === 'tool') i--;
    return {
      system: msgs
        .filter((m) => m?.role === 'system' || m?.role === 'developer')
        .map((m) => textOf(m.content))
        .join('\n'),
      lastUserText: textOf(lastUser?.content),
      toolResult:
        i < msgs.length
          ? msgs
              .slice(i)
              .map((m) => textOf(m.content))
              .join('\n')
          : undefined,
      maxTokens: body?.max_completion_tokens ?? body?.max_tokens,
    };
  }
  const results =
    last?.role === 'user' && Array.isArray(last.content)
      ? last.content.filter((b: any) => b?.type === 'tool_result')
      : [];
  const userText = Array.isArray(lastUser?.content)
    ? lastUser.content
        .filter((b: any) => b?.type === 'text')
        .map((b: any) => b.text)
        .join('')
    : textOf(lastUser?.content);
  return {
    system: textOf(body?.system),
    lastUserText: userText,
    toolResult: results.length > 0 ? results.map((b: any) => textOf(b.content)).join('\n') : undefined,
    maxTokens: body?.max_tokens as number | undefined,
  };
}

/** Responses: instructions and system/developer items; tool results are the function_call_output items it ends with. */
function responsesConversation(body: any) {
  const items: any[] =
    typeof body?.input === 'string'
      ? [{ role: 'user', content: body.input }]
      : Array.isArray(body?.input)
        ? body.input
        : [];
  let i = items.length;
  while (i > 0 && items[i - 1]?.type === 'function_call_output') i--;
  const system = [
    ...(typeof body?.instructions === 'string' ? [body.instructions] : []),
    ...items.filter((m) => m?.role === 'system' || m?.role === 'developer').map((m) => textOf(m.content)),
  ];
  return {
    system: system.join('\n'),
    lastUserText: textOf([...items].reverse().find((m) => m?.role === 'user')?.content),
    toolResult:
      i < items.length
        ? items
            .slice(i)
            .map((m) => textOf(m.output))
            .join('\n')
        : undefined,
    maxTokens: body?.max_output_tokens as number | undefined,
  };
}

// ---------------------------------------------------------------- fleets

export interface Fleet {
  up: Record<string, FakeUpstream>;
  /** Upstream names in call order, across the whole fleet. */
  sequence: string[];
  calls: UpstreamCall[];
  close(): Promise<void>;
}

/** One fake per name (a provider each), answering `served by <name>`, with one shared call log. */
export async function startFleet(names: string[], opts: FakeUpstreamOptions = {}): Promise<Fleet> {
  const sequence: string[] = [];
  const calls: UpstreamCall[] = [];
  const up: Record<string, FakeUpstream> = {};
  for (const name of names) {
    up[name] = await startFakeUpstream({
      answer: () => ({ text: `served by ${name}` }),
      ...opts,
      name,
      sequence,
      allCalls: calls,
    });
  }
  return { up, sequence, calls, close: async () => void (await Promise.all(Object.values(up).map((u) => u.close()))) };
}

/** A base URL on 127.0.0.1 where nothing listens (connection refused). */
export async function closedPortUrl(): Promise<string> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}
