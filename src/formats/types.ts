import type {
  ChatRequest,
  EnvelopeId,
  ChatResponse,
  StreamEvent,
  UpstreamFormatId,
  Usage,
  WireFormatId,
} from '../core/canonical.js';
import type { MemberOffsets } from '../core/json-splice.js';
import type { GatewayError } from '../core/errors.js';
import type { RelayedOutput } from '../core/reply.js';
import type { SseMessage } from '../sse/decode.js';

/**
 * Looks at every event of a relayed same-format stream, on the side: the bytes still go through
 * as they came, but a malformed event, an upstream error or a stream that ends early never
 * reaches the caller as a clean-looking stream.
 */
export interface StreamWatch {
  /**
   * One upstream event. Throws a GatewayError for an event that is not what the format says (data
   * that must be JSON and is not) and for the upstream's own error event; `drop` hides the event.
   */
  see(msg: SseMessage): { drop?: boolean } | undefined;
  /** The format's terminator has arrived (`data: [DONE]` / `message_stop`). */
  readonly complete: boolean;
  /** Usage reported so far (complete for the request so far, not a delta). */
  readonly usage: Usage | undefined;
  /** Generated text relayed so far (text, reasoning, tool-call arguments): bills a stream cut before its usage. */
  readonly output: string[];
}

/**
 * The names of what the gateway changed in a body on its way up, for the caller: fields left out
 * (`x-gateway-dropped-fields`) and fields whose value was replaced by one the model takes
 * (`x-gateway-rewritten-fields`).
 */
export interface BodyEdits {
  dropped: string[];
  rewritten: string[];
}

/** The caller's request, as received and as read. */
export interface CallerRequest {
  raw: Buffer;
  /** Where raw's members are, when its strict parse found them (json-splice.ts). */
  members?: MemberOffsets;
  parsed: unknown;
  chat: ChatRequest;
}

/** What the same-format fast path needs from a format: the bytes go through, usage is tapped. */
export interface PassThrough {
  /**
   * The caller's body for the upstream: `model` rewritten, anything the gateway needs added (an output
   * cap, the usage request), what the model refuses fitted to it (named in `edits`).
   */
  prepareBody(req: CallerRequest, target: EncodeTarget, edits: BodyEdits): Buffer;
  /** A watcher for one relayed upstream stream of this format (fresh per attempt). */
  watchStream(chat: ChatRequest): StreamWatch;
  usageFromBody(body: unknown): Usage | undefined;
  /**
   * The `usage` member's JSON text of a complete answer in the provider's everyday shape, read
   * without parsing the rest; undefined for any other answer (parsed in full). A match proves the
   * whole text is JSON with a string `model` (each format's plain-answer.ts).
   */
  plainAnswerUsage?(text: string): string | undefined;
  /** That usage text read without JSON.parse when it has the format's common shape; else undefined. */
  plainUsage?(usage: string): Usage | undefined;
  /** The human message inside an upstream error body of this format. */
  errorMessage(body: unknown): string | undefined;
}

export interface DecodeOptions {
  /** A token-counting request: generation settings such as `max_tokens` are not required. */
  forCounting?: boolean;
}

/** What an encoder needs to know about the model the request goes to. */
export interface EncodeTarget {
  /** The upstream model name. */
  model: string;
  /** The model's output limit, when configured (bounds a default max_tokens). */
  maxOutputTokens?: number;
  /** The model's `reasoning` setting, when configured (else guessed from its name, model-traits.ts). */
  reasoning?: boolean;
}

/**
 * What the gateway needs from a format it sends to upstreams: the request out, the answer back,
 * what an error body says. Translators and provider kinds depend only on this; a format no caller
 * speaks (Gemini) meets only this.
 */
