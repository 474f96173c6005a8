import type { ChatRequest, ChatResponse, StreamEvent, Usage, WireFormatId } from '../core/canonical.js';
import type { GatewayError } from '../core/errors.js';
import type { SseMessage } from '../sse/decode.js';

/** What the same-format fast path needs from a format: the bytes go through, usage is tapped. */
export interface PassThrough {
  /** The caller's body for the upstream: `model` rewritten, anything the gateway needs added. */
  prepareBody(raw: Buffer, parsed: unknown, upstreamModel: string, chat: ChatRequest): Buffer;
  /** True when some upstream events must be hidden from this caller (events are then re-encoded). */
  hidesEvents(chat: ChatRequest): boolean;
  /** Inspect one upstream SSE message: usage seen, and whether to hide it from the caller. */
  tapEvent(msg: SseMessage, chat: ChatRequest): { usage?: Usage; drop?: boolean } | undefined;
  usageFromBody(body: unknown): Usage | undefined;
  /** The human message inside an upstream error body of this format. */
  errorMessage(body: unknown): string | undefined;
}

/** The contract a wire format meets; one folder per format under src/formats/. */
export interface WireFormat {
  id: WireFormatId;
  decodeRequest(body: unknown): ChatRequest;
  encodeResponse(res: ChatResponse): unknown;
  encodeStream(events: AsyncIterable<StreamEvent>, req: ChatRequest): AsyncIterable<string>;
  /** Error body in this format (the status comes from the error). */
  renderError(err: GatewayError): unknown;
  /** An error after the stream has been committed, as an in-stream SSE message. */
  streamError(err: GatewayError): string;
  passThrough: PassThrough;
}