export interface UpstreamFormat {
  id: UpstreamFormatId;
  /**
   * Egress: canonical → body for an upstream that speaks this format; throws a 400 for what it
   * cannot carry. `dropped` receives the names of what it left out because it changes nothing
   * about the conversation's meaning (the request's hints included), for `x-gateway-dropped-fields`.
   */
  encodeRequest(req: ChatRequest, target: EncodeTarget, dropped?: string[]): Record<string, unknown>;
  /** Upstream response body of this format → canonical. */
  decodeResponse(body: unknown): ChatResponse;
  /**
   * A complete answer's text in the provider's everyday shape decoded as decodeResponse decodes its
   * JSON, without parsing the whole (each format's plain-answer.ts); undefined for any other text.
   * A result proves the text is JSON with a string `model`.
   */
  decodePlainResponse?(text: string): ChatResponse | undefined;
  /** Upstream SSE of this format → canonical events; an in-stream upstream error becomes an `error` event. */
  decodeStream(sse: AsyncIterable<SseMessage>): AsyncIterable<StreamEvent>;
  /** The human message inside an upstream error body of this format. */
  errorMessage(body: unknown): string | undefined;
  /** How long an upstream error body asks the caller to wait, when it says so in the body (not a header). */
  retryDelayMs?(body: unknown): number | undefined;
  /** The status an error body means when the format's HTTP status says less (Gemini refuses a bad key with 400). */
  errorStatus?(status: number, body: unknown): number;
  /**
   * How a stream's body is framed when it is not SSE (Bedrock's AWS event stream): the media type
   * it comes as, and the frames as messages (`event`: the event's name, `data`: its payload).
   */
  streamFraming?: {
    mediaType: string;
    decode(chunks: AsyncIterable<Uint8Array>): AsyncIterable<SseMessage>;
  };
  /**
   * A token-counting endpoint whose body and answer are not the format's `{input_tokens}` ones
   * (Gemini's countTokens): the body made from an encoded request, and the count in its answer.
   */
  countTokens?: {
    body(encoded: Record<string, unknown>, model: string): Record<string, unknown>;
    inputTokens(answer: unknown): number | undefined;
    /** An error answer that means this model cannot be counted upstream (Bedrock's): counted locally instead. */
    unsupported?(status: number, body: unknown): boolean;
  };
}

/**
 * How a provider's API wraps a format it speaks without changing it (Bedrock's InvokeModel carries
 * Anthropic's bodies, but its streams as AWS event-stream chunks, its errors as AWS exceptions and
 * its token count as CountTokens). A kind names its envelope (providers/types.ts, `envelope`); the
 * format's pass-through and translation work on what the envelope unwraps.
 */
export interface Envelope {
  id: EnvelopeId;
  /** The media type a stream comes as. */
  streamMediaType: string;
  /** A stream's body → the wrapped format's SSE; an exception in it throws its catalogue error. */
  unwrapStream(chunks: AsyncIterable<Uint8Array>): AsyncIterable<Buffer>;
  /** The human message inside an error body of the envelope. */
  errorMessage(body: unknown): string | undefined;
  /** The status an error body means when the HTTP status says less. */
  errorStatus(status: number, body: unknown): number;
  countTokens: {
    /** The counting request for a chat body as the kind sends it (after its `editBody`). */
    body(chatBody: Buffer): Buffer;
    inputTokens(answer: unknown): number | undefined;
    /** An error answer saying the model has no upstream count: it is counted locally instead. */
    unsupported(status: number, body: unknown): boolean;
  };
}

/**
 * One caller's stream, event by event: synchronous, so the writer pulls canonical events and
 * writes their text without another async layer per event.
 */
export interface StreamEncoder {
  /** The SSE text an event makes ('' when it makes none). */
  push(ev: StreamEvent): string;
  /** The stream is complete (its end or an error was written): read no further. */
  readonly done: boolean;
  /** The events ran out before the end: the text that ends the caller's stream with an error ('' once done). */
  endedEarly(): string;
}

/** The contract a format that callers also speak meets; one folder per format under src/formats/. */
export interface WireFormat extends UpstreamFormat {
  id: WireFormatId;
  /** Ingress: caller's body → canonical; throws GatewayError('invalid_request') naming the field. */
  decodeRequest(body: unknown, opts?: DecodeOptions): ChatRequest;
  /** Canonical → the body this format's callers expect (`req`: the caller's request, as decoded). */
  encodeResponse(res: ChatResponse, req: ChatRequest): unknown;
  /** Canonical events → SSE text for this format's callers, obeying its event-order rules. */
  streamEncoder(req: ChatRequest): StreamEncoder;
  /** Error body in this format (the status comes from the error). */
  renderError(err: GatewayError): unknown;
  /**
   * An error after the stream has been committed, as an in-stream SSE message. `relayed`: the watch
   * of a relayed stream (same format both sides), for a format whose events are numbered.
   */
  streamError(err: GatewayError, relayed?: RelayedOutput): string;
  passThrough: PassThrough;
}
